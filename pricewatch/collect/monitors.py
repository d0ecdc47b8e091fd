"""Run monitors (in the spirit of spidermon): a crawl that parsed but looks wrong is *suspect*.

Unknown GPU labels are not a finding: a new GPU on a provider's page is news (an alert), and
the offers with labels we know still become the latest. A suspect provider run keeps its offers as evidence, but they are not the latest prices:
they cannot move a "cheapest" claim or raise a price alert until a run passes again.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class MonitorConfig:
    # Item count may fall this far below the median of the last successful runs.
    item_count_tolerance: float = float(os.environ.get("PRICEWATCH_MONITOR_ITEM_TOLERANCE", 0.5))
    history_runs: int = 5
    min_priced_share: float = float(os.environ.get("PRICEWATCH_MONITOR_MIN_PRICED_SHARE", 0.5))
    max_http_errors: int = int(os.environ.get("PRICEWATCH_MONITOR_MAX_HTTP_ERRORS", 3))


def check(provider: str, offers: list[dict], report: dict, previous_counts: list[int],
          config: MonitorConfig = MonitorConfig()) -> list[str]:
    """Findings that make this crawl suspect; empty when it passes every monitor."""
    findings = []
    n = len(offers)
    recent = previous_counts[: config.history_runs]
    if recent:
        usual = statistics.median(recent)
        floor = usual * (1 - config.item_count_tolerance)
        if n <= floor:   # losing half of the offers (tolerance 50%) is already a collapse
            findings.append(f"item count {n} is at or below {floor:g} "
                            f"(median {usual:g} of the last {len(recent)} successful runs, "
                            f"tolerance {config.item_count_tolerance:.0%})")
    if n:
        priced = sum(1 for o in offers if o.get("is_priced")) / n
        if priced < config.min_priced_share:
            findings.append(f"only {priced:.0%} of offers have a price (minimum {config.min_priced_share:.0%})")
        # A renamed price cell empties one kind of price while the others still parse: every
        # offer of a billing/tier with three or more offers unpriced is not a real page.
        groups: dict[tuple, list[bool]] = {}
        for o in offers:
            groups.setdefault((o.get("billing"), o.get("tier")), []).append(bool(o.get("is_priced")))
        for (billing, tier), flags in sorted(groups.items(), key=str):
            if len(flags) >= 3 and not any(flags):
                what = billing if tier in (None, billing) else f"{billing}/{tier}"
                findings.append(f"none of the {len(flags)} {what} offers has a price (a renamed price cell?)")
    errors = sum(int(v) for k, v in report.get("http_status_counts", {}).items()
                 if int(k) >= 500 or int(k) in (403, 429))
    if errors > config.max_http_errors:
        findings.append(f"{errors} HTTP error responses (maximum {config.max_http_errors})")
    return findings

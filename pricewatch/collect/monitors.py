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
          config: MonitorConfig = MonitorConfig(), held: int = 0) -> list[str]:
    """Findings that make this crawl suspect; empty when it passes every monitor. ``held``: rows
    the parser held (the judge reports them on a line of their own; they are not counted again
    as offers without a price)."""
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
        if priced < config.min_priced_share and not (held and priced * n + held >= config.min_priced_share * n):
            findings.append(f"only {priced:.0%} of offers have a price (minimum {config.min_priced_share:.0%})")
        # A renamed price cell empties one kind of price while the others still parse: every
        # offer of a billing (or of a billing/tier) unpriced is not a real page when there are
        # three or more of them, or when none of them printed any price text at all (the cell
        # the parser reads is gone), however few.
        groups: dict[tuple, list[dict]] = {}
        for o in offers:
            groups.setdefault((o.get("billing"), o.get("tier")), []).append(o)
            if o.get("tier") not in (None, o.get("billing")):
                groups.setdefault((o.get("billing"), None), []).append(o)
        flagged: set = set()
        for (billing, tier), group in sorted(groups.items(), key=str):
            if any(o.get("is_priced") for o in group) or billing in flagged:
                continue
            textless = all(_no_text(o.get("price_raw")) for o in group)
            if len(group) >= 3 or textless:
                flagged.add(billing)
                what = billing if tier in (None, billing) else f"{billing}/{tier}"
                why = "no price text at all" if textless else "a renamed price cell?"
                findings.append(f"none of the {len(group)} {what} offers has a price ({why})")
    errors = sum(int(v) for k, v in report.get("http_status_counts", {}).items()
                 if int(k) >= 500 or int(k) in (403, 429))
    if errors > config.max_http_errors:
        findings.append(f"{errors} HTTP error responses (maximum {config.max_http_errors})")
    return findings


def _no_text(raw) -> bool:
    """A price cell that printed nothing (absent, empty, whitespace)."""
    return raw is None or (isinstance(raw, str) and not raw.strip())

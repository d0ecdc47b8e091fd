"""The steps of a collection run, free of Prefect so they read (and test) on their own:
judge a crawl (pricewatch/collect/crawl_process.py ran it), and shape a run for the warehouse.
Archive discovery is pricewatch/collect/replays.py."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from pricewatch.collect import gate, monitors
from pricewatch.collect.crawl_process import CrawlResult
from pricewatch.record.crawl_report import PROVIDER_RUN_NAMES
from pricewatch.record.fields import JUDGED_FIELDS
from pricewatch.record.offer import OfferRecord
from pricewatch.record.prices import HELD_ROW
from pricewatch.record.text import plain


def _text(name):
    return lambda i, cap: None if i.get(name) is None else str(i[name])


#: How the judge reads each stored offer column from an item (its capture reference ``cap``)
#: where it is not the item's own value (``item.get(name)``); run_id, provider and
#: observed_at are the provider run's. The columns and their order: JUDGED_FIELDS.
_CELL = {
    "offer_key": lambda i, cap: i["offer_key"], "gpu_label": lambda i, cap: i["gpu_label"],
    "gpu_count": lambda i, cap: int(i["gpu_count"]), "form_factor": lambda i, cap: i.get("form_factor") or "unknown",
    "billing": lambda i, cap: i["billing"], "tier": lambda i, cap: i["tier"],
    "self_service": lambda i, cap: bool(i.get("self_service", True)),
    "currency": lambda i, cap: i.get("currency") or "USD", "price_unit": lambda i, cap: i["price_unit"],
    "is_priced": lambda i, cap: bool(i["is_priced"]), "price_raw": _text("price_raw"),
    "availability": _text("availability"), "is_aggregator": lambda i, cap: bool(i.get("is_aggregator")),
    **{name: (lambda i, cap, name=name: cap[name]) for name in ("source_url", "warc_file", "warc_record_id", "body_sha256")},
}
_GIVEN = ("run_id", "provider", "observed_at")
#: (column, how it is read; None: given by the provider run), for every column of JUDGED_FIELDS.
_OFFER_CELLS = tuple((name, None if name in _GIVEN else _CELL.get(name) or (lambda i, cap, name=name: i.get(name)))
                     for name in JUDGED_FIELDS)


@dataclass
class ProviderOutcome:
    provider: str
    status: str  # ok | suspect | failed | not attempted
    offers: list[dict] = field(default_factory=list)
    facts: list[dict] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    monitors: list[str] = field(default_factory=list)
    report: dict = field(default_factory=dict)
    duration_s: float | None = None
    attempts: int = 1
    observed_at: datetime | None = None
    #: its readings are in force: ok, or suspect only because the parser held rows it could not
    #: read (those rows are held; the others are the latest prices). provider_runs.trusted.
    trusted: bool = False


def judge_crawl(result: CrawlResult, previous_counts: list[int] | None = None,
                monitor_config: monitors.MonitorConfig | None = None) -> ProviderOutcome:
    """Decides whether a crawl is data. Any doubt fails the provider, with a message that
    names it and what was missing; its previous offers then stay the latest. A crawl that
    parsed but fails a run monitor (see pricewatch/collect/monitors.py) is *suspect*; so is one
    whose parser held rows it could not read (spiders/base.py Parsed.hold: the other rows load,
    one monitor line counts and names the held ones), unless most of its rows are held: then
    the page is not read and the provider fails."""
    p, report = result.provider, result.report
    base = dict(provider=p, report=report, duration_s=result.duration_s, attempts=result.attempts)
    # An unknown label is news (stored with gpu_model NULL, alerted once), not a fault.
    warnings = [f"new GPU label {label!r} (not in pricewatch/record/gpu_catalog.yaml)"
                for label in report.get("unknown_labels", [])]
    if result.returncode != 0 or not report:
        return ProviderOutcome(status="failed", error=f"{p}: crawl did not finish "
                               f"(exit {result.returncode}): {result.log_tail[-500:]}", **base)
    problems = []
    messages = report.get("layout_errors") or []
    held = list(dict.fromkeys(m for m in messages if m.startswith(HELD_ROW)))
    layout = [m for m in messages if not m.startswith(HELD_ROW)]
    if layout:
        problems.append("layout changed: " + summarize(layout))
    if report.get("failed_urls"):
        problems.append("requests failed: " + summarize(report["failed_urls"]))
    if report.get("replay_missing"):
        problems.append(f"{report['replay_missing']} request(s) not found in the replay archive")
    if report.get("conflicting_duplicates"):
        problems.append("same offer with two prices: " + summarize(report["conflicting_duplicates"]))
    if report.get("spider_exceptions"):
        problems.append(f"{report['spider_exceptions']} parser exception(s) (see the crawl log)")
    if not result.items and not problems:
        problems.append("the parser found no offers and reported no layout error")
    rows = max(len(result.items), len(held))
    if held and 2 * len(held) > rows:
        problems.append(f"most rows unreadable: {held_line(held, rows)}")
    invalid: dict[str, int] = {}
    for item in result.items:
        try:
            OfferRecord.model_validate(item)
        except ValidationError as exc:
            for err in exc.errors():
                name = ".".join(str(x) for x in err["loc"]) or "record"
                invalid[name] = invalid.get(name, 0) + 1
    if invalid:
        problems.append("required fields missing or invalid: " +
                        summarize([f"{k} in {n} offer(s)" for k, n in sorted(invalid.items())]))
    if problems:
        return ProviderOutcome(status="failed", error=plain(f"{p}: " + " | ".join(problems), 600),
                               warnings=warnings, **base)
    observed = min(datetime.fromisoformat(i["capture"]["captured_at"]) for i in result.items)
    held_finding = [held_line(held, rows)] if held else []
    findings = held_finding + monitors.check(
        p, result.items, report, previous_counts or [], monitor_config or monitors.MonitorConfig(),
        held=len(held)) + gate.crawl_findings(result.items)
    return ProviderOutcome(status="suspect" if findings else "ok", offers=result.items, facts=result.facts,
                           warnings=warnings, monitors=findings, observed_at=observed,
                           trusted=findings == held_finding,
                           error=f"{p}: suspect: " + "; ".join(findings) if findings else None, **base)


def held_line(held: list[str], rows: int) -> str:
    """One line for the rows a parser held: "2 of 24 rows held (price cell unreadable), e.g. 8x
    H100 on-demand: price cell unreadable: 'N/A—'; ..." (each row named once, a few shown)."""
    shown = summarize([m[len(HELD_ROW):] for m in held], max_lines=2, max_chars=120)
    return f"{len(held)} of {rows} row(s) held, not priced (a price cell the parser could not read): {shown}"


def summarize(messages: list[str], max_lines: int = 3, max_chars: int = 150) -> str:
    """Distinct messages once each, with a count when repeated, each cut to a readable length:
    39 offers with the same fault are one line "(x39)", never 39 lines."""
    counts: dict[str, int] = {}
    for m in messages:
        m = plain(m, max_len=10_000)
        counts[m] = counts.get(m, 0) + 1
    lines = []
    for m, n in list(counts.items())[:max_lines]:
        lines.append(plain(m, max_chars) + (f" (x{n})" if n > 1 else ""))
    rest = len(counts) - max_lines
    if rest > 0:
        lines.append(f"and {rest} more distinct problem(s)")
    return "; ".join(lines)


def run_identity(mode: str, observed_at: datetime, outcomes: list[ProviderOutcome], started: datetime) -> str:
    """A replay of the same captures at the same snapshot time always gets the same id, so
    loading it again is a no-op. Live runs are unique."""
    stamp = observed_at.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    if mode == "live":
        return f"live-{started:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}"
    evidence = sorted(
        f"{o.provider}:{o.status}:" + ",".join(sorted({i['capture']['body_sha256'] for i in o.offers}))
        for o in outcomes if o.status != "not attempted")
    digest = hashlib.sha256("|".join([stamp] + evidence).encode()).hexdigest()[:12]
    return f"replay-{stamp}-{digest}"


def build_run(outcomes: list[ProviderOutcome], mode: str, started: datetime, as_of: datetime | None,
              replay: Path | None, flow_run_id: str | None = None,
              captured_at: dict[str, datetime] | None = None, known_providers: list[str] | None = None):
    """The run row and the DataFrames the loader inserts in one transaction: the provider runs'
    rows with the columns of PROVIDER_RUN_FIELDS (pricewatch/record/crawl_report.py), the offers'
    with those of JUDGED_FIELDS (pricewatch/record/fields.py: every stored column but the two
    the load's quality gate adds).

    Dating: ``as_of`` when given; else each provider's own capture time (its offers' WARC
    records, or for a provider that stored none, ``captured_at[provider]``: the capture time of
    its records in the replayed archive). Only a live run with nothing captured falls back to
    the wall clock. ``known_providers``: every provider pricewatch has; those not in this run
    are recorded as 'not attempted'.
    """
    captured_at = captured_at or {}
    for o in outcomes:
        if as_of is not None:
            o.observed_at = as_of
        elif o.observed_at is None and o.provider in captured_at:
            o.observed_at = captured_at[o.provider]
    ok = [o for o in outcomes if o.status == "ok"]
    dated = [o.observed_at for o in ([o for o in outcomes if o.trusted] or outcomes) if o.observed_at]
    observed_at = as_of or (min(dated) if dated else started)
    for o in outcomes:
        o.observed_at = o.observed_at or observed_at
    attempted = {o.provider for o in outcomes}
    outcomes = outcomes + [ProviderOutcome(provider=p, status="not attempted", observed_at=observed_at,
                                           error=None if mode == "live" else f"{p}: not in the replayed archive")
                           for p in sorted(set(known_providers or []) - attempted)]
    run_id = run_identity(mode, observed_at, outcomes, started)
    attempted_outcomes = [o for o in outcomes if o.status != "not attempted"]
    status = "ok" if len(ok) == len(attempted_outcomes) else ("partial" if ok else "failed")
    failed = [o for o in attempted_outcomes if o.status != "ok"]
    summary = f"{len(ok)}/{len(attempted_outcomes)} providers ok" + (
        "; failed: " + "; ".join(o.error or o.provider for o in failed) if failed else "")
    finished = datetime.now(timezone.utc)
    run = {"run_id": run_id, "mode": mode, "observed_at": observed_at,
           "snapshot_date": observed_at.astimezone(timezone.utc).date(), "started_at": started,
           "finished_at": finished, "status": status, "replay_source": str(replay) if replay else None,
           "flow_run_id": flow_run_id, "summary": summary}
    provider_rows, offer_rows, fact_rows = [], [], []
    for o in outcomes:
        offers = o.offers if o.status in ("ok", "suspect") else []
        priced = sum(1 for i in offers if i["is_priced"])
        statuses = o.report.get("http_status_counts", {})
        cells = {
            "run_id": run_id, "provider": o.provider, "status": o.status, "observed_at": o.observed_at,
            "item_count": len(offers), "priced_count": priced, "unpriced_count": len(offers) - priced,
            "duplicates_dropped": int(o.report.get("duplicates_dropped", 0)),
            "http_error_count": sum(int(v) for k, v in statuses.items() if int(k) >= 500 or int(k) in (403, 429)),
            "retries": int(o.report.get("retries", 0)), "attempts": o.attempts,
            "duration_s": o.duration_s, "unknown_labels": list(o.report.get("unknown_labels", [])),
            "warnings": o.warnings, "monitors": o.monitors, "error": o.error, "trusted": o.trusted,
        }
        provider_rows.append({name: cells[name] for name in PROVIDER_RUN_NAMES})
        for f in (o.facts if o.status in ("ok", "suspect") else []):
            cap = f["capture"]
            fact_rows.append({
                "run_id": run_id, "provider": o.provider, "fact": f["fact"],
                "value_num": f.get("value_num"), "value_text": f.get("value_text"),
                "observed_at": o.observed_at, "source_url": cap["source_url"], "warc_file": cap["warc_file"],
                "warc_record_id": cap["warc_record_id"], "body_sha256": cap["body_sha256"]})
        given = {"run_id": run_id, "provider": o.provider, "observed_at": o.observed_at}
        for i in offers:
            cap = i["capture"]
            row = {name: given[name] if cell is None else cell(i, cap) for name, cell in _OFFER_CELLS}
            row["held_row"] = i.get("held_row")   # the gate stores it as held_reason
            offer_rows.append(row)
    offers_df = pd.DataFrame(offer_rows)
    if len(offers_df):
        for col in ("price_per_hour", "price_per_gpu_hour", "vram_gb"):
            offers_df[col] = offers_df[col].astype("float64")
    return run, pd.DataFrame(provider_rows), offers_df, pd.DataFrame(fact_rows)



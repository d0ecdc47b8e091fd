"""What `pricewatch run` shows while it runs: one line per provider as its crawl is judged
(status, offers, seconds), one block per finished run (claims, alerts raised and delivered),
and Prefect's per-task log lines in a file instead of the console (unless --verbose).

The flow knows nothing of this: it writes one record per provider to the
``pricewatch.progress`` logger (flows/nightly.py); ``show_progress`` prints them. Every scraped
string reaches the console through pricewatch.record.text.console.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from rich.console import Console

from pricewatch.record.text import console as esc

PROGRESS_LOGGER = "pricewatch.progress"
STATUS_STYLE = {"ok": "green", "suspect": "yellow", "failed": "red", "not attempted": "dim"}


def provider_line(status: str, provider: str, offers: int, duration_s: float | None,
                  error: str | None = None, warnings: list[str] | None = None) -> str:
    """One provider, one line (rich markup; scraped text escaped)."""
    style = STATUS_STYLE.get(status, "white")
    secs = f"{duration_s:5.1f} s" if duration_s is not None else "    - "
    line = f"  [{style}]{esc(status):<8}[/{style}] {esc(provider):<18} {offers:>5} offers  {secs}"
    note = error or "; ".join(warnings or [])
    if note:
        line += "  " + esc(note.removeprefix(f"{provider}: "), 160)
    return line


class _Printer(logging.Handler):
    def __init__(self, out: Console):
        super().__init__(logging.INFO)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if hasattr(record, "provider"):
                self.out.print(provider_line(record.status, record.provider, record.offers,
                                             record.duration_s, record.error, record.warnings),
                               soft_wrap=True, highlight=False)
        except Exception:  # noqa: BLE001 - a display problem never stops a run
            self.handleError(record)


@contextmanager
def show_progress(out: Console | None = None) -> Iterator[None]:
    """Prints each progress record of the flows run inside."""
    log = logging.getLogger(PROGRESS_LOGGER)
    handler = _Printer(out or Console())
    log.addHandler(handler)
    level, log.level = log.level, logging.INFO
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def default_log_path(db_file: Path) -> Path:
    """<warehouse folder>/logs/run-<UTC time>.log"""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return Path(db_file).resolve().parent / "logs" / f"run-{stamp}.log"


def prefect_logs_to_file(path: Path) -> Path:
    """Prefect's console handler (on the root logger: flow and task run lines, warnings of
    libraries) replaced by a file handler with the same format. Call after Prefect is imported
    (it sets its logging up then)."""
    from prefect.logging.handlers import PrefectConsoleHandler
    path.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    for name in (None, "uvicorn", "fastapi"):
        logger = logging.getLogger(name) if name else root
        for h in list(logger.handlers):
            if isinstance(h, PrefectConsoleHandler):
                logger.removeHandler(h)
                fh = logging.FileHandler(path, encoding="utf-8")
                fh.setLevel(h.level)
                fh.setFormatter(h.formatter)
                logger.addHandler(fh)
    return path


def run_block(summary: dict, out: Console | None = None) -> None:
    """The end of one run: id, status, providers, claims, alerts raised and delivered."""
    out = out or Console()
    providers = summary.get("providers") or {}
    ok = sum(1 for p in providers.values() if p["status"] == "ok")
    if summary.get("spooled"):
        stored = f"NOT loaded: {summary.get('error')}"
    else:
        stored = "loaded" if summary.get("loaded") else "already loaded, nothing changed"
    out.print(esc(f"run {summary['run_id']} ({summary['status']}): {ok}/{len(providers)} providers ok, "
                  f"{sum(p['offers'] for p in providers.values())} offers, {stored}; "
                  f"observed at {summary['observed_at']}", 400), soft_wrap=True, highlight=False)
    claims = summary.get("claims")
    if claims:
        out.print("  claims: " + esc(" · ".join(f"{s} {n}" for s, n in (claims.get("counts") or {}).items())),
                  soft_wrap=True, highlight=False)
        changes = claims.get("rule_changes")
        if changes:
            out.print("  " + esc(f"rules/ changed (version {changes['rules_version']}): the snapshot of run "
                                 f"{changes['run_id']} was evaluated again; {len(changes['changed'])} claim(s) "
                                 f"moved by the rule change, not by prices (pricewatch claims)", 400),
                      soft_wrap=True, highlight=False)
    alerts = summary.get("alerts")
    if alerts is not None:
        out.print("  alerts: " + esc(alerts_line(alerts)), soft_wrap=True, highlight=False)
    # Paths and run ids whole, each on its own line (never cut with the run line).
    if summary.get("spooled"):
        out.print("  spooled to: " + esc(str(summary["spooled"]), 2000) + " (loaded by the next run that gets the "
                  "warehouse, or `pricewatch run` again)", soft_wrap=True, highlight=False)
    for run_id in summary.get("unspooled") or []:
        out.print("  " + esc(f"spooled run {run_id} (an earlier night the warehouse was locked) loaded now, "
                             "its claims and alerts evaluated", 400), soft_wrap=True, highlight=False)
    if summary.get("report"):
        out.print("  report: " + esc(str(summary["report"]), 2000), soft_wrap=True, highlight=False)


def alerts_line(alerts: dict) -> str:
    """'3 raised (1 suspect), 3 delivered, 0 failed, 0 pending' from derive + deliver counts."""
    raised = int(alerts.get("raised") or 0)
    extra = [f"{int(alerts[k])} {k}" for k in ("suspect", "suppressed") if alerts.get(k)]
    line = f"{raised} raised" + (f" ({', '.join(extra)})" if extra else "")
    line += f", {int(alerts.get('sent') or 0)} delivered"
    for k in ("failed", "unconfirmed", "pending"):
        if alerts.get(k):
            line += f", {int(alerts[k])} {k}"
    if alerts.get("error"):
        line += f" ({alerts['error']})"
    return line

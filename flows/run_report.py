"""What a finished nightly run tells the person on call: the flow's final state (with a message
naming the providers that failed and why), Prefect artifacts to read in the UI, and a notice
through the alert channels when the run failed or is suspect.

The flow ends with `return report(summary)`. A caller that needs the summary whatever happened
(`pricewatch run`, the backfill flow) calls the flow with `return_state=True` and reads it with
`summary_of(state)`; a plain call returns the summary, or raises RunFailed when no provider
succeeded.

Provider errors quote the page ("price cell reads '<script>…'"), so every stored or scraped
string is made inert for where it goes: the state message and the notice (plain text) through
pricewatch.record.text.plain; the artifacts, which the Prefect UI renders as Markdown (the markdown
artifact, every artifact description, and every string cell of a table artifact), through the
Markdown helpers of pricewatch.claims.formatting. The builders are plain functions
(provider_rows, providers_description, claims_markdown) so tests can read what is published.
"""

from __future__ import annotations

from prefect import get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.states import Completed, Failed, State

from pricewatch.claims.formatting import PROSE_MAX, md, md_code
from pricewatch.record.text import plain

PROVIDERS_KEY = "pricewatch-providers"
CLAIMS_KEY = "pricewatch-claims"
MAX_MESSAGE = 2000  # a state message is a line in the UI, not a log


class RunFailed(RuntimeError):
    """No provider produced usable offers. Carries the run summary."""

    def __init__(self, message: str, summary: dict):
        super().__init__(message)
        self.summary = summary


def problems(summary: dict) -> dict[str, str]:
    """Providers that did not end `ok`, with the reason (failed, or suspect per a run monitor)."""
    return {name: p.get("error") or p["status"] for name, p in summary["providers"].items()
            if p["status"] != "ok"}


def message(summary: dict) -> str:
    """One line of plain text (state message, notice body): errors stripped of control
    characters and line breaks, each cut to a readable length, the whole to MAX_MESSAGE."""
    ok = sum(1 for p in summary["providers"].values() if p["status"] == "ok")
    text = f"{ok}/{len(summary['providers'])} providers ok"
    bad = {plain(name): plain(why, PROSE_MAX) for name, why in problems(summary).items()}
    if bad:
        text += "; not ok: " + "; ".join(
            why if why.startswith(name) else f"{name}: {why}" for name, why in bad.items())
    if summary.get("spooled"):
        text += f" ({plain(summary.get('error'), PROSE_MAX)})"
    elif not summary.get("loaded", True):
        text += " (run already in the warehouse: nothing changed)"
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


def final_state(summary: dict) -> State:
    """Completed while at least one provider succeeded (the others are named in the message);
    Failed when none did, so the run shows red in the UI and a plain call raises."""
    text = message(summary)
    if summary["status"] == "failed":
        return Failed(message=text, data=RunFailed(text, summary))
    return Completed(message=text, data=summary)


def summary_of(state: State) -> dict:
    """The run summary from a nightly flow state; re-raises an error that ended the run early."""
    result = state.result(raise_on_failure=False)
    if isinstance(result, RunFailed):
        return result.summary
    if isinstance(result, BaseException):
        raise result
    return result


@task(name="write-report")
def write_report(db_path: str) -> str:
    """The Markdown claims report (pricewatch report) next to the warehouse: <db folder>/report/."""
    from pathlib import Path

    from pricewatch.reports.claims_report import write_report as write
    from warehouse import db
    out = Path(db_path).resolve().parent / "report"
    con = db.connect(db_path, read_only=True, wait_s=db.load_wait_s())
    try:
        paths = write(con, out)
    finally:
        con.close()
    return str(next((p for p in paths if p.name == "claims-report.md"), paths[0]))


def provider_rows(summary: dict) -> list[dict]:
    """The rows of the `pricewatch-providers` table artifact. The UI renders each string cell
    as Markdown: the error / findings (which quote pages) are escaped; the provider and status
    are our own words (spider names, ok/suspect/failed)."""
    return [{"provider": name, "status": p["status"], "offers": p["offers"],
             "duration_s": round(p["duration_s"] or 0, 3),
             "error / findings": md(p.get("error") or "; ".join(p.get("warnings") or []), PROSE_MAX)}
            for name, p in sorted(summary["providers"].items())]


def providers_description(summary: dict) -> str:
    """The table artifact's description (rendered as Markdown by the UI)."""
    return f"Run {md_code(summary['run_id'])} ({md(summary['status'])}): {md(message(summary), MAX_MESSAGE)}"


def publish_artifacts(summary: dict) -> None:
    create_table_artifact(provider_rows(summary), key=PROVIDERS_KEY, description=providers_description(summary))
    claims = summary.get("claims")
    if claims is not None:
        create_markdown_artifact(claims_markdown(claims, summary.get("report")), key=CLAIMS_KEY,
                                 description=f"Published claims after run {md_code(summary['run_id'])}")


def claims_markdown(claims: dict, report: str | None) -> str:
    """Counts by status, each claim that does not hold and why (the reason quotes pages and
    provider errors: escaped), and where the report is."""
    counts = claims.get("counts") or {}
    lines = [f"## Published claims (run {md_code(claims.get('run_id'))})", "", "| status | claims |", "|---|---|"]
    lines += [f"| {md(status)} | {int(n)} |" for status, n in counts.items()]
    lines.append("")
    for status in (s for s in counts if s != "holds"):
        lines += [f"- **{md(status)}** {md_code(i.get('claim_id'))}: {md(i.get('detail') or '', PROSE_MAX)}"
                  for i in claims.get(status) or []]
    lines += ["", f"Report: {md_code(report, 1000)} (re-rendered tables and evidence; `pricewatch report --out DIR`)"
              if report else "Report: not written (see the run's logs); `pricewatch report --out DIR` writes it."]
    return "\n".join(lines)


def needs_notice(summary: dict) -> bool:
    """A failed run (no provider usable) or a suspect one (a provider's crawl parsed but failed a
    run monitor, so its prices are held back). One provider failing one night is named in the
    state and the artifact only: a source that keeps failing raises its own alert
    (pricewatch/alerts/__init__.py, `failed_runs_threshold`), so a flaky source does not page every night."""
    return summary["status"] == "failed" or any(
        p["status"] == "suspect" for p in summary["providers"].values())


@task(name="notify-run", retries=2, retry_delay_seconds=10)
def send_run_notice(summary: dict) -> str:
    """A failed or suspect run goes to the same channels as the price alerts (pricewatch.alerts.notify).
    Raises when a configured channel refused it, so the task retries; no channel configured is
    logged, not an error (a dev machine)."""
    from pricewatch.alerts import notify
    failed = summary["status"] == "failed"
    suspect = [n for n, p in summary["providers"].items() if p["status"] == "suspect"]
    title = plain(f"pricewatch nightly FAILED: {summary['run_id']}" if failed else
                  f"pricewatch nightly suspect ({', '.join(suspect)}): {summary['run_id']}")
    body = message(summary)
    result = notify.send(title, body, "failure" if failed else "warning")
    if not result.deliveries:
        get_run_logger().warning("run notice not sent: %s", result.error)
        return "not configured"
    if not result.ok:
        raise RuntimeError(f"run notice not delivered: {result.error}")
    return "sent"


def report(summary: dict) -> State:
    """Artifacts, a notice when needed, then the flow's final state. Reporting problems are
    logged, never allowed to turn a loaded run into a failed one."""
    logger = get_run_logger()
    if summary.get("claims") is not None and summary.get("write_report", True):
        state = write_report(summary["db"], return_state=True)
        if state.is_completed():
            summary["report"] = state.result()
        else:
            logger.error("claims report not written: %s", state.message)
    try:
        publish_artifacts(summary)
    except Exception as exc:
        logger.error("could not publish run artifacts: %s: %s", type(exc).__name__, exc)
    if needs_notice(summary):
        state = send_run_notice(summary, return_state=True)
        if not state.is_completed():
            logger.error("run notice failed: %s", state.message)
    return final_state(summary)

"""`pricewatch run`: the nightly flow on this machine (a replay or the live sites), its Prefect
server found or started (pricewatch/server/run_server.py), signals handled
(pricewatch/server/run_guard.py), one line per provider as it is judged and one block per run."""

from __future__ import annotations

import logging
import os
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from pricewatch.cli.tools import (
    DbOption,
    cell,
    check_db_writable,
    debug_enabled,
    error_text,
    fail,
    say,
)
from pricewatch.record.text import console as esc


def _quiet_prefect() -> None:
    # Prefect's temporary server cannot start when PREFECT_HOME's parent folders are missing.
    Path(os.environ.get("PREFECT_HOME", "~/.prefect")).expanduser().mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")
    # The temporary server migrates its database on first start: ~20 s on 2 cores.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def _no_flow_heartbeats():
    """The CLI's flow runs send no heartbeat (unless PREFECT_FLOWS_HEARTBEAT_FREQUENCY is set):
    Prefect's heartbeat thread sleeps in 1 s steps and each flow run waits for it to wake at its
    end, ~1 s a flow run (0.2 s instead of 1.1 s for an empty flow; a replay of captures/ is 13
    runs). Heartbeats only serve the automation that marks a silent crawl run Crashed, which
    matches the crawl deployments (tag `crawl`, pricewatch/server/prefect_processes.py), never a
    CLI run: the run's own signal handling ends it (pricewatch/server/run_guard.py)."""
    from contextlib import nullcontext

    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    if os.environ.get("PREFECT_FLOWS_HEARTBEAT_FREQUENCY"):
        return nullcontext()
    return temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None})


def register(app: typer.Typer) -> None:
    app.command()(run)


def run(
    replay: Optional[Path] = typer.Option(None, "--replay", help="WARC file or folder to replay instead of the network"),
    db: Optional[Path] = DbOption,
    as_of: Optional[str] = typer.Option(None, "--as-of", help="observation time of a replayed run (ISO 8601, e.g. 2026-10-29T00:00:00Z)"),
    archive_dir: Path = typer.Option(Path("data/archive"), "--archive-dir", help="where a live run writes its WARC files"),
    provider: Optional[list[str]] = typer.Option(None, "--provider", help="only these providers (repeatable)"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Prefect's flow and task log lines on the console too"),
    log_file: Optional[Path] = typer.Option(None, "--log-file", help="where Prefect's log lines go (default: "
                                            "<warehouse folder>/logs/run-<UTC time>.log)"),
    one_transaction: bool = typer.Option(False, "--one-transaction", help="with a --replay of several dated "
                                         "folders: judge them all first, then store every run in ONE "
                                         "transaction (all or nothing; rerun after a failure)"),
):
    """Run the nightly job once: crawl (or replay), validate, load into DuckDB.

    --replay takes a WARC file, a folder of WARC files (one run), or a folder of dated folders
    such as captures/ (one run per date, oldest first); --one-transaction stores those runs
    together, all or nothing (the backfill flow, flows/backfill.py).
    Prints one line per provider as its crawl is judged, then each run's summary (claims,
    alerts raised and delivered); Prefect's log lines go to the log file unless --verbose.
    Exits 0 when at least one provider succeeded in every run, 1 when a run had none.
    """
    from pricewatch.server import run_server
    # Started first: the Prefect server comes up while the checks below import and read.
    server = run_server.early_server()
    try:
        batches = _check_run(replay, db, as_of, archive_dir, provider, one_transaction)
    except BaseException:
        if server is not None:
            run_server.stop_run_server(server)
        raise
    _run_batches(server, batches, db, as_of, archive_dir, provider or None, verbose, log_file,
                 replay if one_transaction else None)


def _check_run(replay, db, as_of, archive_dir, provider, one_transaction=False) -> list[tuple[Path | None, list[str]]]:
    """Refuses bad input before anything runs; the runs to do, each with its providers."""
    known = _known_providers()
    unknown = [p for p in provider or [] if p not in known]
    if unknown:
        fail(f"unknown provider{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
             f"(known: {', '.join(known)})")
    check_db_writable(db)
    if as_of and not replay:
        fail("--as-of only applies to a replay (a live run is observed now)")
    if one_transaction and not replay:
        fail("--one-transaction only applies to a --replay of several dated folders")
    if replay:
        batches = _replay_batches(replay, provider or None)
        if as_of and len(batches) > 1:
            fail(f"--as-of needs a single capture set; {replay} holds {len(batches)} dated folders")
        if one_transaction and len(batches) < 2:
            fail(f"--one-transaction needs a --replay of several dated folders; {replay} holds one run")
        return batches
    if archive_dir.exists() and not archive_dir.is_dir():
        fail(f"--archive-dir {archive_dir} is a file, not a folder")
    return [(None, [])]


def _run_batches(server, batches, db, as_of, archive_dir, provider, verbose, log_file, together=None) -> None:
    """Each run in turn (a nightly flow each), or with ``together`` (the --replay folder of a
    --one-transaction run) the backfill flow over it, storing them all at once."""
    from pricewatch.cli import run_view
    from pricewatch.collect import crawl_ahead
    from pricewatch.collect.replays import uses_browser
    from pricewatch.server import run_guard, run_server
    db_file = check_db_writable(db)
    out = Console()
    try:
        with ExitStack() as stack:
            early = [server] if server is not None else []   # until run_services takes it
            stack.callback(lambda: early and run_server.stop_run_server(early.pop()))
            echo = lambda m: say(m, style="yellow", prefix="")  # noqa: E731
            # Signals handled from here: SIGTERM / Ctrl-C stop the crawls started below too.
            guard = stack.enter_context(run_guard.RunGuard(echo=echo, on_deadline=lambda: early and
                                                         run_server.stop_run_server(early.pop())))
            # Every dated folder's spiders crawl from now on (the HTTP ones in one process, each
            # browser one in its own), while Prefect is imported and its server starts; each run
            # then takes its own providers' results (pricewatch/collect/crawl_ahead.py).
            stack.enter_context(crawl_ahead.prefetch([(b, present) for b, present in batches if b is not None],
                                                     browser=uses_browser))
            _quiet_prefect()
            from flows.nightly import parse_as_of
            try:
                parse_as_of(as_of)
            except ValueError as exc:
                fail(str(exc))
            if not verbose:
                log = run_view.prefect_logs_to_file(log_file or run_view.default_log_path(db_file))
                say(f"Prefect log: {log}", style="dim", prefix="")
            # Without PREFECT_API_URL the run starts a Prefect server of its own that dies with it
            # (a killed run leaves nothing listening); SIGTERM/SIGINT stop the crawls and the server.
            stack.enter_context(run_guard.run_services(echo=echo, server=early.pop() if early else None, guard=guard))
            stack.enter_context(run_view.show_progress(out))
            stack.enter_context(_no_flow_heartbeats())
            if together is not None:
                ok = _run_together(together, [b for b, _ in batches], db_file, provider, out)
            else:
                ok = _run_each(batches, db_file, as_of, archive_dir, provider, guard, out)
    except run_guard.RunStopped as stop:
        fail(f"run stopped by {stop.name}: its crawls and Prefect server (if it started one) are stopped; "
             "a load cut short is rolled back, runs already loaded stay", 128 + stop.signum)
    raise typer.Exit(0 if ok else 1)


def _run_each(batches, db_file: Path, as_of, archive_dir: Path, provider, guard, out: Console) -> bool:
    """A nightly flow per run, oldest first; each run's block printed as it ends."""
    from flows.nightly import nightly
    from flows.run_report import summary_of
    ok = True
    for i, (batch, _) in enumerate(batches):
        if batch is not None and len(batches) > 1:
            out.print(esc(f"{batch}:"), soft_wrap=True, highlight=False)
        # return_state: a run where every provider failed ends Failed but still has a summary.
        # The editor's report is written once, after the last dated run of a replay.
        state = nightly(db_path=db_file, replay=str(batch) if batch else None, as_of=as_of,
                        archive_dir=str(archive_dir), providers=provider,
                        write_report=i == len(batches) - 1, return_state=True)
        if guard.signum is not None:
            break
        summary = summary_of(state)
        _print_summary(summary, out)
        # A night that could only be spooled (warehouse locked) is not a success yet.
        ok = ok and not summary.get("spooled") and any(p["status"] == "ok" for p in summary["providers"].values())
    return ok


def _run_together(replay: Path, batches: list[Path], db_file: Path, provider, out: Console) -> bool:
    """The backfill flow in one transaction; each run's block as a nightly's. Folders the checks
    above skipped (noted there) are left out here too."""
    from flows.backfill import backfill
    state = backfill(archives=str(replay), db_path=str(db_file), providers=provider, one_transaction=True,
                     return_state=True)
    results = state.result(raise_on_failure=False)
    if not isinstance(results, list):   # nothing stored: the state says why
        fail(state.message or f"backfill ended {state.name}", 1)
    ok = True
    for r in (r for r in results if Path(replay) / r["snapshot"] in batches):
        out.print(esc(f"{Path(replay) / r['snapshot']}:"), soft_wrap=True, highlight=False)
        summary = r["summary"]
        if "providers" not in summary:   # the folder could not be judged
            say(r["message"])
            ok = False
            continue
        _print_summary(summary, out)
        ok = ok and any(p["status"] == "ok" for p in summary["providers"].values())
    return ok


def _known_providers() -> list[str]:
    from pricewatch.collect.replays import all_providers
    return all_providers()


def _replay_batches(replay: Path, providers: list[str] | None) -> list[tuple[Path, list[str]]]:
    """What the flow would read first, read before any crawl: each run of the archive and the
    providers it holds. A missing, corrupt, truncated or empty archive is refused here in one
    line; a dated folder holding none of the providers asked for is skipped with a note."""
    from pricewatch.collect.replays import providers_in_archive, replay_batches
    from pricewatch.collect.sources import default_providers
    if not replay.exists():
        fail(f"replay archive not found: {replay}")
    batches = replay_batches(replay)
    runnable, skipped = [], []
    for batch in batches:
        with _archive_warnings() as warnings:
            try:
                present = providers_in_archive(batch)
            except Exception as exc:  # noqa: BLE001 - archive errors of any kind
                if debug_enabled():
                    raise
                msg = error_text(exc)
                fail(msg if str(batch) in msg else f"replay {batch}: {msg}")
        # A bad file in a folder is skipped by the archive (warned once per process): say so
        # here, once, since the flow will not warn again.
        for w in warnings:
            say(w, style="yellow", prefix="warning: ")
        # Without --provider a run reads the sources on by default (pricewatch/collect/sources.py);
        # a folder holding only sources off by default is skipped, as the flow would skip them.
        wanted = [p for p in (providers or default_providers(present)) if p in present]
        if wanted:
            runnable.append((batch, wanted))
        else:
            skipped.append((batch, present))
    if not runnable:
        batch, present = skipped[0]
        holds = f" (it holds: {', '.join(present)})" if present else ""
        what = (f"responses of {', '.join(providers)}" if providers else
                "responses of a source on by default (name one with --provider)" if present else
                "responses of any known provider")
        fail(f"replay {batch if len(batches) == 1 else replay} has no {what}{holds}")
    for batch, present in skipped:
        say(f"skipped {batch}: no responses of "
            f"{', '.join(providers or []) or ('a source on by default' if present else 'any known provider')}"
            + (f" (it holds: {', '.join(present)})" if present else ""),
            style="yellow", prefix="note: ")
    return runnable


@contextmanager
def _archive_warnings():
    """Collects what the archive reader logs while the CLI checks a replay, so a bad file is
    reported in one line (the error, or one warning) instead of a log line and an error."""
    records: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    log = logging.getLogger("pricewatch.evidence.archive")
    handler, propagate = _Collect(level=logging.WARNING), log.propagate
    log.addHandler(handler)
    log.propagate = False
    try:
        yield records
    finally:
        log.removeHandler(handler)
        log.propagate = propagate


def _print_summary(summary: dict, out: Console | None = None) -> None:
    """The end of one run: its line (providers ok, offers, loaded or not), a table of the
    providers that are not ok or have warnings (the others were shown as they finished), the
    published claims and the alerts raised and delivered."""
    from pricewatch.cli import run_view
    out = out or Console()
    run_view.run_block(summary, out)
    notable = {n: p for n, p in summary["providers"].items()
               if p["status"] not in ("ok", "not attempted") or p.get("warnings")}
    if notable:
        table = Table(title=esc(f"run {summary['run_id']}: providers not ok or with warnings"))
        for col in ("provider", "status", "offers", "seconds", "error / warnings"):
            table.add_column(col)
        for name, p in notable.items():
            note = p["error"] or "\n".join(p["warnings"])
            table.add_row(esc(name), esc(p["status"]), str(p["offers"]), f"{p['duration_s'] or 0:.1f}",
                          cell(note, max_len=600))
        out.print(table)
    out.print("  warehouse: " + esc(summary["db"]), soft_wrap=True, highlight=False)

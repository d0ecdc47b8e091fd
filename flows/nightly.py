"""The nightly collection flow: crawl every provider (one task each: the HTTP spiders share
one Scrapy process, a browser spider has a process of its own), judge each crawl, then load the
run into DuckDB in one transaction.

Run it with `pricewatch run`, or deploy it with prefect.yaml (cron 02:00 UTC). Besides the run
logger, each provider's outcome is one record on the `pricewatch.progress` logger as it is
judged, and the run's end one more (`pricewatch run` prints them; nothing else listens).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from prefect import flow, get_run_logger
from prefect.futures import as_completed
from prefect.states import Failed, State
from prefect.task_runners import ThreadPoolTaskRunner

from flows.bundle_tasks import judge_bundle, local_bundle
from flows.run_report import RunFailed
from flows.run_report import report as finish_run
from flows.tasks import (
    CRAWL_GROUPS,
    crawl_provider,
    deliver_alerts,
    derive_alerts,
    evaluate_claims,
    load_run,
    open_warehouse,
    run_logger,
)
from pricewatch.collect import bundles, judge, replays
from pricewatch.collect.crawl_ahead import RunCrawls
from pricewatch.collect.replays import scan_archive, uses_browser
from pricewatch.collect.sources import (
    default_providers,  # disabled-by-default sources run only by name
)
from warehouse import db

#: Progress records (one per provider, one at the end); pricewatch/cli/run_view.py prints them.
progress = logging.getLogger("pricewatch.progress")


@flow(name="collect-prices", log_prints=True, task_runner=ThreadPoolTaskRunner(max_workers=8))
def nightly(db_path: str | None = None, replay: str | None = None, as_of: str | None = None,
            archive_dir: str = "data/archive", providers: list[str] | None = None, write_report: bool = True):
    """Scrape (or replay) every provider, validate, load. Ends Completed when at least one
    provider succeeded (the state message names the others), Failed when none did; the run
    summary is the result (see flows/run_report.py).

    replay: a WARC file or folder; only providers present in it run.
    as_of:  ISO-8601 observation time for a replayed run (default: the capture times).
    write_report: write the editor's report (<db folder>/report/) after the run; a replay of many
                  dated folders writes it after the last one only.
    """
    db_path = db_path or db.default_db_path()

    def opened() -> dict:   # while the crawls run: migrate, store spooled runs, read the history
        warehouse = open_warehouse(db_path)
        _after_load(db_path, warehouse["unspooled"])
        return warehouse

    night = judge_night(replay, as_of, archive_dir, providers, opened)
    run, warehouse = night.run, night.warehouse
    stored = load_run(db_path, run, *night.frames)
    if not replay:   # after the load: packaging the evidence never delays storing the night
        _package_run(warehouse.get("warc_files") or [], Path(archive_dir), run["run_id"])
    if stored.spool:
        # Nothing of this run is in the warehouse yet: claims and alerts wait for the next run.
        summary = {
            "run_id": run["run_id"], "status": run["status"], "loaded": False, "spooled": stored.spool,
            "observed_at": run["observed_at"].isoformat(), "db": str(db_path),
            "providers": provider_summaries(night.outcomes),
            "claims": None, "alerts": None, "error": stored.error,
        }
        return Failed(message=stored.error, data=RunFailed(stored.error, summary))
    _after_load(db_path, stored.unspooled)
    return finish_night(db_path, night, stored.loaded, write_report,
                        list(warehouse.get("unspooled") or []) + list(stored.unspooled or []))


@dataclass
class JudgedNight:
    """One night crawled (or replayed) and judged, not stored yet: its run row and frames
    (judge.build_run), its providers' outcomes and what opening the warehouse gave."""
    run: dict
    frames: tuple   # provider_runs, offers, facts
    outcomes: list
    warehouse: dict


def judge_night(replay: str | None, as_of: str | None, archive_dir: str, providers: list[str] | None,
                open_history: Callable[[], dict]) -> JudgedNight:
    """A night's crawls and their judging, inside a flow: the nightly's and a one-transaction
    backfill's (flows/backfill.py). ``open_history()`` is called once the crawls have started and
    returns at least {"history": the item counts the run monitors compare with, or None}."""
    logger = get_run_logger()
    started = datetime.now(timezone.utc)
    as_of_dt = parse_as_of(as_of)
    mode = "replay" if replay else "live"
    unreadable: dict[str, str] = {}   # provider -> one line: its only WARC files are bad
    if replay:
        scan = scan_archive(Path(replay))
        present = scan.providers
        selected = [p for p in (providers or default_providers(present)) if p in present]
        unreadable = {p: line for p, line in scan.failed.items() if not providers or p in providers}
        skipped = sorted(set(replays.all_providers()) - set(selected) - set(unreadable))
        logger.info("replaying %s: providers %s (not in archive, not attempted: %s)", replay, selected, skipped)
        if not selected and not unreadable:
            raise ValueError(scan.no_provider_message() if not providers else
                             f"none of {', '.join(providers)} has responses in {replay}"
                             + (f" (it holds: {', '.join(present)})" if present else ""))
    else:
        selected = providers or default_providers(replays.all_providers())

    crawl = crawl_provider.with_options(retries=0) if replay else crawl_provider
    # The crawl folder holds only the items and reports of this run: gone when the run ends.
    with tempfile.TemporaryDirectory(prefix="pricewatch-crawl-") as workdir:
        browser = [p for p in selected if uses_browser(p)]
        http = [p for p in selected if p not in browser]
        # Started before any task: the HTTP spiders crawl while Prefect schedules the tasks.
        CRAWL_GROUPS[workdir] = RunCrawls(http, Path(workdir) / "shared", Path(replay) if replay else None,
                                     None if replay else Path(archive_dir), others=browser)
        futures = {p: crawl.submit(p, workdir, replay, None if replay else archive_dir, shared=True)
                   for p in browser + http}
        try:
            warehouse = open_history()
            # Every crawl goes through the run-bundle format (pricewatch/collect/bundles.py), here in
            # a local folder, as a crawl on another machine reaches the load (flows/load.py).
            night = bundles.replay_night(Path(replay), scan.captured_at) if replay else bundles.night_key(started)
            seam = dict(workdir=workdir, night=night, mode=mode, replay=replay, as_of=as_of)
            outcomes = _judge_crawls(futures, warehouse, unreadable, scan if replay else None, selected, seam)
        finally:
            CRAWL_GROUPS.pop(workdir).stop()   # only left running when the flow ended early

    captured = scan.captured_at if replay else None   # the scan above read the archive once
    run, provider_runs, offers, facts = judge.build_run(outcomes, mode, started, as_of_dt,
                                                          Path(replay) if replay else None, _flow_run_id(),
                                                          captured_at=captured,
                                                          known_providers=replays.all_providers())
    return JudgedNight(run, (provider_runs, offers, facts), outcomes, warehouse)


def finish_night(db_path: str, night: JudgedNight, loaded: bool, write_report: bool,
                 unspooled: list[str]) -> State:
    """After a night is stored (now or before): its claims, its alerts derived and every pending
    one delivered, then its summary, artifacts, notice and report (flows/run_report.py)."""
    run = night.run
    claims = evaluate_claims(db_path, run["run_id"])
    alerts = {**derive_alerts(db_path, run["run_id"]), **deliver_alerts(db_path)}
    summary = {
        "run_id": run["run_id"], "status": run["status"], "loaded": loaded,
        "observed_at": run["observed_at"].isoformat(), "db": str(db_path),
        "providers": provider_summaries(night.outcomes),
        "claims": claims,
        "alerts": alerts,
        "write_report": write_report,
        "unspooled": unspooled,
    }
    get_run_logger().info("run %s: %s%s", run["run_id"], run["summary"],
                          "" if loaded else " (already in the warehouse: nothing changed)")
    return finish_run(summary)


def provider_summaries(outcomes: list) -> dict:
    """Each provider's part of a run summary."""
    return {o.provider: {"status": o.status, "offers": len(o.offers), "error": o.error,
                         "warnings": o.warnings, "monitors": o.monitors, "duration_s": o.duration_s}
            for o in outcomes}


def _judge_crawls(futures: dict, warehouse: dict, unreadable: dict[str, str], scan, order: list[str],
                  seam: dict) -> list:
    """Each provider's outcome, judged as its crawl ends (a progress record each) from its run
    bundle (``seam``: where and how it is written); returned in the order of ``order``
    (unreadable ones first)."""
    logger = get_run_logger()
    judged: dict[str, judge.ProviderOutcome] = {}

    def through_bundle(provider, result, error=None):
        captured = scan.captured_at.get(provider) if scan is not None else None
        warnings = scan.warnings.get(provider, []) if scan is not None else []
        bundle = local_bundle(seam["workdir"], seam["night"], provider, result, seam["mode"], seam["replay"],
                              seam["as_of"], error=error, warnings=warnings, captured_at=captured)
        return judge_bundle(bundle, warehouse["history"])

    for provider, line in unreadable.items():
        logger.error("%s", line)
        judged[provider] = through_bundle(provider, None, line)
        _progress(judged[provider])
    by_future = {fut: p for p, fut in futures.items()}
    for fut in as_completed(list(futures.values())):
        provider = by_future[fut]
        fut.wait()   # as_completed does not: the final state is only known once waited for
        state = fut.state
        if state.is_completed():
            result = fut.result()
            warehouse.setdefault("warc_files", []).extend((result.report or {}).get("warc_files") or [])
            outcome = through_bundle(provider, result)
        else:
            outcome = through_bundle(provider, None, _state_error(provider, state))
        level = logger.info if outcome.status == "ok" else logger.error
        level("%s: %s, %d offers%s", provider, outcome.status, len(outcome.offers),
              f" ({outcome.error})" if outcome.error else "")
        for w in outcome.warnings:
            logger.warning("%s: %s", provider, w)
        judged[provider] = outcome
        _progress(outcome)
    return [judged[p] for p in unreadable] + [judged[p] for p in order if p in futures]


def _package_run(warc_files: list[str], archive_dir: Path, run_id: str) -> None:
    """A live run's archive also as one WACZ (pages list, CDXJ index, sha256 of every file) beside
    its WARC files; a packaging problem is logged, never a failed run."""
    from pricewatch.evidence import wacz
    try:
        path = wacz.package_run([Path(f) for f in warc_files], archive_dir, run_id)
        if path:
            get_run_logger().info("run archive packaged: %s", path)
    except Exception as exc:   # the WARC files are the evidence; the WACZ is a convenience
        get_run_logger().error("run archive not packaged as WACZ: %s: %s", type(exc).__name__, exc)


def _progress(outcome: judge.ProviderOutcome) -> None:
    progress.info("%s: %s, %d offers", outcome.provider, outcome.status, len(outcome.offers),
                  extra={"provider": outcome.provider, "status": outcome.status, "offers": len(outcome.offers),
                         "duration_s": outcome.duration_s, "error": outcome.error,
                         "warnings": list(outcome.warnings)})


def _after_load(db_path: str, run_ids: list[str]) -> None:
    """Claims and alerts of runs an earlier night spooled, once they are stored (oldest first),
    so a change first seen on a spooled night is still evaluated and alerted."""
    logger = run_logger()
    for run_id in run_ids:
        for step in (evaluate_claims, derive_alerts):
            state = step(db_path, run_id, return_state=True)
            if not state.is_completed():
                logger.error("spooled run %s: %s did not finish: %s", run_id, step.name, state.message)


def parse_as_of(as_of: str | None) -> datetime | None:
    if not as_of:
        return None
    try:
        dt = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--as-of {as_of!r} is not an ISO 8601 time (e.g. 2026-10-29T02:00:00Z)") from None
    if dt.tzinfo is None:
        raise ValueError(f"--as-of needs a time zone (e.g. {as_of}Z)")
    if dt > datetime.now(timezone.utc) + timedelta(minutes=5):
        # A snapshot dated in the future would pin "latest" to it for every later run.
        raise ValueError(f"--as-of {as_of} is in the future")
    return dt.astimezone(timezone.utc)


def _state_error(provider: str, state) -> str:
    try:
        state.result()
    except Exception as exc:  # the task's own exception, after its retries
        msg = str(exc)
        return msg if msg.startswith(provider) else f"{provider}: {msg}"
    return f"{provider}: crawl task ended {state.name}"


def _flow_run_id() -> str | None:
    from prefect.runtime import flow_run
    return flow_run.id

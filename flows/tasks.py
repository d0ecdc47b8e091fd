"""The steps of the nightly flow (flows/nightly.py) as Prefect tasks: crawl one provider (the
HTTP spiders of a run share one Scrapy process), judge its crawl, open the warehouse (loading any
spooled runs first), load the run in one transaction, evaluate the claims, derive and deliver
alerts. Each task is a thin wrapper over the collect, claims and alerts floors."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.tasks import exponential_backoff

from pricewatch.collect import crawl_process, judge, store
from pricewatch.collect.crawl_ahead import RunCrawls
from warehouse import db, load, migrate, spool


class CrawlFailed(RuntimeError):
    """A crawl that a retry might fix (process crash, network errors with no offers)."""


CRAWL_RETRIES = 2

#: The shared HTTP crawl process of each running flow, by its crawl folder (a task parameter
#: is a string; the process handle stays here).
CRAWL_GROUPS: dict[str, RunCrawls] = {}


# The crawl, validate and load steps are never cached (a crawl is of its night): NO_CACHE also
# spares hashing their inputs (crawl results, DataFrames) on every call.
@task(name="crawl", task_run_name="crawl-{provider}", retries=CRAWL_RETRIES,
      retry_delay_seconds=exponential_backoff(backoff_factor=10), retry_jitter_factor=0.5, cache_policy=NO_CACHE)
def crawl_provider(provider: str, workdir: str, replay: str | None, archive_dir: str | None,
                   shared: bool = False) -> crawl_process.CrawlResult:
    """One provider's crawl. ``shared``: its first attempt is the run's crawl of it, started
    with the run (pricewatch/collect/crawl_ahead.py RunCrawls: its part of the shared HTTP process, or
    crawled ahead); this task waits for that provider's result only. A browser crawl not
    crawled ahead, and every retry, is a crawl process of its own."""
    from prefect.runtime import task_run
    attempt = task_run.run_count or 1
    group = CRAWL_GROUPS.get(workdir) if shared and attempt == 1 else None
    if group is not None and group.has(provider):
        result = group.result(provider)
    else:
        result = crawl_process.run_crawl(provider, Path(workdir) / f"attempt-{attempt}",
                                   Path(replay) if replay else None, Path(archive_dir) if archive_dir else None)
    result.attempts = attempt
    reason = result.transient_failure()
    # The last attempt returns its result: the crawl report (retries, the failing URLs) is
    # what the provider run records, never lost to a raised exception.
    if reason and not replay and attempt <= CRAWL_RETRIES:
        raise CrawlFailed(reason)
    return result


@task(name="validate", task_run_name="validate-{provider}", cache_policy=NO_CACHE)
def validate_crawl(provider: str, result: crawl_process.CrawlResult | None, error: str | None,
                   previous_counts: list[int]) -> judge.ProviderOutcome:
    if result is None:
        return judge.ProviderOutcome(provider=provider, status="failed", error=error)
    return judge.judge_crawl(result, previous_counts)


def run_logger():
    """The run logger inside a flow or task; the module logger when called outside Prefect (tests)."""
    try:
        return get_run_logger()
    except Exception:
        return logging.getLogger("pricewatch.nightly")


@task(name="open-warehouse")
def open_warehouse(db_path: str) -> dict:
    """At the start of a run: migrate, store the runs an earlier night had to spool (oldest
    first), and read each provider's item history for the run monitors. While another process
    holds the warehouse lock this waits up to PRICEWATCH_HISTORY_WAIT_S (the crawls go on); then
    the run goes on without history (the monitors compare nothing) and its load keeps trying.

    Returns {"history": {provider: counts} or None, "unspooled": [run_id, ...], "error": str|None}."""
    logger = run_logger()
    try:
        with db.session(db_path, wait_s=db.history_wait_s()) as con:
            migrate.migrate(con)
            unspooled = _report_spooled(store.load_spooled(con, db_path))
            return {"history": load.recent_item_counts(con), "unspooled": unspooled, "error": None}
    except db.WarehouseLocked as exc:
        msg = f"{exc}: item history not read, run monitors have no earlier counts to compare"
        logger.warning(msg)
        return {"history": None, "unspooled": [], "error": msg}


def _report_spooled(results: list[dict]) -> list[str]:
    """Logs what loading the spooled runs did; the run ids now in the warehouse, oldest first."""
    logger = run_logger()
    stored = []
    for r in results:
        if r["error"]:
            logger.error(r["error"])
        else:
            logger.info("spooled run %s %s (spool removed)", r["run_id"],
                        "loaded" if r["loaded"] else "was already in the warehouse")
            if r["loaded"]:
                stored.append(r["run_id"])
    return stored


@dataclass
class LoadResult:
    """What the load step did. True when this run was stored now (False: already stored, or
    spooled: then spool names the folder and error says why)."""
    loaded: bool
    unspooled: list[str] = field(default_factory=list)  # earlier spooled runs stored now, oldest first
    spool: str | None = None
    error: str | None = None

    def __bool__(self) -> bool:
        return self.loaded


@task(name="load", cache_policy=NO_CACHE)
def load_run(db_path: str, run: dict, provider_runs, offers, facts) -> LoadResult:
    """Stores the runs earlier nights spooled, then this one, each in its own transaction.

    DuckDB allows one writer per file: while another process (an analyst's read-write session)
    holds it, this waits up to PRICEWATCH_LOAD_WAIT_S (default 10 minutes). A run that still
    cannot be stored, or whose load fails, is never discarded: it is spooled next to the
    database (warehouse/db.py spool_run) and the next run loads it first.

    """
    logger = run_logger()
    try:
        with db.session(db_path, wait_s=db.load_wait_s()) as con:
            unspooled = _report_spooled(store.load_spooled(con, db_path))
            loaded = store.load_run(con, run, provider_runs, offers, facts)
        return LoadResult(loaded, unspooled)
    except Exception as exc:
        locked = isinstance(exc, db.WarehouseLocked)
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        path = spool.spool_run(db_path, run, provider_runs, offers, facts, reason=why)
        if locked:
            waited = f", waited {exc.waited_s:.0f} s" if exc.waited_s >= 1 else ""
            msg = (f"warehouse locked by {exc.holder}: {exc.path}{waited}; run {run['run_id']} kept in "
                   f"{path}, loaded by the next run")
        else:
            msg = (f"warehouse load failed ({type(exc).__name__}: {why}); run {run['run_id']} kept in "
                   f"{path}, loaded by the next run")
        logger.error(msg)
        return LoadResult(False, spool=str(path), error=msg)


@task(name="load-runs", cache_policy=NO_CACHE)
def load_runs(db_path: str, runs: list[tuple]) -> list[str]:
    """A backfill's runs (each (run, provider_runs, offers, facts), in snapshot order) stored in
    ONE transaction, all or nothing (warehouse/load.py load_runs); those already stored are
    skipped. Returns the run ids stored now. A failure raises: unlike one night's load, nothing
    is spooled, the backfill is simply run again."""
    with db.session(db_path, wait_s=db.load_wait_s()) as con:
        return store.load_runs(con, runs)


@task(name="stored-runs")
def stored_runs(db_path: str) -> set[str]:
    """The run ids the warehouse holds (a backfill's nights already stored add nothing to the
    item history it keeps in memory); none when another process holds the lock."""
    try:
        with db.session(db_path, wait_s=db.history_wait_s()) as con:
            return {r for (r,) in con.execute("SELECT run_id FROM runs").fetchall()}
    except db.WarehouseLocked:
        return set()


# The steps after the load wait for the warehouse lock like the load does (bounded), instead
# of Prefect retries.
@task(name="evaluate-claims")
def evaluate_claims(db_path: str, run_id: str) -> dict:
    """Every published claim (rules/) as of this run's snapshot; a run already evaluated is a no-op."""
    from pricewatch.claims.evaluate import evaluate_claims as evaluate
    with db.session(db_path, wait_s=db.load_wait_s()) as con:
        return evaluate(con, run_id)


@task(name="derive-alerts")
def derive_alerts(db_path: str, run_id: str) -> dict:
    """Alerts this run raises (pricewatch/alerts/__init__.py); deriving a run again adds nothing."""
    from pricewatch.alerts.derive import derive_alerts as derive
    from pricewatch.record.config import load_config
    with db.session(db_path, wait_s=db.load_wait_s()) as con:
        return derive(con, run_id, load_config())


@task(name="deliver-alerts")
def deliver_alerts(db_path: str) -> dict:
    """Sends every pending alert, this run's and any an earlier delivery could not send. A
    failed delivery does not fail the run: the alert stays pending for the next one."""
    from pricewatch.alerts.deliver import deliver_alerts as deliver
    from pricewatch.record.config import load_config
    with db.session(db_path, wait_s=db.load_wait_s()) as con:
        result = deliver(con, load_config())
    if result["error"]:
        get_run_logger().warning("alerts: %d pending after delivery: %s", result["pending"], result["error"])
    return result


# The HTTP crawls share one Scrapy process; browser crawls and retries are processes of their
# own, at most pricewatch.collect.crawl_process.SEPARATE_CRAWLS at once (~650 MB each with Chromium), so the
# threads here mostly wait. Per-domain politeness is each crawler's own.

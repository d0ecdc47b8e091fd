"""The load deployment's flow (prefect.yaml `load`, on the one pool that owns the warehouse):
every complete run bundle in the store not loaded yet (pricewatch/collect/bundles.py), night by
night in snapshot order, each night one run: judged here against this warehouse's history,
stored in one transaction, then its claims evaluated, its alerts derived and delivered and the
report written, as the single-machine nightly does (flows/nightly.py).

Exactly once: a bundle is loaded once (pricewatch/collect/bundle_ledger.py, beside the
warehouse; a run's id is made of its bundles, so a load cut short and done again is a no-op).
One loader: a second one waits, then refuses with one line. A bundle whose parts do not match
its manifest is refused with one line, recorded, kept in the store, never loaded. A loader that
was down for nights loads them all, oldest first."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.states import Completed, Failed

from flows.bundle_tasks import judge_bundle, outcome_order, resolve_options, run_of_night
from flows.nightly import _after_load, _flow_run_id, _package_run
from flows.run_report import RunFailed
from flows.run_report import report as finish_run
from flows.tasks import deliver_alerts, derive_alerts, evaluate_claims, load_run, open_warehouse
from pricewatch.collect import bundle_ledger, bundles
from warehouse import db


@flow(name="load-bundles", log_prints=True)
def load(storage: str | None = None, db_path: str | None = None, archive_dir: str = "data/archive",
         storage_block: str | None = None, write_report: bool = True):
    """Load every new bundle of ``storage`` (default $PRICEWATCH_BUNDLES, else data/bundles)
    into ``db_path``; live bundles' WARC files are placed under ``archive_dir``."""
    logger = get_run_logger()
    db_path = db_path or db.default_db_path()
    url = bundles.storage_url(storage)
    options = resolve_options(storage_block)
    try:
        with bundle_ledger.loader_lock(db_path, wait_s=db.load_wait_s()):
            return _load_nights(url, options, db_path, Path(archive_dir), write_report)
    except bundle_ledger.LoaderBusy as exc:
        logger.error("%s", exc)
        return Failed(message=str(exc))


def _load_nights(url: str, options: dict, db_path: str, archive_dir: Path, write_report: bool):
    logger = get_run_logger()
    warehouse = open_warehouse(db_path)
    _after_load(db_path, warehouse["unspooled"])
    settle_ledger(db_path)
    done = bundle_ledger.done(db_path)
    nights: dict[str, list[bundles.Bundle]] = {}
    for ref in bundles.complete(url, options):
        if ref.bundle_id in done:
            continue
        try:
            b = bundles.read_bundle(ref, url, options)
        except bundles.BundleRefused as exc:
            logger.error("refused: %s (kept in the store for inspection, never loaded)", exc)
            bundle_ledger.record_refused(db_path, ref.bundle_id, ref.night, str(exc))
            continue
        nights.setdefault(ref.night, []).append(b)
    if not nights:
        logger.info("no new bundles in %s", url)
        return Completed(message=f"no new bundles in {url}", data={"nights": []})
    order = sorted(nights, key=lambda n: (_snapshot(nights[n]), n))
    logger.info("loading %d night(s) from %s, oldest first: %s", len(order), url, ", ".join(order))
    state = None
    for i, night in enumerate(order):
        if i:
            warehouse = open_warehouse(db_path)   # this night's monitors see the nights before it
        state, spooled = _load_night(night, nights[night], warehouse["history"], url, options, db_path,
                                     archive_dir, write_report and i == len(order) - 1)
        if spooled:
            logger.error("night %s spooled; later nights wait for it (loaded by the next load, in order)", night)
            break
    return state


def _snapshot(night_bundles: list[bundles.Bundle]) -> datetime:
    times = [b.captured_at for b in night_bundles if b.captured_at]
    for b in night_bundles:
        if b.result is not None:
            times += [datetime.fromisoformat(i["capture"]["captured_at"]) for i in b.result.items[:1]]
    return min(times) if times else datetime.max.replace(tzinfo=timezone.utc)


def _load_night(night: str, found: list[bundles.Bundle], history, url: str, options: dict, db_path: str,
                archive_dir: Path, write_report: bool):
    logger = get_run_logger()
    started = datetime.now(timezone.utc)
    newest: dict[str, bundles.Bundle] = {}
    for b in sorted(found, key=lambda b: (b.manifest.get("written_at") or "", b.bundle_id)):
        if b.provider in newest:
            logger.warning("%s: bundle %s of night %s superseded by a newer one (%s)", b.provider,
                           newest[b.provider].bundle_id, night, b.bundle_id)
        newest[b.provider] = b
    chosen = sorted(newest.values(), key=outcome_order)
    warc_files = []
    outcomes = []
    for b in chosen:
        outcome = judge_bundle(b, history)
        level = logger.info if outcome.status == "ok" else logger.error
        level("%s: %s, %d offers (bundle %s)%s", b.provider, outcome.status, len(outcome.offers), b.bundle_id,
              f" ({outcome.error})" if outcome.error else "")
        outcomes.append(outcome)
        if b.mode == "live":
            warc_files += [str(p) for p in bundles.place_evidence(b, archive_dir, url, options)]
    run, provider_runs, offers, facts = run_of_night(night, chosen, outcomes, started, _flow_run_id())
    bundle_ledger.record_intent(db_path, run["run_id"], night, [b.bundle_id for b in found])
    stored = load_run(db_path, run, provider_runs, offers, facts)
    providers = {o.provider: {"status": o.status, "offers": len(o.offers), "error": o.error,
                              "warnings": o.warnings, "monitors": o.monitors, "duration_s": o.duration_s}
                 for o in outcomes}
    base = {"run_id": run["run_id"], "status": run["status"], "observed_at": run["observed_at"].isoformat(),
            "db": str(db_path), "providers": providers, "night": night,
            "bundles": {b.provider: b.bundle_id for b in chosen}}
    if stored.spool:
        summary = {**base, "loaded": False, "spooled": stored.spool, "claims": None, "alerts": None,
                   "error": stored.error}
        return Failed(message=stored.error, data=RunFailed(stored.error, summary)), True
    bundle_ledger.record_loaded(db_path, run["run_id"])
    if warc_files:
        _package_run(warc_files, archive_dir, run["run_id"])
    _after_load(db_path, stored.unspooled)
    claims = evaluate_claims(db_path, run["run_id"])
    alerts = {**derive_alerts(db_path, run["run_id"]), **deliver_alerts(db_path)}
    logger.info("night %s: run %s: %s%s", night, run["run_id"], run["summary"],
                "" if stored.loaded else " (already in the warehouse: nothing changed)")
    return finish_run({**base, "loaded": stored.loaded, "claims": claims, "alerts": alerts,
                       "write_report": write_report}), False


@task(name="settle-bundle-ledger")
def settle_ledger(db_path: str) -> None:
    """The intents a load cut short left: loaded when their run is in the warehouse, else dropped."""
    intents = bundle_ledger.pending_intents(db_path)
    if not intents:
        return
    with db.session(db_path, wait_s=db.load_wait_s()) as con:
        stored = {r[0] for r in con.execute("SELECT run_id FROM runs WHERE run_id IN (SELECT unnest(?))",
                                            [intents]).fetchall()}
    bundle_ledger.settle(db_path, stored)

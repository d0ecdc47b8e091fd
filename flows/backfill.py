"""Rebuild price history from archived WARC files, oldest date first.

Each dated folder (``data/archive/2026-10-29/``, ``captures/2026-10-29/``, ...) is replayed as
one nightly run, as a subflow, so every snapshot shows up in the Prefect UI with its own
provider table and state. Replays have deterministic run ids, so a backfill over dates that
are already loaded changes nothing and can simply be rerun after a failure.

With ``one_transaction`` every folder is crawled and judged first (the nightly's own steps,
flows/nightly.py judge_night), then all the runs are stored in ONE transaction (all or nothing),
then each run's claims and alerts follow in snapshot order, as each nightly's would. The one
thing that differs from the per-folder path: the quality gate holds a never-seen offer below a
price the claims cite (warehouse/sql/cited_prices.sql) by the claims evaluated before its run,
and in one transaction none of the batch's runs is evaluated yet (docs/benchmarks.md, "Nightly
load and backfill", has the one offer of captures/ this trusts at once).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from prefect import flow, get_run_logger
from prefect.states import Completed, Failed
from prefect.task_runners import ThreadPoolTaskRunner

from flows.nightly import _after_load, finish_night, judge_night, nightly
from flows.run_report import summary_of
from flows.tasks import load_runs, open_warehouse, stored_runs
from pricewatch.collect import replays
from pricewatch.collect.crawl_ahead import prefetch
from pricewatch.collect.replays import scan_archive, uses_browser
from pricewatch.collect.sources import default_providers
from warehouse import db
from warehouse.load import HISTORY_RUNS


@flow(name="backfill-prices", log_prints=True, task_runner=ThreadPoolTaskRunner(max_workers=8))
def backfill(archives: str = "data/archive", db_path: str | None = None,
             providers: list[str] | None = None, one_transaction: bool = False, write_report: bool = True):
    """Replay every dated folder under `archives` in date order into the warehouse at `db_path`.

    one_transaction: store every folder's run in one transaction (a failure stores none and
                     ends the flow Failed saying why; run it again) instead of one each.
    write_report: write the editor's report (<db folder>/report/); with one_transaction once,
                  after the last run.
    """
    logger = get_run_logger()
    root = Path(archives)
    if not root.exists():
        return Failed(message=f"archive folder not found: {root.resolve()}")
    batches = replays.replay_batches(root)
    logger.info("backfilling %d snapshot(s) from %s: %s", len(batches), root,
                ", ".join(b.name for b in batches))
    # Every date's spiders crawl at once (the HTTP ones in one process); each night takes its own:
    # those its replay selects (a source off by default only by name).
    ahead = [(b, [p for p in (providers or default_providers(present)) if p in present])
             for b, present in ((b, scan_archive(b).providers) for b in batches)]
    with prefetch(ahead, browser=uses_browser):
        if one_transaction:
            results = _one_transaction(batches, db_path or db.default_db_path(), providers, write_report)
            if isinstance(results, str):
                return Failed(message=results)
        else:
            results = [_replay_one(batch, db_path, providers, write_report) for batch in batches]
    bad = [r for r in results if r["state"] != "Completed" or r["status"] != "ok"]
    message = f"{len(results) - len(bad)}/{len(results)} snapshots fully ok" + (
        "; " + "; ".join(f"{r['snapshot']}: {r['message'] or r['status']}" for r in bad) if bad else "")
    if all(r["state"] != "Completed" for r in results):
        return Failed(message=message, data=results)
    return Completed(message=message, data=results)


def _replay_one(batch: Path, db_path: str | None, providers: list[str] | None, write_report: bool) -> dict:
    state = nightly(db_path=db_path, replay=str(batch), providers=providers, write_report=write_report,
                    return_state=True)
    try:
        summary = summary_of(state)
    except Exception as exc:  # the subflow ended before it had a summary: go on with the next date
        summary = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
    return _result(batch, state.name, state.message, summary)


def _result(batch: Path, state: str, message: str | None, summary: dict) -> dict:
    return {"snapshot": batch.name, "state": state, "message": message or "",
            **{k: summary.get(k) for k in ("run_id", "status", "loaded", "error")}, "summary": summary}


def _one_transaction(batches: list[Path], db_path: str, providers: list[str] | None,
                     write_report: bool) -> list[dict] | str:
    """Judge every folder, oldest first, then store all their runs at once; each folder's result,
    or the one line saying why none was stored."""
    logger = get_run_logger()
    warehouse = open_warehouse(db_path)
    _after_load(db_path, warehouse["unspooled"])
    known = stored_runs(db_path)
    history = warehouse["history"]
    nights, results = [], {}
    for batch in batches:
        try:
            night = judge_night(str(batch), None, "data/archive", providers, lambda h=history: {"history": h})
        except Exception as exc:   # a folder without the providers asked for: the others go on
            results[batch] = _result(batch, "Failed", f"{type(exc).__name__}: {exc}",
                                     {"status": "failed", "error": f"{type(exc).__name__}: {exc}"})
            continue
        nights.append((batch, night))
        if history is not None and night.run["run_id"] not in known:
            history = with_counts(history, night.frames[0])
    nights.sort(key=lambda bn: bn[1].run["observed_at"])
    state = load_runs(db_path, [(n.run, *n.frames) for _, n in nights], return_state=True)
    if not state.is_completed():
        try:
            state.result()
        except Exception as exc:
            why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return (f"backfill load failed ({type(exc).__name__}: {why}): none of its {len(nights)} runs "
                    "stored; run it again")
        return f"backfill load ended {state.name}: none of its {len(nights)} runs stored; run it again"
    stored = set(state.result())
    logger.info("stored %d of %d runs in one transaction (%d already in the warehouse)",
                len(stored), len(nights), len(nights) - len(stored))
    for i, (batch, night) in enumerate(nights):
        run_state = finish_night(db_path, night, night.run["run_id"] in stored,
                                 write_report and i == len(nights) - 1, [] if i else list(warehouse["unspooled"]))
        results[batch] = _result(batch, run_state.name, run_state.message, summary_of(run_state))
    return [results[b] for b in batches if b in results]


def with_counts(history: dict[str, list[int]], provider_runs: pd.DataFrame) -> dict[str, list[int]]:
    """The item history (warehouse/load.py recent_item_counts: each provider's trusted runs'
    item counts, newest first) as the warehouse would give it once this later run is stored."""
    out = dict(history)
    trusted = provider_runs[provider_runs["trusted"].fillna(False).astype(bool)] if len(provider_runs) else provider_runs
    for provider, count in zip(trusted.get("provider", []), trusted.get("item_count", [])):
        out[provider] = ([int(count)] + list(out.get(provider, [])))[:HISTORY_RUNS]
    return out

"""Rebuild price history from archived WARC files, oldest date first.

Each dated folder (``data/archive/2026-10-29/``, ``captures/2026-10-29/``, ...) is replayed as
one nightly run, as a subflow, so every snapshot shows up in the Prefect UI with its own
provider table and state. Replays have deterministic run ids, so a backfill over dates that
are already loaded changes nothing and can simply be rerun after a failure.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger
from prefect.states import Completed, Failed

from flows.nightly import nightly
from flows.run_report import summary_of
from pricewatch.collect import replays
from pricewatch.collect.crawl_ahead import prefetch
from pricewatch.collect.replays import scan_archive, uses_browser


@flow(name="backfill-prices", log_prints=True)
def backfill(archives: str = "data/archive", db_path: str | None = None,
             providers: list[str] | None = None):
    """Replay every dated folder under `archives` in date order into the warehouse at `db_path`."""
    logger = get_run_logger()
    root = Path(archives)
    if not root.exists():
        return Failed(message=f"archive folder not found: {root.resolve()}")
    batches = replays.replay_batches(root)
    logger.info("backfilling %d snapshot(s) from %s: %s", len(batches), root,
                ", ".join(b.name for b in batches))
    results = []
    # Every date's spiders crawl at once (the HTTP ones in one process); each subflow takes its own.
    ahead = [(b, [p for p in scan_archive(b).providers if not providers or p in providers]) for b in batches]
    with prefetch(ahead, browser=uses_browser):
        for batch in batches:
            results.append(_replay_one(batch, db_path, providers))
    bad = [r for r in results if r["state"] != "Completed" or r["status"] != "ok"]
    message = f"{len(results) - len(bad)}/{len(results)} snapshots fully ok" + (
        "; " + "; ".join(f"{r['snapshot']}: {r['message'] or r['status']}" for r in bad) if bad else "")
    if all(r["state"] != "Completed" for r in results):
        return Failed(message=message, data=results)
    return Completed(message=message, data=results)


def _replay_one(batch: Path, db_path: str | None, providers: list[str] | None) -> dict:
    state = nightly(db_path=db_path, replay=str(batch), providers=providers, return_state=True)
    try:
        summary = summary_of(state)
    except Exception as exc:  # the subflow ended before it had a summary: go on with the next date
        summary = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
    return {"snapshot": batch.name, "state": state.name, "message": state.message or "",
            **{k: summary.get(k) for k in ("run_id", "status", "loaded", "error")}}

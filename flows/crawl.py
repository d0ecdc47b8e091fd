"""The crawl deployments' flow (prefect.yaml crawl-http, crawl-browser): crawl a list of
providers, live or from a replay archive, and write each provider's crawl as a run bundle to
the storage URL (pricewatch/collect/bundles.py). Nothing else leaves the crawl machine: no
warehouse is opened here; the load deployment (flows/load.py) judges and stores the night.

A night is named by the flow run's scheduled start (2026-12-01T0200Z), so the crawl deployments
of one cron agree on it on any machine; a replay's night is its dated folder. A provider that
already has a complete bundle of this night in the store is not crawled again (a flow run that
crashed and is run again by Prefect redoes only the providers it had not written)."""

from __future__ import annotations

import tempfile
from datetime import datetime, timezone
from pathlib import Path

from prefect import flow, get_run_logger
from prefect.artifacts import create_table_artifact
from prefect.futures import as_completed
from prefect.states import Completed, Failed
from prefect.task_runners import ThreadPoolTaskRunner

from flows.bundle_tasks import resolve_options, write_bundle
from flows.tasks import CRAWL_GROUPS, crawl_provider
from pricewatch.collect import bundles, replays
from pricewatch.collect.crawl_ahead import RunCrawls
from pricewatch.collect.replays import scan_archive, uses_browser
from pricewatch.collect.sources import default_providers


@flow(name="crawl-bundles", log_prints=True, task_runner=ThreadPoolTaskRunner(max_workers=8))
def crawl(providers: list[str] | None = None, storage: str | None = None, replay: str | None = None,
          as_of: str | None = None, archive_dir: str = "data/archive", night: str | None = None,
          storage_block: str | None = None):
    """Crawl ``providers`` (default: every enabled one; a replay: those in it) and write one
    bundle each to ``storage`` (default $PRICEWATCH_BUNDLES, else data/bundles). Completed when
    every provider's bundle is written (a failed crawl is a bundle too: the load records the
    failure); Failed when a bundle could not be written after its retries."""
    from flows.nightly import _state_error, parse_as_of
    logger = get_run_logger()
    parse_as_of(as_of)   # refused here, before any crawl, as the nightly does
    url = bundles.storage_url(storage)
    options = resolve_options(storage_block)
    mode = "replay" if replay else "live"
    scan = scan_archive(Path(replay)) if replay else None
    if scan is not None:
        selected = [p for p in (providers or default_providers(scan.providers)) if p in scan.providers]
        unreadable = {p: line for p, line in scan.failed.items() if not providers or p in providers}
        night = night or bundles.replay_night(Path(replay), scan.captured_at)
    else:
        selected, unreadable = providers or default_providers(replays.all_providers()), {}
        night = night or bundles.night_key(_scheduled_start())
    try:
        done = bundles.complete(url, options, nights=[night])
    except Exception as exc:   # each write below retries; the crawls need not wait for the store
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        logger.warning("store %s not answering (%s): crawling every provider, each bundle write retries", url, line)
        done = []
    already = _providers_written(done, url, options, mode, replay) & (set(selected) | set(unreadable))
    todo = [p for p in selected if p not in already]
    logger.info("night %s -> %s: crawling %s%s", night, url, todo,
                f" (bundle already written: {sorted(already)})" if already else "")
    common = dict(mode=mode, replay=replay, as_of=as_of, options=options)
    writes = {p: write_bundle.submit(url, night, p, None, error=line, **common)
              for p, line in unreadable.items() if p not in already}
    crawl_task = crawl_provider.with_options(retries=0) if replay else crawl_provider
    with tempfile.TemporaryDirectory(prefix="pricewatch-crawl-") as workdir:
        browser = [p for p in todo if uses_browser(p)]
        http = [p for p in todo if p not in browser]
        CRAWL_GROUPS[workdir] = RunCrawls(http, Path(workdir) / "shared", Path(replay) if replay else None,
                                          None if replay else Path(archive_dir), others=browser)
        try:
            futures = {crawl_task.submit(p, workdir, replay, None if replay else archive_dir, shared=True): p
                       for p in browser + http}
            for fut in as_completed(list(futures)):
                p = futures[fut]
                fut.wait()
                state = fut.state
                result = fut.result() if state.is_completed() else None
                error = None if result is not None else _state_error(p, state)
                warnings = scan.warnings.get(p, []) if scan is not None else []
                captured = scan.captured_at.get(p) if scan is not None else None
                logger.info("%s: crawled, %d items%s", p, len(result.items) if result else 0,
                            f" ({error})" if error else "")
                # Written as each crawl ends; the WARC files stay under archive_dir too.
                writes[p] = write_bundle.submit(url, night, p, result, error=error, warnings=warnings,
                                                captured_at=captured, **common)
            for w in writes.values():
                w.wait()
        finally:
            CRAWL_GROUPS.pop(workdir).stop()
    rows, failed = [], []
    for p, w in sorted(writes.items()):
        if w.state.is_completed():
            rows.append({"provider": p, "bundle": w.result(), "night": night})
        else:
            failed.append(p)
            rows.append({"provider": p, "bundle": "not written: " + (w.state.message or "")[:300], "night": night})
    create_table_artifact(rows, key="pricewatch-bundles", description=f"Bundles of night {night} in {url}")
    summary = {"night": night, "storage": url, "bundles": {r["provider"]: r["bundle"] for r in rows},
               "skipped": sorted(already)}
    if failed:
        return Failed(message=f"night {night}: bundles not written for {', '.join(failed)}", data=summary)
    return Completed(message=f"night {night}: {len(rows)} bundle(s) written"
                     + (f", {len(already)} already there" if already else ""), data=summary)


def _providers_written(refs, url, options, mode, replay) -> set[str]:
    out = set()
    for ref in refs:
        try:
            m = bundles.manifest_of(ref, url, options)
        except (OSError, ValueError):
            continue
        if m.get("mode") == mode and m.get("replay") == replay and m.get("bundle_id") == ref.bundle_id:
            out.add(m.get("provider"))
    return out


def _scheduled_start() -> datetime:
    from prefect.runtime import flow_run
    when = flow_run.scheduled_start_time
    return when if isinstance(when, datetime) and when.tzinfo else datetime.now(timezone.utc)

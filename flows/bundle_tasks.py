"""The bundle steps every flow shares (pricewatch/collect/bundles.py is the format): write a
provider's crawl as a bundle (retried while the store is unreachable), read one back, judge it
into a provider outcome, and shape a night's bundles into one run. The single-machine nightly
(flows/nightly.py) goes through the same write, read and judge, in a local folder; the crawl
and load deployments (flows/crawl.py, flows/load.py) through a shared store."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from flows.tasks import run_logger, validate_crawl
from pricewatch.collect import bundles, judge, replays
from pricewatch.collect.crawl_process import CrawlResult

#: Writing a bundle is retried this often (delays in seconds) when the store does not answer.
WRITE_RETRY_DELAYS = [2, 5, 15]


def resolve_options(storage_block: str | None = None) -> dict:
    """The store's fsspec options: $PRICEWATCH_STORAGE_OPTIONS, else a Prefect Secret block
    holding them as JSON (its name a flow parameter), else none (s3fs reads AWS_* itself)."""
    options = bundles.storage_options()
    if options or not storage_block:
        return options
    from prefect.blocks.system import Secret
    value = Secret.load(storage_block).get()
    return value if isinstance(value, dict) else json.loads(value)


@task(name="write-bundle", task_run_name="write-bundle-{provider}", cache_policy=NO_CACHE,
      retries=len(WRITE_RETRY_DELAYS), retry_delay_seconds=WRITE_RETRY_DELAYS)
def write_bundle(storage: str, night: str, provider: str, result: CrawlResult | None, mode: str,
                 replay: str | None = None, as_of: str | None = None, error: str | None = None,
                 warnings: list[str] | None = None, captured_at: datetime | None = None,
                 options: dict | None = None) -> str:
    """bundles.write_bundle as a task: a store that does not answer fails the attempt (one line
    naming the provider), Prefect retries it; nothing half-written is ever visible."""
    try:
        return bundles.write_bundle(storage, night, provider, result, mode=mode, replay=replay, as_of=as_of,
                                    error=error, warnings=warnings, captured_at=captured_at, options=options)
    except Exception as exc:
        from prefect.runtime import task_run
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        retrying = (task_run.run_count or 1) <= len(WRITE_RETRY_DELAYS)
        run_logger().error("%s: bundle not written to %s (%s: %s)%s", provider, storage, type(exc).__name__, line,
                           "; retrying" if retrying else "; no retry left")
        raise RuntimeError(f"{provider}: bundle not written to {storage}: {line}") from None


def local_bundle(workdir: str, night: str, provider: str, result: CrawlResult | None, mode: str,
                 replay: str | None, as_of: str | None, error: str | None = None,
                 warnings: list[str] | None = None, captured_at: datetime | None = None) -> bundles.Bundle:
    """A single-machine crawl through the bundle format: written to <workdir>/bundles, read back."""
    url = "file://" + str(Path(workdir).resolve() / "bundles")
    bundle_id = bundles.write_bundle(url, night, provider, result, mode=mode, replay=replay, as_of=as_of,
                                     error=error, warnings=warnings, captured_at=captured_at, options={})
    ref = bundles.BundleRef(night, bundle_id, f"{url.removeprefix('file://')}/{night}/{bundle_id}")
    return bundles.read_bundle(ref, url, {})


def judge_bundle(bundle: bundles.Bundle, history: dict | None) -> judge.ProviderOutcome:
    """A bundle's provider outcome, judged on the loading machine against its warehouse's item
    history (None: the warehouse was locked, the monitors compare nothing)."""
    p = bundle.provider
    if bundle.result is None:
        outcome = validate_crawl(p, None, bundle.error or f"{p}: crawl gave no result", [])
        outcome.warnings.extend(bundle.warnings)
        return outcome
    outcome = validate_crawl(p, quote(bundle.result), None, (history or {}).get(p, []))
    if history is None and outcome.status in ("ok", "suspect"):
        outcome.warnings.append("run monitors not checked: the item history could not be read "
                                "(warehouse locked by another process)")
    outcome.warnings.extend(bundle.warnings)
    return outcome


def run_of_night(night: str, chosen: list[bundles.Bundle], outcomes: list[judge.ProviderOutcome],
                 started: datetime, flow_run_id: str | None):
    """The run row and frames of one night's bundles (judge.build_run). A replay's id is the
    judge's own (the same captures give the same run on any machine); a live night's is made of
    its bundles' ids, so loading the same bundles again is a no-op."""
    from flows.nightly import parse_as_of
    first = chosen[0]
    replay = first.replay
    run, provider_runs, offers, facts = judge.build_run(
        outcomes, first.mode, started, parse_as_of(first.as_of), Path(replay) if replay else None, flow_run_id,
        captured_at={b.provider: b.captured_at for b in chosen if b.captured_at},
        known_providers=replays.all_providers())
    if first.mode == "live":
        digest = hashlib.sha256("|".join(sorted(b.bundle_id for b in chosen)).encode()).hexdigest()[:6]
        stamp = _night_time(night) or run["observed_at"]
        run_id = f"live-{stamp:%Y%m%dT%H%M%SZ}-{digest}"
        run["run_id"] = run_id
        for frame in (provider_runs, offers, facts):
            if len(frame) and "run_id" in frame.columns:
                frame["run_id"] = run_id
    return run, provider_runs, offers, facts


def _night_time(night: str) -> datetime | None:
    for fmt in ("%Y-%m-%dT%H%MZ", "%Y-%m-%d"):
        try:
            return datetime.strptime(night, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


def outcome_order(bundle: bundles.Bundle) -> tuple:
    """As the nightly orders its providers: those whose replay archive was unreadable first."""
    unreadable = bundle.result is None and "replay archive unreadable" in (bundle.error or "")
    return (0 if unreadable else 1, bundle.provider)

"""The HTTP spiders of a run in one Scrapy process (pricewatch/collect/crawl_group.py): each provider's
outcome still its own, a crash of the shared process loses no provider silently, and the
`pricewatch run` people watch (one line per provider, the run's alerts; Prefect's lines in a
log file)."""

from __future__ import annotations

import os
import signal

from pricewatch.cli.run_view import alerts_line
from pricewatch.collect import judge
from pricewatch.collect.crawl_ahead import RunCrawls, prefetch
from pricewatch.collect.crawl_group import CrawlGroup
from tests.conftest import shipped


def test_two_providers_in_one_process_each_with_its_own_archive_and_outcome(tmp_path):
    # thunder_compute: 25 offers (tests/test_thunder_compute.py, from v1_pricing.json);
    # massed_compute: 25 offers, 23 priced (its SOURCE.md: "23 distinct priced rows" + 2 "Request").
    # A third crawl names no spider: that provider fails, alone.
    group = CrawlGroup([], tmp_path, crawls=[("thunder_compute", "thunder_compute", shipped("thunder_compute")),
                                             ("massed_compute", "massed_compute", shipped("massed_compute")),
                                             ("nosuch", "nosuch", shipped("thunder_compute"))]).start()
    results = group.results()
    assert group.wait(30) == 1          # one crawl failed; the process still ran the others
    thunder, massed, nosuch = results["thunder_compute"], results["massed_compute"], results["nosuch"]
    assert (thunder.returncode, len(thunder.items), thunder.report["provider"]) == (0, 25, "thunder_compute")
    assert (massed.returncode, len(massed.items), sum(i["is_priced"] for i in massed.items)) == (0, 25, 23)
    assert {i["capture"]["source_url"] for i in thunder.items}.isdisjoint(
        {i["capture"]["source_url"] for i in massed.items})
    assert [judge.judge_crawl(r).status for r in (thunder, massed)] == ["ok", "ok"]
    assert nosuch.returncode == 1 and nosuch.items == [] and "Spider not found: nosuch" in nosuch.log_tail
    assert judge.judge_crawl(nosuch).status == "failed"


def test_a_crash_of_the_shared_process_fails_each_unreported_provider_with_a_line_and_a_retry(tmp_path):
    group = CrawlGroup(["thunder_compute", "massed_compute"], tmp_path, replay=shipped("thunder_compute")).start()
    os.killpg(group.proc.pid, signal.SIGKILL)   # as the OOM killer would, before any crawl ended
    results = group.results()
    for p, r in results.items():
        assert r.provider == p and r.returncode == -signal.SIGKILL and r.items == []
        assert r.log_tail.startswith(f"the crawl process it shared with 1 other provider(s) killed by SIGKILL "
                                     f"before {p}'s crawl ended"), r.log_tail
        # A crash may pass: the flow retries the provider in a crawl process of its own.
        assert r.transient_failure() and r.transient_failure().startswith(f"{p}: crawl process exited with code -9")
        outcome = judge.judge_crawl(r)
        assert outcome.status == "failed" and outcome.error.startswith(f"{p}: crawl did not finish (exit -9)")


def test_a_provider_the_crashed_shared_process_did_not_report_is_retried_alone(tmp_path, on_prefect):
    """A live run: the shared process dies before massed_compute's crawl ended; the crawl task
    (flows/tasks.py, the real Prefect task and its retry) crawls it again in a process of its
    own. No internet here, so that retry ends in DNS failures, which are not retried again."""
    from prefect import flow

    from flows import tasks as flow_module
    workdir, archive = str(tmp_path), str(tmp_path / "archive")
    crawls = RunCrawls(["massed_compute"], tmp_path / "shared", None, tmp_path / "archive")
    os.killpg(crawls.own.proc.pid, signal.SIGKILL)
    crashed = crawls.result("massed_compute")
    assert crashed.transient_failure()
    flow_module.CRAWL_GROUPS[workdir] = crawls

    @flow(name="test-crawl-retry")
    def crawl_once():
        task = flow_module.crawl_provider.with_options(retry_delay_seconds=0, retry_jitter_factor=None)
        return task("massed_compute", workdir, None, archive, shared=True)

    try:
        result = crawl_once()
    finally:
        flow_module.CRAWL_GROUPS.pop(workdir, None)
    assert result.attempts == 2 and result.returncode == 0
    assert result.report["network_faults"] == {"dns": 2}      # robots.txt and the pricing page
    assert result.transient_failure() is None


def test_crawled_ahead_results_are_taken_by_their_run_only(tmp_path):
    """`pricewatch run --replay captures`: every dated folder's providers crawl at once; a run
    takes its own (same provider, same folder), a run of another folder crawls itself."""
    thunder = shipped("thunder_compute")
    with prefetch([(thunder, ["thunder_compute"])]) as ahead:
        mine = RunCrawls(["thunder_compute"], tmp_path / "mine", thunder, None)
        assert mine.ahead and mine.own.proc is None        # nothing crawled twice
        assert len(mine.result("thunder_compute").items) == 25
        other = RunCrawls(["thunder_compute"], tmp_path / "other", thunder, None)   # taken already
        assert not other.ahead and other.own.proc is not None
        assert len(other.result("thunder_compute").items) == 25
    assert ahead.groups[0].wait(30) == 0


def test_the_alerts_line_says_raised_and_delivered():
    # pricewatch/alerts/derive.py counts raised/suspect/confirmed/suppressed; deliver.py
    # sent/failed/unconfirmed/pending and the error of the URLs that failed.
    derived = {"raised": 3, "suspect": 1, "confirmed": 0, "suppressed": 0}
    delivered = {"sent": 2, "failed": 1, "unconfirmed": 0, "pending": 1, "error": "hook: HTTP 500"}
    assert alerts_line({**derived, **delivered}) == "3 raised (1 suspect), 2 delivered, 1 failed, 1 pending (hook: HTTP 500)"


# The run people watch (one line per provider, Prefect's lines in a log file) is checked on
# tests/test_cli.py's run of the same two sources: one CLI replay for both.

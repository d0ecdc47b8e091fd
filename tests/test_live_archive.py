"""A live crawl (real HTTP download, here from a local server standing in for the provider)
archives every response to a dated WARC file; replaying that file yields the same offers."""

from __future__ import annotations

from datetime import datetime, timezone

from warcio.archiveiterator import ArchiveIterator

from pricewatch import collect
from tests.conftest import STANDIN_SETTINGS, shipped_exchanges


def test_live_run_writes_a_dated_warc_and_its_replay_gives_the_same_offers(tmp_path, standin):
    page = shipped_exchanges("massed_compute")[0]["body"]
    standin.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    standin.expect_request("/pricing").respond_with_data(page, content_type="text/html; charset=utf-8")
    archive = tmp_path / "archive"
    spider_args = {"pricing_url": standin.url_for("/pricing")}
    result = collect.run_crawl("massed_compute", tmp_path / "live", archive_dir=archive,
                               spider_args=spider_args, settings=STANDIN_SETTINGS)
    assert result.returncode == 0, result.log_tail
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    warcs = list((archive / today).glob("massed_compute-*.warc.gz"))
    assert len(warcs) == 1
    with open(warcs[0], "rb") as fh:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
                    r.http_headers.get_statuscode() if r.rec_type == "response" else None)
                   for r in ArchiveIterator(fh)]
    # robots.txt and the page, each as a response plus the request that asked for it.
    assert ("response", standin.url_for("/pricing"), "200") in records
    assert ("response", standin.url_for("/robots.txt"), "200") in records
    assert sum(1 for r in records if r[0] == "request") == 2
    live = result.items
    # Offers store the path relative to the archive root: <date>/<file>, not this machine's path.
    assert {i["capture"]["warc_file"] for i in live} == {f"{today}/{warcs[0].name}"}
    standin.stop()  # the replay must not need the network
    replayed = collect.run_crawl("massed_compute", tmp_path / "replay", replay=warcs[0],
                                 spider_args=spider_args, settings=STANDIN_SETTINGS)
    def strip(items):
        return sorted((i["offer_key"], i["price_per_hour"], i["price_text"]) for i in items)
    assert len(live) == 25 and replayed.report["replay_missing"] == 0   # the real page's 25 offers
    assert strip(live) == strip(replayed.items)
    assert {i["capture"]["warc_record_id"] for i in live} == {i["capture"]["warc_record_id"] for i in replayed.items}

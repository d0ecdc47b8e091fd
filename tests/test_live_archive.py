"""A live crawl (real HTTP download, here from a local server standing in for the provider)
archives every response to a dated WARC file; replaying that file yields the same offers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

import pytest
from pytest_httpserver import HTTPServer
from warcio.archiveiterator import ArchiveIterator

from pricewatch import collect
from tests.conftest import ROOT, source_exchanges


@pytest.fixture
def httpserver():
    """Our own server (not the session-wide one): this test stops it to prove replay is offline."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    if server.is_running():
        server.stop()


def test_live_run_writes_a_dated_warc_and_its_replay_gives_the_same_offers(tmp_path, httpserver):
    page = source_exchanges("2026-10-29", "massed_compute")[0]["body"]
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    httpserver.expect_request("/pricing").respond_with_data(page, content_type="text/html; charset=utf-8")
    archive, items = tmp_path / "archive", tmp_path / "items.jsonl"
    middlewares = {"spiders.middlewares.WarcArchiveMiddleware": 950,
                   # the stand-in server is not the provider's domain
                   "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None}
    subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "massed_compute", "-a", f"pricing_url={httpserver.url_for('/pricing')}",
         "-O", f"{items}:jsonlines", "-s", f"PRICEWATCH_ARCHIVE_DIR={archive}", "-s", "LOG_LEVEL=WARNING",
         "-s", f"DOWNLOADER_MIDDLEWARES={json.dumps(middlewares)}"],
        cwd=ROOT, check=True, env={**os.environ, "SCRAPY_SETTINGS_MODULE": "spiders.settings"}, timeout=120)
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    warcs = list((archive / today).glob("massed_compute-*.warc.gz"))
    assert len(warcs) == 1
    with open(warcs[0], "rb") as fh:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
                    r.http_headers.get_statuscode() if r.rec_type == "response" else None)
                   for r in ArchiveIterator(fh)]
    # robots.txt and the page, each as a response plus the request that asked for it.
    assert ("response", httpserver.url_for("/pricing"), "200") in records
    assert ("response", httpserver.url_for("/robots.txt"), "200") in records
    assert sum(1 for r in records if r[0] == "request") == 2
    live = [json.loads(line) for line in items.read_text().splitlines()]
    assert {i["capture"]["warc_file"] for i in live} == {str(warcs[0])}
    httpserver.stop()  # the replay must not need the network
    replayed = collect.run_crawl("massed_compute", tmp_path / "replay", replay=warcs[0],
                                 spider_args={"pricing_url": httpserver.url_for("/pricing")},
                                 settings={"DOWNLOADER_MIDDLEWARES": middlewares})
    def strip(items):
        return sorted((i["offer_key"], i["price_per_hour"], i["price_text"]) for i in items)
    assert len(live) == 8 and replayed.report["replay_missing"] == 0
    assert strip(live) == strip(replayed.items)
    assert {i["capture"]["warc_record_id"] for i in live} == {i["capture"]["warc_record_id"] for i in replayed.items}

"""A live crawl (real HTTP download, here from a local server standing in for the provider)
archives every response to a dated WARC file; replaying that file yields the same offers."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from warcio.archiveiterator import ArchiveIterator

from pricewatch.collect import crawl_process
from pricewatch.evidence import lookup as evidence
from pricewatch.evidence import wacz
from tests.conftest import STANDIN_SETTINGS, shipped_exchanges


def test_live_run_writes_a_dated_warc_and_its_replay_gives_the_same_offers(tmp_path, standin):
    page = shipped_exchanges("massed_compute")[0]["body"]
    standin.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    standin.expect_request("/pricing").respond_with_data(page, content_type="text/html; charset=utf-8")
    archive = tmp_path / "archive"
    spider_args = {"pricing_url": standin.url_for("/pricing")}
    result = crawl_process.run_crawl("massed_compute", tmp_path / "live", archive_dir=archive,
                               spider_args=spider_args, settings=STANDIN_SETTINGS)
    assert result.returncode == 0, result.log_tail
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    warcs = list((archive / today).glob("massed_compute-*.warc.gz"))
    assert len(warcs) == 1
    with open(warcs[0], "rb") as fh:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
                    r.http_headers.get_statuscode() if r.rec_type == "response" else None)
                   for r in ArchiveIterator(fh)]
    # The file starts with a warcinfo record naming what wrote it and the provider.
    assert records[0] == ("warcinfo", None, None)
    # robots.txt and the page, each as a response plus the request that asked for it.
    assert ("response", standin.url_for("/pricing"), "200") in records
    assert ("response", standin.url_for("/robots.txt"), "200") in records
    assert sum(1 for r in records if r[0] == "request") == 2
    live = result.items
    # Packaged when the crawl closed, beside its WARC (same stem), and valid (`wacz validate`).
    package = wacz.wacz_path(warcs[0])
    assert package.name == warcs[0].name.replace(".warc.gz", ".wacz")
    valid, said = wacz.validate(package)
    assert valid, said
    # Offers store the path relative to the archive root: <date>/<file>, not this machine's path.
    assert {i["capture"]["warc_file"] for i in live} == {f"{today}/{warcs[0].name}"}
    standin.stop()  # the replay must not need the network
    replayed = crawl_process.run_crawl("massed_compute", tmp_path / "replay", replay=warcs[0],
                                 spider_args=spider_args, settings=STANDIN_SETTINGS)
    def strip(items):
        return sorted((i["offer_key"], i["price_per_hour"], i["price_text"]) for i in items)
    assert len(live) == 25 and replayed.report["replay_missing"] == 0   # the real page's 25 offers
    assert strip(live) == strip(replayed.items)
    assert {i["capture"]["warc_record_id"] for i in live} == {i["capture"]["warc_record_id"] for i in replayed.items}


@pytest.mark.slow   # heavy (real processes, ~15-35 s): CI runs it with -m slow
def test_a_browser_page_is_archived_as_received_and_its_rendered_dom_as_a_conversion_record(tmp_path, standin):
    """Jarvislabs renders its spot and term prices with its own script (spiders/jarvislabs.py).
    The stand-in serves the shipped capture's four bodies (captures/src/2026-10-29/jarvislabs/),
    the page's apiBase pointed at the stand-in (the only change)."""
    bodies = {ex["url"]: ex for ex in shipped_exchanges("jarvislabs")}
    api = standin.url_for("").rstrip("/")
    standin.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    for url, ex in bodies.items():
        path = "/" + url.split("/", 3)[3]
        body = ex["body"]
        if path == "/pricing":
            body = body.replace(b"https://backendn.jarvislabs.net", api.encode())
        standin.expect_request(path).respond_with_data(body, content_type=ex["headers"]["Content-Type"])
    result = crawl_process.run_crawl("jarvislabs", tmp_path / "live", archive_dir=tmp_path / "archive",
                               spider_args={"pricing_url": standin.url_for("/pricing")}, settings=STANDIN_SETTINGS)
    assert result.returncode == 0 and result.items, result.log_tail
    (warc,) = (tmp_path / "archive").glob("*/jarvislabs-*.warc.gz")
    with open(warc, "rb") as fh:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"), r.rec_headers.get_header("WARC-Record-ID"),
                    r.rec_headers.get_header("WARC-Refers-To"), r.rec_headers.get_header("Content-Type"),
                    r.content_stream().read()) for r in ArchiveIterator(fh)]
    assert records[0][0] == "warcinfo"
    responses = {uri: (rid, body) for kind, uri, rid, _, _, body in records if kind == "response"}
    page = standin.url_for("/pricing")
    assert set(responses) >= {page, standin.url_for("/assets/pricing-7c41d2e9.js"),
                              standin.url_for("/misc/server_meta"), standin.url_for("/assets/index-5b0e7f3a.css")}
    conversions = [r for r in records if r[0] == "conversion"]
    assert len(conversions) == 1
    _, uri, _, refers_to, ctype, dom = conversions[0]
    assert (uri, refers_to) == (page, responses[page][0]) and ctype.startswith("text/html")
    # server_meta.json: A100-80GB "spot_price": 0.89; the script prints money(v) = "$" + v.toFixed(2) + "/hr".
    # The rendered DOM shows it; the page the server sent has only the empty skeleton cell.
    assert b"$0.89/hr" in dom and b"$0.89/hr" not in responses[page][1]
    # Every response is what the server sent (the page as served, not the DOM).
    assert responses[page][1] == bodies["https://jarvislabs.ai/pricing"]["body"].replace(
        b"https://backendn.jarvislabs.net", api.encode())
    # A term price the script computed (pricing-7c41d2e9.js: round(1.49 * (100 - 10)) / 100 from
    # server_meta's A100 price_per_hour 1.49 and term_discounts 1 month 10 %) points to server_meta;
    # `pricewatch evidence` finds the printed text in the DOM rendered from the page that loaded it.
    term = next(i for i in result.items if i["offer_key"] == "1x A100-80GB reserved 1 month @india-noida-01")
    cap = term["capture"]
    row = {"warc_file": cap["warc_file"], "warc_record_id": cap["warc_record_id"], "body_sha256": cap["body_sha256"],
           "source_url": cap["source_url"], "price_raw": term["price_raw"], "price_per_hour": term["price_per_hour"]}
    ev = evidence.check("term", row, [tmp_path / "archive"])
    assert ev.ok and cap["source_url"] == standin.url_for("/misc/server_meta"), ev.problem
    assert ev.excerpt[1] == "$1.34/hr" and ev.found_in.endswith("rendered from the page that loaded this response)")
    # The archive replays: the browser renders the page again from the network records.
    standin.stop()
    replayed = crawl_process.run_crawl("jarvislabs", tmp_path / "replay", replay=warc,
                                 spider_args={"pricing_url": page}, settings=STANDIN_SETTINGS)
    def strip(items):
        return sorted((i["offer_key"], i["price_per_hour"]) for i in items)
    assert replayed.report["replay_missing"] == 0 and strip(replayed.items) == strip(result.items)

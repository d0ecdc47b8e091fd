"""Jarvislabs spider: the pricing page rendered in real Chromium, its script run on archived responses.

Every test here drives /usr/bin/chromium (or $PRICEWATCH_CHROMIUM) through scrapy-playwright.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Decimal
from hashlib import sha256
from pathlib import Path

import pytest
from parsel import Selector
from warcio.archiveiterator import ArchiveIterator

from pricewatch import collect
from tests.conftest import CAPTURES, STANDIN_SETTINGS, source_exchanges

CHROMIUM = os.environ.get("PRICEWATCH_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")

CAPTURE = CAPTURES / "2026-10-29" / "jarvislabs.warc.gz"
PAGE = "https://jarvislabs.ai/pricing"
SCRIPT = "https://jarvislabs.ai/assets/pricing-7c41d2e9.js"
DATA = "https://backendn.jarvislabs.net/misc/server_meta"


def exchanges() -> list[dict]:
    return source_exchanges("2026-10-29", "jarvislabs")


def body_of(url: str, exs: list[dict] | None = None) -> bytes:
    return next(e["body"] for e in (exs or exchanges()) if e["url"] == url)


def with_body(url: str, body: bytes) -> list[dict]:
    return [{**e, "body": body} if e["url"] == url else e for e in exchanges()]


def without(url: str) -> list[dict]:
    return [e for e in exchanges() if e["url"] != url]


def by_key(result) -> dict[str, dict]:
    return {i["offer_key"]: i for i in result.items}


def expected_from_json(data: dict) -> dict[str, tuple]:
    """What the page's rows must show, computed from server_meta the way the capture's
    provenance documents the script: spot_price of the row's VM entry ("—" when null), and
    price_per_hour less each term's discount, rounded to cents."""
    rows = Selector(body_of(PAGE).decode()).css("tr[data-gpu-type]")
    out = {}
    for row in rows:
        gpu, region = row.attrib["data-gpu-type"], row.attrib["data-region"]
        entries = [m for m in data["server_meta"] if m["gpu_type"] == gpu and m["region"] == region]
        m = next((e for e in entries if e["workload_type"] == "vm"), None) or entries[0]
        if m["spot_price"] is not None:
            out[f"{gpu}@{region}/spot"] = ("spot", Decimal(str(m["spot_price"])))
        for t in data["term_discounts"]:
            price = None if t["contact_sales"] else (
                Decimal(str(m["price_per_hour"])) * (100 - t["discount_pct"]) / 100).quantize(
                    Decimal("0.01"), ROUND_HALF_UP)
            out[f"{gpu}@{region}/reserved-{t['term']}"] = (t["label"], price)
    return out


def script_offers(result) -> dict[str, tuple]:
    return {k: (i["reserved_term"] or "spot",
                None if i["price_per_gpu_hour"] is None else Decimal(str(i["price_per_gpu_hour"])))
            for k, i in by_key(result).items() if i["billing"] != "on-demand"}


def test_on_demand_prices_are_the_dated_values_printed_in_the_page(crawl):
    offers = by_key(crawl("jarvislabs", CAPTURE))
    # PROVIDERS.md §11 (2026-09/10): per GPU-hour H100 SXM $3.49, H200 SXM $4.59, A100 80GB $1.49.
    h100, h200, a100 = (offers[k] for k in ("H100@europe-01/on-demand", "H200@europe-01/on-demand",
                                            "A100-80GB@india-noida-01/on-demand"))
    assert (h100["price_per_gpu_hour"], h200["price_per_gpu_hour"], a100["price_per_gpu_hour"]) == (3.49, 4.59, 1.49)
    assert (h100["gpu_model"], h100["form_factor"], h100["vram_gb"]) == ("H100", "SXM", 80)
    assert (h200["gpu_model"], h200["form_factor"], a100["gpu_model"]) == ("H200", "SXM", "A100 80GB")
    assert {o["billing"] for o in (h100, h200, a100)} == {"on-demand"}
    assert all(o["self_service"] and o["gpu_count"] == 1 for o in (h100, h200, a100))


def test_spot_and_term_prices_are_those_of_the_json_the_script_loaded(crawl):
    result = crawl("jarvislabs", CAPTURE)
    assert script_offers(result) == expected_from_json(json.loads(body_of(DATA)))
    offers = by_key(result)
    # server_meta has spot_price null for H100 and H200: no spot offer, not a $0 one.
    assert "H100@europe-01/spot" not in offers and "H200@europe-01/spot" not in offers
    assert offers["A100-80GB@india-noida-01/spot"]["price_per_gpu_hour"] == 0.89
    year = offers["H100@europe-01/reserved-12_months"]
    assert (year["is_priced"], year["price_text"], year["self_service"]) == (False, "Contact sales", False)
    # Entries the page does not show (H100 in "unknown-region") are not offers.
    assert not any("unknown-region" in k for k in offers)
    assert collect.judge_crawl(result).status == "ok"


def test_each_price_points_to_the_record_it_came_from(crawl):
    result = crawl("jarvislabs", CAPTURE)
    page_sha, data_sha = sha256(body_of(PAGE)).hexdigest(), sha256(body_of(DATA)).hexdigest()
    for item in result.items:
        cap = item["capture"]
        want = (PAGE, page_sha) if item["billing"] == "on-demand" else (DATA, data_sha)
        assert (cap["source_url"], cap["body_sha256"]) == want, item["offer_key"]
        assert cap["warc_file"] == str(CAPTURE) and cap["warc_record_id"].startswith("<urn:uuid:")


def test_replay_needs_nothing_outside_the_archive(crawl):
    report = crawl("jarvislabs", CAPTURE).report
    assert report["replay_missing"] == 0 and report["failed_urls"] == []
    # The page, its stylesheet, its script and the script's JSON; robots.txt is not recorded.
    assert report["http_status_counts"] == {"200": 4, "404": 1}


def test_spot_and_term_prices_follow_the_json_through_the_pages_script(crawl, make_warc):
    # The recorded HTML has no spot or term price: only the script can put them there.
    page = Selector(body_of(PAGE).decode())
    assert all(not td.css("::text").get("").strip() for td in page.css("td[data-fill]"))
    data = json.loads(body_of(DATA))
    for m in data["server_meta"]:
        if m["gpu_type"] == "A100-80GB":
            m.update(price_per_hour=1.59, spot_price=0.77)
        if m["gpu_type"] == "H100":
            m["spot_price"] = 2.19
    data["term_discounts"][0]["discount_pct"] = 15
    result = crawl("jarvislabs", make_warc(with_body(DATA, json.dumps(data).encode())))
    assert script_offers(result) == expected_from_json(data)
    offers = by_key(result)
    assert offers["A100-80GB@india-noida-01/spot"]["price_per_gpu_hour"] == 0.77
    assert offers["A100-80GB@india-noida-01/reserved-1_month"]["price_per_gpu_hour"] == 1.35  # 1.59 less 15 %
    assert offers["H100@europe-01/spot"]["price_per_gpu_hour"] == 2.19
    # The on-demand price is the page's own, whatever the JSON says.
    assert offers["A100-80GB@india-noida-01/on-demand"]["price_per_gpu_hour"] == 1.49


def test_without_the_json_the_run_fails_naming_it(crawl, make_warc):
    outcome = collect.judge_crawl(crawl("jarvislabs", make_warc(without(DATA))))
    assert outcome.status == "failed" and outcome.offers == []
    assert "jarvislabs" in outcome.error and f"{DATA} (not in the replay archive" in outcome.error
    # The page's own error handling ran (its fetch failed), and the spider says what it lacks.
    assert "data-live-prices='error'" in outcome.error and "/misc/server_meta" in outcome.error


def test_without_the_script_the_run_fails_naming_it(crawl, make_warc):
    result = crawl("jarvislabs", make_warc(without(SCRIPT)))
    outcome = collect.judge_crawl(result)
    assert outcome.status == "failed"
    assert f"{SCRIPT} (not in the replay archive; script" in outcome.error
    assert "not filled in by the page's script" in outcome.error
    assert not [i for i in result.items if i["billing"] != "on-demand"]


def test_a_page_that_first_answers_503_is_retried_in_the_browser(crawl, make_warc):
    ex = exchanges()
    busy = {**ex[0], "status": 503, "reason": "Service Unavailable", "headers": {"Content-Type": "text/html"},
            "body": b"<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"}
    result = crawl("jarvislabs", make_warc([busy] + ex))
    assert result.report["http_status_counts"]["503"] == 1 and result.report["retries"] == 1
    assert len(result.items) == 23 and collect.judge_crawl(result).status == "ok"
    # The offers point to the page that answered, not to the 503.
    assert {i["capture"]["body_sha256"] for i in result.items if i["billing"] == "on-demand"} == {
        sha256(body_of(PAGE)).hexdigest()}



def test_a_live_crawl_archives_what_the_browser_fetched_and_replays_from_it(tmp_path, standin):
    """A live crawl from a local stand-in server: the page, stylesheet, script and JSON are
    archived as received (not the rendered DOM), and replaying that archive gives the same offers."""
    html = body_of(PAGE).replace(b"https://backendn.jarvislabs.net", standin.url_for("").rstrip("/").encode())
    standin.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    standin.expect_request("/pricing").respond_with_data(html, content_type="text/html; charset=utf-8")
    for ex in exchanges()[1:]:
        path = ex["url"].split("/", 3)[3]
        standin.expect_request(f"/{path}").respond_with_data(ex["body"], content_type=ex["headers"]["Content-Type"])
    url = standin.url_for("/pricing")
    archive = tmp_path / "archive"
    result = collect.run_crawl("jarvislabs", tmp_path / "live", archive_dir=archive,
                               spider_args={"pricing_url": url}, settings=STANDIN_SETTINGS)
    assert result.returncode == 0, result.log_tail
    live = result.items
    warcs = list((archive / datetime.now(timezone.utc).strftime("%Y-%m-%d")).glob("jarvislabs-*.warc.gz"))
    assert len(warcs) == 1  # one file per crawl, shared by robots.txt and the browser
    with open(warcs[0], "rb") as fh:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
                    r.http_headers.get_header("User-Agent") if r.rec_type == "request" else None,
                    r.content_stream().read() if r.rec_type == "response" else None)
                   for r in ArchiveIterator(fh)]
    responses = {u: body for t, u, _, body in records if t == "response"}
    paths = sorted(u.split("/", 3)[3] for t, u, _, _ in records if t == "response")
    assert paths == sorted(["robots.txt", "pricing", "assets/index-5b0e7f3a.css", "assets/pricing-7c41d2e9.js",
                            "misc/server_meta"])
    # The page as served (empty skeletons), not the DOM after the script ran.
    assert responses[url] == html
    assert responses[standin.url_for("/misc/server_meta")] == body_of(DATA)
    # Even the script's own request carried our honest User-Agent.
    data_request_ua = next(ua for t, u, ua, _ in records if t == "request" and u.endswith("/misc/server_meta"))
    assert data_request_ua.startswith("pricewatch/")
    assert {i["capture"]["source_url"] for i in live if i["billing"] == "spot"} == {standin.url_for("/misc/server_meta")}

    standin.stop()  # the replay must not need the network
    replayed = collect.run_crawl("jarvislabs", tmp_path / "replay", replay=warcs[0],
                                 spider_args={"pricing_url": url}, settings=STANDIN_SETTINGS)
    assert replayed.returncode == 0, replayed.log_tail
    again = replayed.items

    def strip(items):
        return sorted((i["offer_key"], i["price_per_hour"], i["price_text"], i["capture"]["warc_record_id"])
                      for i in items)
    assert len(live) == 23 and strip(live) == strip(again)

"""Compute Pulse (aggregator) on its REAL recorded listings answers (compute-pulse.com/api/listings,
2026-08-22: the B300 book (an excerpt of 9 of 98 rows, envelope verbatim, one page), the empty MI325X
book (whole), and the H100 / RTX 4090 first pages whose links.next names an unrecorded page; see
tests/real/computepulse/SOURCE.md and captures/src/2026-08-22/compute_pulse/exchanges.yaml).

Expected values are read off the recorded JSON (quoted) or SOURCE.md. Unit: meta.price_unit "USD per GPU
hour"; a row with ``currency`` EUR/CHF/INR keeps ``price_native`` in that currency.
"""

import json

import pytest
from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from pricewatch.collect import crawl_process, judge
from spiders.compute_pulse import (
    ComputePulseSpider,
    listing_offers,
    listings_url,
    parse_listings,
)
from spiders.items import OfferItem
from tests.conftest import CAPTURES_SRC, ROOT, shipped
from tests.inprocess import run_parsed

SRC = CAPTURES_SRC / "2026-08-22" / "compute_pulse"
REAL = ROOT / "tests" / "real" / "computepulse"
B300 = (SRC / "b300_listings.json").read_text(encoding="utf-8")
MI325X = (SRC / "mi325x_listings.json").read_text(encoding="utf-8")
H100 = (REAL / "h100_listings.json").read_text(encoding="utf-8")
RTX4090 = (REAL / "rtx4090_listings.json").read_text(encoding="utf-8")
B300_URL = listings_url("nvidia-b300", None)
H100_URL = listings_url("nvidia-h100", None)


def run(text: str = B300, url: str = B300_URL) -> crawl_process.CrawlResult:
    return run_parsed("compute_pulse", parse_listings(text, url), url=url, is_aggregator=True)


def rows(text: str) -> list[dict]:
    return json.loads(text)["data"]


@pytest.fixture(scope="module")
def b300() -> dict[tuple, dict]:
    return {(o["tier"], o["gpu_count"], o["offer_key"]): o for o in run().items}


def test_the_b300_book_is_9_aggregated_offers(b300):
    result = run()
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 9
    assert all(o["is_aggregator"] and o["price_unit"] == "gpu_hour" for o in result.items)
    # {"id": "11629", "provider": "Verda", "gpu_model": "B300", "gpu_count": 8, "region": "unspecified",
    #  "price_per_gpu_hour": 3.75, "billing_type": "spot", "vram_gb": 268, "gpu_variant": null, ...}
    verda = b300[("Verda", 8, "8x B300 268GB spot/Verda")]
    assert (verda["gpu_model"], verda["billing"], verda["region"], verda["currency"], verda["price_per_gpu_hour"]) == \
        ("B300", "spot", None, "USD", 3.75)
    # {"id": "1754", "provider": "GPU.ai", ..., "gpu_count": 8, "region": "ca", "price_per_gpu_hour": 6.3275,
    #  "billing_type": "on_demand", "available": true}
    gpuai = b300[("GPU.ai", 8, "8x B300 on-demand/GPU.ai @ca")]
    assert (gpuai["price_per_gpu_hour"], gpuai["availability"]) == (6.3275, "available")
    # {"id": "8385", "provider": "Verda", ..., "region": "eu", "price_per_gpu_hour": 7.705, "available": false,
    #  "interconnect": "sxm6", "vram_gb": 288}
    assert b300[("Verda", 8, "8x B300 288GB on-demand/Verda @eu #sxm6")]["availability"] == "not available"


def test_eur_rows_keep_their_own_price_not_the_aggregators_usd(b300):
    # {"id": "11966", "provider": "Scaleway", "gpu_count": 8, "price_per_gpu_hour": 8.7743, "currency": "EUR",
    #  "price_native": 7.5}; sizes (8, 7.5), (4, 8.52), (2, 9.48) EUR per GPU-hour.
    scaleway = {o["gpu_count"]: (o["currency"], o["price_per_gpu_hour"]) for k, o in b300.items() if k[0] == "Scaleway"}
    assert scaleway == {8: ("EUR", 7.5), 4: ("EUR", 8.52), 2: ("EUR", 9.48)}


def test_inr_reserved_with_a_minimum_duration():
    # {"id": "16195", "provider": "Cyfuture AI", "gpu_model": "H100", "gpu_count": 8, "price_per_gpu_hour": 2.1499,
    #  "billing_type": "reserved", "interconnect": "3600 GB/s P2P", "min_duration_hours": 8640, "gpu_variant": "SXM",
    #  "currency": "INR", "price_native": 205.75}
    [cyfuture] = [o for o in listing_offers(rows(H100), H100_URL).offers if o["tier"] == "Cyfuture AI"]
    assert (cyfuture["billing"], cyfuture["reserved_term"], cyfuture["currency"], cyfuture["price_raw"], cyfuture["gpu_label"]) \
        == ("reserved", "min 8640 h", "INR", 205.75, "H100 SXM")


def test_two_listings_of_one_shape_are_one_offer_at_the_lowest_price():
    # rtx4090: ids 1929 (0.135) and 1037 (0.136), both Vast.ai 1x RTX4090 spot in "us", available true.
    result = run_parsed("compute_pulse", listing_offers(rows(RTX4090), "rtx4090"), is_aggregator=True)
    assert judge.judge_crawl(result).status == "ok"
    [vast] = [o for o in result.items if o["tier"] == "Vast.ai" and o["region"] == "us"]
    assert (vast["price_per_gpu_hour"], vast["availability"]) == (0.135, "lowest of 2 listings (2 available)")
    # id 3250 SwissGPU CHF 0.4 per GPU-hour (aggregator USD 0.4923)
    [swiss] = [o for o in result.items if o["tier"] == "SwissGPU"]
    assert (swiss["currency"], swiss["price_per_gpu_hour"], swiss["gpu_model"]) == ("CHF", 0.4, "RTX 4090")


def test_the_empty_mi325x_book_is_no_offer_and_no_error():
    url = listings_url("amd-mi325x", "price_asc")
    parsed = parse_listings(MI325X, url)
    assert (parsed.offers, parsed.errors) == ([], [])


def test_a_unit_switch_fails_the_source():
    text = B300.replace('"price_unit":"USD per GPU hour"', '"price_unit":"USD per instance hour"')
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and "meta.price_unit is 'USD per instance hour'" in outcome.error


def test_one_unreadable_price_holds_that_offer_the_others_load(b300):
    # Issue 20 item 2. {"id":"1754","provider":"GPU.ai","gpu_model":"B300","gpu_count":8,"region":"ca",
    # "price_per_gpu_hour":6.3275,"billing_type":"on_demand",...}: the price changed to the text "N/A":
    # that one offer is held (unpriced, the text kept), the source suspect, the 8 other offers load.
    old = '"region":"ca","price_per_gpu_hour":6.3275,'
    assert B300.count(old) == 1
    result = run(B300.replace(old, '"region":"ca","price_per_gpu_hour":"N/A",'))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 9 row(s) held" in outcome.error and "price_per_gpu_hour unreadable: 'N/A'" in outcome.error
    edited = {(o["tier"], o["gpu_count"], o["offer_key"]): o for o in result.items}
    held = edited[("GPU.ai", 8, "8x B300 on-demand/GPU.ai @ca")]
    assert (held["is_priced"], held["price_raw"], held["price_per_gpu_hour"]) == (False, "N/A", None)
    # {"id": "11629", "provider": "Verda", ..., "price_per_gpu_hour": 3.75, "billing_type": "spot", "vram_gb": 268}
    assert edited[("Verda", 8, "8x B300 268GB spot/Verda")]["price_per_gpu_hour"] == 3.75
    assert {k: o["price_per_gpu_hour"] for k, o in edited.items() if o is not held} == \
        {k: o["price_per_gpu_hour"] for k, o in b300.items() if k != ("GPU.ai", 8, "8x B300 on-demand/GPU.ai @ca")}


def test_a_foreign_currency_row_without_its_native_price_fails():
    text = B300.replace('"currency":"EUR","price_native":7.5,', '"currency":"EUR","price_native":null,')
    assert text != B300
    parsed = parse_listings(text, B300_URL)
    assert parsed.errors == [f"{B300_URL}: 1 price_native is not a price: 11966=None"]


def test_an_unknown_billing_type_fails():
    text = B300.replace('"billing_type":"spot"', '"billing_type":"preemptible"', 1)
    assert parse_listings(text, B300_URL).errors == [
        f"{B300_URL}: 1 billing_type is not on_demand / spot / reserved: 11629='preemptible'"]


# --- paging (the spider, in-process) ---------------------------------------------------------

def response(url, body):
    return TextResponse(url, body=body.encode(), encoding="utf-8", request=Request(url))


def spider():
    crawler = get_crawler(ComputePulseSpider)
    return crawler, ComputePulseSpider.from_crawler(crawler)


def test_the_spider_follows_links_next_and_joins_the_pages():
    crawler, s = spider()
    out = list(s.parse_page(response(H100_URL, H100), slug="nvidia-h100", page=1))
    # "page": {"total": 1025, "limit": 200, "offset": 0, "next_offset": 200},
    # "links": {"next": "https://compute-pulse.com/api/listings?gpu=nvidia-h100&limit=200&offset=200"}
    [following] = [r for r in out if isinstance(r, Request)]
    assert following.url == listings_url("nvidia-h100", None, 200)
    assert not [i for i in out if isinstance(i, OfferItem)]   # offers only once the book is whole
    last = json.dumps({**json.loads(H100), "data": [], "page": {"total": 1025, "limit": 200, "offset": 200,
                                                                  "next_offset": None}, "links": {"next": None}})
    out = list(s.parse_page(response(following.url, last), slug="nvidia-h100", page=2))
    assert sum(isinstance(i, OfferItem) for i in out) == 4
    assert crawler.stats.get_value("pricewatch/layout_errors") is None


def test_a_page_at_the_wrong_offset_or_a_next_link_of_another_query_fails():
    bad = json.dumps({**json.loads(H100), "links": {**json.loads(H100)["links"],
                                                  "next": listings_url("nvidia-b300", None, 200)}})
    crawler, s = spider()
    out = list(s.parse_page(response(H100_URL, bad), slug="nvidia-h100", page=1))
    assert not [r for r in out if isinstance(r, Request)]
    [error] = crawler.stats.get_value("pricewatch/layout_errors")
    assert "links.next" in error and "is not this query at offset 200" in error
    parsed = parse_listings(B300, listings_url("nvidia-b300", None, 200))
    assert parsed.errors == [f"{listings_url('nvidia-b300', None, 200)}: page.offset 0 is not the offset asked (200)"]


def test_replay_of_the_real_capture(crawl):
    result = crawl("compute_pulse", shipped("compute_pulse"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 9
    assert all(i["is_aggregator"] for i in result.items)
    facts = {f["fact"]: f["value_num"] for f in result.facts}
    assert facts == {"listings_total/nvidia-b300": 98, "listings_total/amd-mi325x": 0}

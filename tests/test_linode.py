"""Akamai Cloud (Linode) on its COMPOSED plan-catalog capture (GET api.linode.com/v4/linode/types;
see captures/src/2026-10-29/linode/exchanges.yaml for which values are real and which composed).

Expected values are read off the capture's JSON by hand (quoted). The g1-gpu-rtx6000-1 row is the
one Akamai's docs print for ``linode-cli linodes types --class gpu``: "g1-gpu-rtx6000-1 │ 655360 │ 1 │
8 │ gpu │ Dedicated 32GB + RTX6000 GPU x1 │ 32768 │ ... │ 1.5 │ 1000.0". Unit: ``price.hourly`` =
USD per instance-hour (the whole Linode, all its GPUs).
"""

import json

import pytest
from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from pricewatch.collect import crawl_process, judge
from spiders.items import OfferItem
from spiders.linode import LinodeSpider, page_url, parse_types
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2026-10-29" / "linode" / "types.json").read_text(encoding="utf-8")
URL = page_url(1)


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("linode", parse_types(text, URL), url=URL)


def changed(type_id: str, **fields) -> str:
    doc = json.loads(TEXT)
    [row] = [r for r in doc["data"] if r["id"] == type_id]
    row.update(fields)
    return json.dumps(doc)


def offers(result) -> dict[tuple, dict]:
    return {(o["sku"], o["region"]): o for o in result.items}


def test_four_gpu_types_per_instance_hour_in_usd():
    result = run()
    assert judge.judge_crawl(result).status == "ok"
    got = {sku: (o["gpu_model"], o["gpu_count"], o["vram_gb"], o["variant"], o["price_per_hour"], o["price_per_gpu_hour"])
           for (sku, _), o in offers(result).items()}
    # "Dedicated 32GB + RTX6000 GPU x1", "gpus": 1, "price": {"hourly": 1.5, "monthly": 1000.0}
    assert got["g1-gpu-rtx6000-1"] == ("Quadro RTX 6000", 1, 24, None, 1.5, 1.5)
    # "Dedicated 64GB + RTX6000 GPU x2", "gpus": 2, "hourly": 3.0 -> 1.50 per GPU
    assert got["g1-gpu-rtx6000-2"] == ("Quadro RTX 6000", 2, 24, None, 3.0, 1.5)
    # "RTX4000 Ada x1 Small" 0.52; "RTX4000 Ada x4 Medium" "gpus": 4, "hourly": 3.57 -> 0.8925 per GPU
    assert got["g2-gpu-rtx4000a1-s"] == ("RTX 4000 Ada", 1, 20, "Small", 0.52, 0.52)
    assert got["g2-gpu-rtx4000a4-m"] == ("RTX 4000 Ada", 4, 20, "Medium", 3.57, 0.8925)
    assert len(got) == 4
    assert {(o["currency"], o["price_unit"], o["billing"]) for o in result.items} == {("USD", "instance_hour", "on-demand")}


def test_netint_vpus_and_cpu_plans_are_not_gpu_offers():
    # "g1-accelerated-netint-vpu-t1u1-s", "class": "accelerated", "gpus": 0, "accelerated_devices": 1, 0.42/h;
    # "g6-nanode-1", "class": "nanode"
    skus = {sku for sku, _ in offers(run())}
    assert not skus & {"g1-accelerated-netint-vpu-t1u1-s", "g6-nanode-1"}


def test_region_prices_are_offers_of_their_own():
    text = changed("g2-gpu-rtx4000a1-s", region_prices=[{"id": "id-cgk", "hourly": 0.62, "monthly": 420.0}])
    got = offers(run(text))
    assert got[("g2-gpu-rtx4000a1-s", None)]["price_per_hour"] == 0.52
    assert (got[("g2-gpu-rtx4000a1-s", "id-cgk")]["price_per_hour"], got[("g2-gpu-rtx4000a1-s", "id-cgk")]["region"]) == \
        (0.62, "id-cgk")


def test_a_zero_base_price_is_no_price():
    # The 2026-09-17 probe's layout: the GPU class at a $0 base price.
    zero = {"hourly": 0, "monthly": 0}
    # Without region prices: an unpriced offer, never a free GPU.
    o = offers(run(changed("g1-gpu-rtx6000-1", price=zero)))[("g1-gpu-rtx6000-1", None)]
    assert (o["is_priced"], o["price_per_hour"]) == (False, None)
    # With region prices: the base is no offer, the regions are.
    text = changed("g1-gpu-rtx6000-1", price=zero, region_prices=[{"id": "us-east", "hourly": 1.5, "monthly": 1000.0}])
    parsed = parse_types(text, URL)
    assert [(o["sku"], o.get("region"), o["price_raw"]) for o in parsed.offers if o["sku"] == "g1-gpu-rtx6000-1"] == \
        [("g1-gpu-rtx6000-1", "us-east", 1.5)]
    assert parsed.facts == [{"fact": "gpu_types_priced_only_by_region", "value_num": 1, "value_text": "g1-gpu-rtx6000-1"}]


def test_one_garbled_price_is_held_the_others_load():
    result = run(changed("g2-gpu-rtx4000a4-m", price={"hourly": "3.57/hr", "monthly": 2384.0}))
    assert judge.judge_crawl(result).status == "suspect"
    held = offers(result)[("g2-gpu-rtx4000a4-m", None)]
    assert held["is_priced"] is False and "hourly price '3.57/hr' is not a number" in held["held_row"]
    assert sum(o["is_priced"] for o in result.items) == 3


@pytest.mark.parametrize("text, message", [
    (changed("g1-gpu-rtx6000-2", gpus=1), "label says x2 but gpus is 1"),
    (changed("g1-gpu-rtx6000-1", label="GPU Linode"), "name no GPU and count"),
    (changed("g2-gpu-rtx4000a1-s", price=None), "g2-gpu-rtx4000a1-s has no price.hourly"),
    (changed("g2-gpu-rtx4000a1-s", currency="EUR"), "states currency='EUR'"),
    (TEXT.replace('"class": "gpu"', '"class": "accelerated-gpu"'), "no type of class 'gpu' among 6 types"),
    (TEXT.replace('"data"', '"types"'), "expected a JSON object with a 'data' list"),
    (TEXT.replace('"results": 6', '"results": 60'), "6 types on the only page but results 60"),
    ('{"errors": [{"reason": "Too many requests"}]}', "expected a JSON object with a 'data' list"),
])
def test_changed_layouts_fail(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def spider_pages(bodies):
    """The spider's callbacks on pages 1..n in-process: (items and requests, layout errors)."""
    crawler = get_crawler(LinodeSpider)
    spider = LinodeSpider.from_crawler(crawler)
    out = []
    for n, body in enumerate(bodies, start=1):
        url = page_url(n)
        out += list(spider.parse_page(TextResponse(url, body=body.encode(), encoding="utf-8", request=Request(url)), page=n))
    return out, crawler.stats.get_value("pricewatch/layout_errors")


def test_the_spider_follows_pages_and_counts_results_over_all_of_them():
    doc = json.loads(TEXT)
    first = dict(doc, data=doc["data"][:3], pages=2)
    second = dict(doc, data=doc["data"][3:], page=2, pages=2)
    out, errors = spider_pages([json.dumps(first)])
    assert [r.url for r in out if isinstance(r, Request)] == [page_url(2)]
    out, errors = spider_pages([json.dumps(first), json.dumps(second)])
    assert errors is None and sum(isinstance(i, OfferItem) for i in out) == 4
    # A book shorter than it announced: "results": 7 over both pages, 6 rows read.
    out, errors = spider_pages([json.dumps(dict(first, results=7)), json.dumps(dict(second, results=7))])
    assert errors == [f"https://api.linode.com/v4/linode/types: 6 types on 2 pages but results 7"]


def test_replay_of_the_composed_capture(crawl):
    result = crawl("linode", shipped("linode"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 4

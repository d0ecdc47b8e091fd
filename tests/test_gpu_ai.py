"""GPU.ai on its two REAL recorded pricing pages (api.gpu.ai/v1/pricing, 2026-08-22, excerpts: page 1 with
its real next_cursor, page 2 with next_cursor null; see tests/real/gpuai/SOURCE.md and
captures/src/2026-08-22/gpu_ai/exchanges.yaml).

Expected values are read off the recorded JSON (quoted) or SOURCE.md's asserted values. Unit:
``price_per_hour`` = USD per whole offering (``gpu_count`` GPUs) per hour.
"""

import json

import pytest
from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from pricewatch.collect import crawl_process, judge
from spiders.gpu_ai import PRICING, GpuAiSpider, next_cursor, page_url, parse_pricing
from spiders.items import OfferItem
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

SRC = CAPTURES_SRC / "2026-08-22" / "gpu_ai"
PAGE1 = (SRC / "pricing_page1.json").read_text(encoding="utf-8")
PAGE2 = (SRC / "pricing_page2.json").read_text(encoding="utf-8")
URL2 = page_url(next_cursor(PAGE1))


def run(text: str = PAGE1, url: str = PRICING) -> crawl_process.CrawlResult:
    return run_parsed("gpu_ai", parse_pricing(text, url), url=url)


def changed(offering: str, text: str = PAGE1, **fields) -> str:
    doc = json.loads(text)
    next(r for r in doc["data"] if r["offering_id"] == offering).update(fields)
    return json.dumps(doc)


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return {o["sku"]: o for o in run().items + run(PAGE2, URL2).items}


def test_22_offerings_per_instance_hour(offers):
    assert judge.judge_crawl(run()).status == "ok" and judge.judge_crawl(run(PAGE2, URL2)).status == "ok"
    assert len(offers) == 22
    assert all((o["currency"], o["price_unit"], o["billing"]) == ("USD", "instance_hour", "on-demand") for o in offers.values())
    # SOURCE.md: "offer a0a48d83d5f6 b300 x8 50.62 -> 6.3275/GPU-h, region ca-central, secure"
    b300 = offers["a0a48d83d5f6"]
    assert (b300["gpu_model"], b300["gpu_count"], b300["region"], b300["tier"], b300["variant"], b300["price_per_hour"],
            b300["price_per_gpu_hour"]) == ("B300", 8, "ca-central", "secure", "vm", 50.62, 6.3275)
    # "b200 offers 89ce2d94cfa2 community x1 5.32, e8cf1fc47222 secure x1 6.79, b25408688458 community x8 -> 7.1275"
    assert [(offers[i]["tier"], offers[i]["gpu_count"], offers[i]["price_per_gpu_hour"])
            for i in ("89ce2d94cfa2", "e8cf1fc47222", "b25408688458")] == \
        [("community", 1, 5.32), ("secure", 1, 6.79), ("community", 8, 7.1275)]
    # "ec95461f7fc5 h100_sxm x2 3.47 us-west community -> 1.735"
    assert offers["ec95461f7fc5"]["price_per_gpu_hour"] == 1.735
    # page 2: "8132b1195c60 rtx_3090 x7 1.5 -> 0.2143"; "aea648d95704 h200_sxm secure 3.99 (row without the
    # optional environment key)"
    assert round(offers["8132b1195c60"]["price_per_gpu_hour"], 4) == 0.2143
    assert (offers["aea648d95704"]["gpu_model"], offers["aea648d95704"]["price_per_hour"]) == ("H200", 3.99)


def test_the_real_outlier_is_read_as_printed(offers):
    # "79ff8ac1608a rtx_5090 x4 154.67 (real outlier) -> 38.6675": stored as read; the gate holds it.
    assert (offers["79ff8ac1608a"]["price_per_hour"], offers["79ff8ac1608a"]["price_per_gpu_hour"]) == (154.67, 38.6675)


def test_v100_without_memory_stays_an_unknown_label(offers):
    # "gpu_type": "v100" (16 or 32 GB: the row does not say): stored with no model, reported once.
    assert offers["1cce4da1702d"]["gpu_model"] is None
    assert run(PAGE2, URL2).report["unknown_labels"] == ["v100"]


def test_capacity_class_and_its_boolean_twin_must_agree():
    parsed = parse_pricing(changed("e8cf1fc47222", community=True), PRICING)
    assert parsed.errors == [f"{PRICING}: 1 capacity_class and community disagree: e8cf1fc47222 'secure'/True"]


def test_an_unknown_billing_tier_fails_and_spot_is_spot():
    parsed = parse_pricing(changed("e8cf1fc47222", tier="reserved_1y"), PRICING)
    assert parsed.errors == [f"{PRICING}: 1 tier is not on_demand / spot / interruptible: e8cf1fc47222 tier='reserved_1y'"]
    [spot] = [o for o in run(changed("e8cf1fc47222", tier="spot")).items if o["sku"] == "e8cf1fc47222"]
    assert (spot["billing"], spot["tier"]) == ("spot", "secure")


def test_a_price_as_text_holds_that_offering_and_zero_is_unpriced():
    # Issue 20 item 2. SOURCE.md "e8cf1fc47222 secure x1 6.79" (b200): its price_per_hour changed to
    # the text "6.79 USD": that one offering is held (unpriced, the value kept), the provider suspect,
    # every other row of page 1 loads as recorded.
    real = {o["sku"]: o for o in run().items}
    result = run(changed("e8cf1fc47222", price_per_hour="6.79 USD"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(real)} row(s) held" in outcome.error and "price_per_hour unreadable: '6.79 USD'" in outcome.error
    edited = {o["sku"]: o for o in result.items}
    held = edited["e8cf1fc47222"]
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"], held["tier"]) == (False, "6.79 USD", None, "secure")
    # "89ce2d94cfa2 community x1 5.32": loads as printed
    assert edited["89ce2d94cfa2"]["price_per_gpu_hour"] == 5.32
    assert {k: o["price_per_hour"] for k, o in edited.items() if k != "e8cf1fc47222"} == \
        {k: o["price_per_hour"] for k, o in real.items() if k != "e8cf1fc47222"}
    [row] = [o for o in run(changed("e8cf1fc47222", price_per_hour=0)).items if o["sku"] == "e8cf1fc47222"]
    assert (row["is_priced"], row["price_text"]) == (False, "price_per_hour 0")


def test_a_renamed_envelope_fails():
    outcome = judge.judge_crawl(run(PAGE1.replace('"data":', '"offerings":')))
    assert outcome.status == "failed" and "expected a JSON object with a 'data' list" in outcome.error


# --- cursor paging (the spider, in-process) --------------------------------------------------

def response(url, body):
    return TextResponse(url, body=body.encode(), encoding="utf-8", request=Request(url))


def crawl_pages(*bodies):
    crawler = get_crawler(GpuAiSpider)
    spider = GpuAiSpider.from_crawler(crawler)
    out, url = [], PRICING
    for n, body in enumerate(bodies, start=1):
        got = list(spider.parse_page(response(url, body), page=n))
        out += got
        url = next((r.url for r in got if isinstance(r, Request)), None)
    return out, crawler.stats.get_value("pricewatch/layout_errors")


def test_the_spider_follows_the_real_cursor_to_the_last_page():
    out, errors = crawl_pages(PAGE1, PAGE2)
    assert [r.url for r in out if isinstance(r, Request)] == [URL2]
    assert URL2.startswith(PRICING + "&cursor=MjAyNi0wOC0yMlQxODozNzowM1p8")
    assert errors is None and sum(isinstance(i, OfferItem) for i in out) == 22


def test_a_cursor_loop_is_an_error():
    looping = json.dumps({**json.loads(PAGE2), "next_cursor": next_cursor(PAGE1)})
    out, errors = crawl_pages(PAGE1, looping)
    assert errors == [f"{URL2}: next_cursor points back to a page already read"]


def test_an_empty_book_fails():
    _, errors = crawl_pages('{"data": [], "next_cursor": null}')
    assert errors == [f"{PRICING}: the pricing book is empty"]


def test_replay_of_the_real_capture(crawl):
    result = crawl("gpu_ai", shipped("gpu_ai"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 22
    assert {i["capture"]["source_url"] for i in result.items} == {PRICING, URL2}

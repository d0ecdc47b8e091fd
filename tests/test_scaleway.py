"""Scaleway on its REAL recorded product-catalog pages (Instance API, zone fr-par-2, 2026-08-22, two
excerpts; see tests/real/scaleway/SOURCE.md and captures/src/2026-08-22/scaleway/exchanges.yaml).

Expected values are read off the recorded JSON (quoted) or SOURCE.md ("H100-SXM-8-80G: 25.3308 EUR/h
node -> 3.1663/GPU-h, gpu 8, 80 GB, monthly 18491.484"; "17 GPU rows in total across the two servers
pages. Prices are EUR, not USD"). Unit: ``hourly_price`` = EUR per instance-hour.
"""

import json

import pytest
from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from pricewatch.collect import crawl_process, judge
from spiders.items import OfferItem, SourceFactItem
from spiders.scaleway import ScalewaySpider, parse_servers, servers_url
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

SRC = CAPTURES_SRC / "2026-08-22" / "scaleway"
PAGE1 = (SRC / "servers_page1.json").read_text(encoding="utf-8")
PAGE2 = (SRC / "servers_page2.json").read_text(encoding="utf-8")
URL1, URL2, URL3 = (servers_url("fr-par-2", n) for n in (1, 2, 3))


def run(text: str = PAGE1, url: str = URL1) -> crawl_process.CrawlResult:
    return run_parsed("scaleway", parse_servers(text, url)[0], url=url)


def changed(name: str, text: str = PAGE1, **fields) -> str:
    doc = json.loads(text)
    doc["servers"][name].update(fields)
    return json.dumps(doc)


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return {o["sku"]: o for o in run().items + run(PAGE2, URL2).items}


def test_17_gpu_types_in_eur_per_instance_hour(offers):
    assert len(offers) == 17
    assert all((o["currency"], o["price_unit"], o["region"]) == ("EUR", "instance_hour", "fr-par-2") for o in offers.values())
    # "H100-SXM-8-80G": {"hourly_price": 25.3308, "monthly_price": 18491.484, "gpu": 8,
    #  "gpu_info": {"gpu_name": "H100-SXM", "gpu_memory": 85899345920}}
    h100 = offers["H100-SXM-8-80G"]
    assert (h100["gpu_model"], h100["gpu_count"], h100["vram_gb"], h100["form_factor"], h100["price_per_hour"]) == \
        ("H100", 8, 80, "SXM", 25.3308)
    assert round(h100["price_per_gpu_hour"], 4) == 3.1663
    # "B300-SXM-2-288G": "hourly_price": 18.96, "gpu": 2, "gpu_memory": 309237645312 (288 GiB) -> 9.48 per GPU
    b300 = offers["B300-SXM-2-288G"]
    assert (b300["gpu_model"], b300["vram_gb"], b300["price_per_gpu_hour"]) == ("B300", 288, 9.48)
    # page 2: "RENDER-S": "hourly_price": 1.221, "gpu": 1, "gpu_name": "P100", "gpu_memory": 17179869184
    assert (offers["RENDER-S"]["gpu_model"], offers["RENDER-S"]["vram_gb"], offers["RENDER-S"]["price_per_hour"]) == \
        ("Tesla P100", 16, 1.221)
    # "H100-1-80G" is the PCIe card: "gpu_name": "H100-PCIe"
    assert offers["H100-1-80G"]["form_factor"] == "PCIe"


def test_cpu_only_look_alikes_are_not_offers(offers):
    # "BASIC2-A2C-4G": "hourly_price": 0.023, "gpu": 0, "gpu_info": null
    assert not {"BASIC2-A2C-4G", "BASIC3-X2C-4G", "POP2-HM-2C-16G", "POP2-HN-3"} & set(offers)


def test_eur_is_never_read_as_usd():
    assert judge.judge_crawl(run()).status == "ok"
    # one type stating USD is held, never read as EUR or USD (issue 20 item 2)
    text = changed("L4-1-24G", currency="USD")
    parsed = parse_servers(text, URL1)[0]
    assert parsed.layout_errors == [] and len(parsed.held) == 1 and "currency='USD'" in parsed.held[0]
    [l4] = [o for o in run(text).items if o["sku"] == "L4-1-24G"]
    assert (l4["is_priced"], l4["price_per_hour"], l4["currency"]) == (False, None, "EUR")
    # the whole catalog stating USD fails
    doc = json.loads(PAGE1)
    doc["currency"] = "USD"
    assert parse_servers(json.dumps(doc), URL1)[0].errors == [f"{URL1}: the catalog states currency='USD'; its prices are read as EUR"]


def test_one_unreadable_hourly_price_holds_that_type_the_others_load(offers):
    # Issue 20 item 2. '"H100-SXM-8-80G": {"hourly_price": 25.3308, "monthly_price": 18491.484, "gpu": 8, ...'
    # its hourly_price changed to the text "N/A": that one type is held (unpriced, the text kept), the
    # provider suspect, every other type of page 1 loads as recorded.
    real = {o["sku"]: o for o in run().items}
    result = run(changed("H100-SXM-8-80G", hourly_price="N/A"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(real)} row(s) held" in outcome.error and "hourly_price unreadable: 'N/A'" in outcome.error
    edited = {o["sku"]: o for o in result.items}
    held = edited["H100-SXM-8-80G"]
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"], held["gpu_count"]) == (False, "N/A", None, 8)
    assert held["offer_key"] == offers["H100-SXM-8-80G"]["offer_key"]
    assert {k: o["price_per_hour"] for k, o in edited.items() if k != "H100-SXM-8-80G"} == \
        {k: o["price_per_hour"] for k, o in real.items() if k != "H100-SXM-8-80G"}


def test_a_monthly_figure_in_the_hourly_field_fails_as_a_unit_change():
    # hourly_price becomes the monthly 18491.484 (monthly_price stays): not a €18,491/h H100 box.
    text = changed("H100-SXM-8-80G", hourly_price=18491.484)
    parsed, _ = parse_servers(text, URL1)
    assert parsed.errors == [f"{URL1}: 1 hourly_price x 730 is not monthly_price (unit changed?): "
                             "H100-SXM-8-80G 18491.484/h vs 18491.484/month"]
    assert judge.judge_crawl(run(text)).status == "failed"


def test_a_gpu_count_as_text_and_a_missing_price_fail():
    parsed, _ = parse_servers(changed("L4-2-24G", gpu="2"), URL1)
    assert parsed.errors == [f"{URL1}: 1 gpu is not a GPU count: L4-2-24G='2'"]
    parsed, _ = parse_servers(changed("L4-2-24G", hourly_price=None), URL1)
    assert parsed.errors == [f"{URL1}: 1 hourly_price is not a price: L4-2-24G=None"]


def test_mig_slices_and_end_of_service_types_are_skipped_and_listed():
    text = changed("L40S-1-48G", changed("H100-1-80G", mig_profile="nvidia-mig-1g-10gb"), end_of_service=True)
    result = run(text)
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 14
    assert {f["fact"]: f["value_text"] for f in result.facts} == {
        "mig_slices": "H100-1-80G: nvidia-mig-1g-10gb", "end_of_service_types": "L40S-1-48G"}


def test_an_answer_that_is_not_the_catalog_fails():
    outcome = judge.judge_crawl(run('{"message": "quota exceeded", "type": "quotas_exceeded"}'))
    assert outcome.status == "failed" and "expected a JSON object with a 'servers' object" in outcome.error


# --- paging (the spider, in-process) ---------------------------------------------------------

def response(url, body, headers=None):
    return TextResponse(url, body=body.encode(), encoding="utf-8", headers=headers or {}, request=Request(url))


def pages(bodies, headers=None):
    crawler = get_crawler(ScalewaySpider)
    spider = ScalewaySpider.from_crawler(crawler)
    out = []
    for n, body in enumerate(bodies, start=1):
        out += list(spider.parse_page(response(servers_url("fr-par-2", n), body, headers), zone="fr-par-2", page=n))
    return out, crawler.stats.get_value("pricewatch/layout_errors")


def test_the_spider_asks_until_an_empty_page():
    out, errors = pages([PAGE1])
    assert [r.url for r in out if isinstance(r, Request)] == [URL2]
    out, errors = pages([PAGE1, PAGE2, '{"servers": {}}'])
    assert [r.url for r in out if isinstance(r, Request)] == [URL2, URL3]
    assert errors is None and sum(isinstance(i, OfferItem) for i in out) == 17


def test_x_total_count_ends_the_paging_early_and_a_short_book_fails():
    out, errors = pages([PAGE1], headers={"X-Total-Count": "18"})
    assert not [r for r in out if isinstance(r, Request)] and errors is None
    out, errors = pages([PAGE1, '{"servers": {}}'], headers={"X-Total-Count": "121"})
    assert errors == [f"{URL2}: empty page after 18 of 121 types (X-Total-Count)"]


def test_a_page_repeated_is_an_error_not_twice_the_offers():
    out, errors = pages([PAGE1, PAGE1])
    assert errors == [f"{URL2}: type(s) already listed on an earlier page: B300-SXM-2-288G, B300-SXM-4-288G, B300-SXM-8-288G"]
    assert sum(isinstance(i, OfferItem) for i in out) == 16 and not [r for r in out if isinstance(r, Request)][1:]


def test_facts_are_merged_over_pages():
    one = changed("H100-1-80G", mig_profile="nvidia-mig-1g-10gb")
    two = changed("RENDER-S", PAGE2, mig_profile="nvidia-mig-2g")
    out, _ = pages([one, two, '{"servers": {}}'])
    [fact] = [f for f in out if isinstance(f, SourceFactItem)]
    assert (fact["fact"], fact["value_num"]) == ("mig_slices", 2)


def test_replay_of_the_real_capture(crawl):
    result = crawl("scaleway", shipped("scaleway"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 17
    assert {i["capture"]["source_url"] for i in result.items} == {URL1, URL2}

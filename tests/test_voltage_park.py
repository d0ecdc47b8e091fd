"""Voltage Park on its REAL recorded bare-metal locations answer (cloud-api.voltagepark.com, 2026-08-22,
WHOLE; see tests/real/voltagepark/SOURCE.md and captures/src/2026-08-22/voltage_park/exchanges.yaml).

Expected values are read off the recorded JSON (quoted). Unit: ``gpu_price_ethernet`` /
``gpu_price_infiniband`` = USD per GPU-hour as decimal strings, on an 8-GPU node ("do not multiply by 8").
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.voltage_park import LOCATIONS, parse_locations
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2026-08-22" / "voltage_park" / "locations.json").read_text(encoding="utf-8")


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("voltage_park", parse_locations(text, LOCATIONS), url=LOCATIONS)


def changed(top=None, **fields) -> str:
    doc = json.loads(TEXT)
    doc["results"][0].update(fields)
    doc.update(top or {})
    return json.dumps(doc)


def test_one_sold_out_h100_node_on_two_networks_per_gpu_hour():
    result = run()
    assert judge.judge_crawl(result).status == "ok"
    # "gpu_count_ethernet":0,"gpu_price_ethernet":"1.99","gpu_count_infiniband":0,"gpu_price_infiniband":"2.49",
    # "specs_per_node":{"gpu_model":"h100-sxm5-80gb","gpu_count":8,...}
    got = {o["variant"]: (o["gpu_model"], o["gpu_count"], o["vram_gb"], o["form_factor"], o["price_per_gpu_hour"],
                          o["price_per_hour"], o["availability"]) for o in result.items}
    assert got == {"ethernet": ("H100", 8, 80, "SXM", 1.99, 15.92, "sold out (0 GPUs free)"),
                   "infiniband": ("H100", 8, 80, "SXM", 2.49, 19.92, "sold out (0 GPUs free)")}
    assert {(o["price_unit"], o["currency"], o["price_raw"]) for o in result.items} == \
        {("gpu_hour", "USD", "1.99"), ("gpu_hour", "USD", "2.49")}


def test_free_gpus_are_the_availability():
    [eth] = [o for o in run(changed(gpu_count_ethernet=16)).items if o["variant"] == "ethernet"]
    assert eth["availability"] == "16 GPUs free"


def test_a_node_price_in_the_gpu_field_is_refused_as_text_and_zero_is_unpriced():
    # A "$15.92/node" string is not a decimal per-GPU price: the provider fails rather than store it.
    outcome = judge.judge_crawl(run(changed(gpu_price_ethernet="$15.92/node")))
    assert outcome.status == "failed"
    assert parse_locations(changed(gpu_price_ethernet="$15.92/node"), LOCATIONS).errors == [
        f"{LOCATIONS}: location a3111bd4-550a-47d0-838a-0a52bff2ae3f: gpu_price_ethernet '$15.92/node' is not a decimal price string"]
    [eth] = [o for o in run(changed(gpu_price_ethernet="0.00")).items if o["variant"] == "ethernet"]
    assert (eth["is_priced"], eth["price_text"]) == (False, "gpu_price_ethernet '0.00'")


def test_one_unreadable_price_holds_that_network_the_other_loads():
    # Issue 20 item 2. '"gpu_price_ethernet":"1.99",...,"gpu_price_infiniband":"2.49"': the ethernet
    # price changed to "N/A—": that offer is held (unpriced, the text kept), the provider suspect, the
    # infiniband offer loads at 2.49 per GPU-hour as recorded.
    result = run(changed(gpu_price_ethernet="N/A—"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 2 row(s) held" in outcome.error and "gpu_price_ethernet unread" in outcome.error
    # the monitor line is cut short (the row is named by its location id); the reason in full:
    assert any("gpu_price_ethernet unreadable: 'N/A—'" in m for m in result.report["layout_errors"])
    got = {o["variant"]: (o["is_priced"], o["price_raw"], o["price_per_gpu_hour"], o["gpu_count"]) for o in result.items}
    assert got == {"ethernet": (False, "N/A—", None, 8), "infiniband": (True, "2.49", 2.49, 8)}


def test_a_second_page_is_not_silently_ignored():
    outcome = judge.judge_crawl(run(changed(top={"has_next": True, "total_result_count": 3})))
    assert outcome.status == "failed"
    errors = parse_locations(changed(top={"has_next": True, "total_result_count": 3}), LOCATIONS).errors
    assert errors == [f"{LOCATIONS}: has_next is True: more locations than this page",
                      f"{LOCATIONS}: 1 results on the page but total_result_count 3"]


@pytest.mark.parametrize("text, message", [
    ('{"results":[],"total_result_count":0,"has_previous":false,"has_next":false}', "no location in 'results'"),
    ('{"detail":"Authentication credentials were not provided."}', "expected a JSON object with a 'results' list"),
])
def test_an_answer_without_locations_fails(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_prices_renamed_fail():
    text = TEXT.replace('"gpu_price_ethernet"', '"price_eth"').replace('"gpu_price_infiniband"', '"price_ib"')
    assert parse_locations(text, LOCATIONS).errors == [
        f"{LOCATIONS}: location a3111bd4-550a-47d0-838a-0a52bff2ae3f has none of gpu_price_ethernet, gpu_price_infiniband"]


def test_replay_of_the_real_capture(crawl):
    result = crawl("voltage_park", shipped("voltage_park"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 2

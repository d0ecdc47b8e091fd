"""TensorDock on its COMPOSED locations capture (GET dashboard.tensordock.com/api/v2/locations: the
answer TensorDock's API docs print, the part past the stored copy composed; see
captures/src/2026-10-06/tensordock/exchanges.yaml).

Expected values are read off the capture's JSON by hand (quoted). Unit: ``price_per_hr`` = USD per
GPU-hour for the GPU alone (vCPU, RAM and storage billed on top at the GPU's ``pricing`` rates).
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.tensordock import LOCATIONS, TensorDockSpider, parse_locations
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2026-10-06" / "tensordock" / "locations.json").read_text(encoding="utf-8")
H100 = "loc-uuid-12345/h100-sxm5-80gb"
RTX4090 = "loc-uuid-12345/geforcertx4090-pcie-24gb"


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("tensordock", parse_locations(text, LOCATIONS), url=LOCATIONS)


def changed(n: int, **fields) -> str:
    doc = json.loads(TEXT)
    doc["data"]["locations"][0]["gpus"][n].update(fields)
    return json.dumps(doc)


def by_sku(result) -> dict[str, dict]:
    return {o["sku"]: o for o in result.items}


def test_two_gpu_component_prices_per_gpu_hour():
    result = run()
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # "v0Name": "h100-sxm5-80gb", "displayName": "H100 SXM5 80GB", "max_count": 8, "price_per_hr": 2.2
    # "v0Name": "geforcertx4090-pcie-24gb", "displayName": "NVIDIA GeForce RTX 4090 PCIe 24GB",
    # "max_count": 4, "price_per_hr": 0.5
    assert {s: (o["gpu_model"], o["form_factor"], o["gpu_count"], o["vram_gb"], o["price_per_gpu_hour"])
            for s, o in by_sku(result).items()} == {
        H100: ("H100", "SXM", 1, 80, 2.2),
        RTX4090: ("RTX 4090", "PCIe", 1, 24, 0.5),
    }
    # "city": "Austin", "stateprovince": "Texas", "country": "United States", "tier": 3
    assert by_sku(result)[H100]["region"] == "Austin, Texas, United States"
    assert by_sku(result)[H100]["availability"] == "up to 8 GPUs per VM; location tier 3"
    assert {(o["tier"], o["billing"], o["price_unit"], o["currency"]) for o in result.items} == {
        ("gpu component", "on-demand", "gpu_hour", "USD")}


def test_the_host_parts_are_facts_never_added_to_the_gpu_price():
    # "pricing": {"per_vcpu_hr": 0.003, "per_gb_ram_hr": 0.002, "per_gb_storage_hr": 0.00005}:
    # the H100 offer stays $2.20 per GPU-hour.
    parsed = parse_locations(TEXT)
    facts = {f["fact"]: f["value_text"] for f in parsed.facts}
    assert facts[f"host_prices:{H100}"] == "vCPU 0.003 USD/vCPU-hour, RAM 0.002 USD/GB-hour, storage 0.00005 USD/GB-hour"
    assert by_sku(run())[H100]["price_per_hour"] == 2.2


def test_a_sold_out_gpu_keeps_its_price():
    o = by_sku(run(changed(0, max_count=0)))[H100]
    assert (o["price_per_gpu_hour"], o["availability"]) == (2.2, "sold out (max_count 0); location tier 3")


@pytest.mark.parametrize("value", [0, None])
def test_a_zero_or_null_price_is_an_unpriced_offer(value):
    o = by_sku(run(changed(1, price_per_hr=value)))[RTX4090]
    assert (o["is_priced"], o["price_per_hour"]) == (False, None)


@pytest.mark.parametrize("fields, why", [
    ({"price_per_hr": "0.50/hr"}, "price_per_hr"),
    ({"price_per_hr": True}, "price_per_hr not a price (True)"),
    ({"currency": "EUR"}, "states currency='EUR'"),
])
def test_one_unreadable_price_is_held_the_others_load(fields, why):
    result = run(changed(1, **fields))
    assert judge.judge_crawl(result).status == "suspect"
    held = by_sku(result)[RTX4090]
    assert held["is_priced"] is False and why in held["held_row"]
    assert by_sku(result)[H100]["price_per_gpu_hour"] == 2.2


def test_the_empty_answer_of_2026_10_06_fails():
    # The endpoint answered an empty locations list on 2026-10-06 (PROVIDERS.md section 10).
    outcome = judge.judge_crawl(run('{"data": {"locations": []}}'))
    assert outcome.status == "failed" and "no location in data.locations" in outcome.error


@pytest.mark.parametrize("text, message", [
    (TEXT.replace('"locations"', '"regions"'), "expected a JSON object with a 'locations' list"),
    (TEXT.replace('"data"', '"result"'), "expected a JSON object with a 'data' object"),
    (TEXT.replace('"gpus"', '"gpu_list"'), "location(s) lack an id or a gpus list"),
    (changed(0, v0Name=None), "GPU(s) lack v0Name / displayName / a whole max_count"),
    (changed(1, max_count="4"), "GPU(s) lack v0Name / displayName / a whole max_count"),
    (changed(1, v0Name="h100-sxm5-80gb"), "GPU(s) listed twice in one location"),
    ('{"error": "Unauthorized"}', "expected a JSON object with a 'data' object"),
    ("<html>Just a moment...</html>", "not a JSON document we can read"),
])
def test_changed_layouts_fail(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_off_by_default():
    assert TensorDockSpider.enabled_by_default is False


def test_replay_of_the_composed_capture(crawl):
    result = crawl("tensordock", shipped("tensordock"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 2

"""Cudo Compute on its COMPOSED machine-types capture (rest.compute.cudo.org, dated 2024-03-14: the two
machine types of gpuhunt's test fixture, verbatim, in the answer's "machineTypes" envelope; see
captures/src/2024-03-14/cudo/exchanges.yaml).

Expected values are read off the capture's JSON by hand (snippets quoted). Unit: ``gpuPriceHr.value``
= USD per GPU-hour for the GPU alone (vCPU, memory and storage are billed on top).
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.cudo import MACHINE_TYPES, parse_machine_types
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2024-03-14" / "cudo" / "machine_types.json").read_text(encoding="utf-8")
A5000 = "no-luster-1/epyc-rome-rtx-a5000"
RTX3080 = "br-saopaulo-1/cascade-lake"


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("cudo", parse_machine_types(text, MACHINE_TYPES), url=MACHINE_TYPES)


def changed(n: int, **fields) -> str:
    doc = json.loads(TEXT)
    doc["machineTypes"][n].update(fields)
    return json.dumps(doc)


def by_sku(result) -> dict[str, dict]:
    return {o["sku"]: o for o in result.items}


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def test_two_gpu_component_prices_per_gpu_hour(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # {"dataCenterId": "br-saopaulo-1", "machineType": "cascade-lake", ..., "gpuModel": "RTX 3080", ...,
    #  "gpuPriceHr": {"value": "0.05"}, ...}
    # {"dataCenterId": "no-luster-1", "machineType": "epyc-rome-rtx-a5000", ..., "gpuModel": "RTX A5000", ...,
    #  "gpuPriceHr": {"value": "0.520000"}, ...}
    assert {s: (o["gpu_model"], o["gpu_count"], o["region"], o["price_per_gpu_hour"], o["price_raw"])
            for s, o in by_sku(result).items()} == {
        RTX3080: ("RTX 3080", 1, "br-saopaulo-1", 0.05, "0.05"),
        A5000: ("RTX A5000", 1, "no-luster-1", 0.52, "0.520000"),
    }
    assert {(o["tier"], o["billing"], o["price_unit"], o["currency"]) for o in result.items} == {
        ("gpu component", "on-demand", "gpu_hour", "USD")}


def test_the_host_parts_are_facts_never_added_to_the_gpu_price(result):
    # "vcpuPriceHr": {"value": "0.002100"}, "memoryGibPriceHr": {"value": "0.003400"},
    # "minStorageGibPriceHr": {"value": "0.000107"} (no-luster-1): the A5000 offer stays $0.52.
    facts = {f["fact"]: f["value_text"] for f in result.facts}
    assert facts[f"host_prices:{A5000}"] == \
        "vCPU 0.002100 USD/vCPU-hour, memory 0.003400 USD/GiB-hour, storage 0.000107 USD/GiB-hour"
    assert by_sku(result)[A5000]["price_per_hour"] == 0.52


def test_free_gpus_are_the_availability(result):
    # "maxGpuFree": 4, "totalGpuFree": 7 (no-luster-1)
    assert by_sku(result)[A5000]["availability"] == "7 GPUs free (up to 4 on one host)"
    sold = by_sku(run(changed(1, totalGpuFree=0, maxGpuFree=0)))[A5000]
    assert (sold["availability"], sold["price_per_gpu_hour"]) == ("sold out (0 GPUs free)", 0.52)


def test_a_cpu_machine_type_is_not_an_offer():
    doc = json.loads(TEXT)
    doc["machineTypes"].append({**doc["machineTypes"][0], "machineType": "epyc-milan", "gpuModel": "",
                                "gpuModelId": "", "gpuPriceHr": {"value": "0"}})
    got = run(json.dumps(doc))
    assert set(by_sku(got)) == {RTX3080, A5000}
    assert {f["fact"]: f["value_text"] for f in got.facts}["cpu_only_machine_types"] == "br-saopaulo-1/epyc-milan"


# --- traps and changed layouts -----------------------------------------------------------------

def test_one_garbled_price_holds_that_type_and_the_other_loads():
    got = run(changed(0, gpuPriceHr={"value": "$0.05/hr"}))
    outcome = judge.judge_crawl(got)
    assert outcome.status == "suspect" and "row(s) held" in outcome.error and RTX3080 in outcome.error
    held, other = by_sku(got)[RTX3080], by_sku(got)[A5000]
    assert (held["is_priced"], held["price_per_hour"]) == (False, None)
    assert (other["is_priced"], other["price_per_gpu_hour"]) == (True, 0.52)


def test_a_zero_price_is_no_price():
    zero = by_sku(run(changed(1, gpuPriceHr={"value": "0.000000"})))[A5000]
    assert (zero["is_priced"], zero["price_text"]) == (False, "gpuPriceHr 0.000000")


def test_a_stated_foreign_currency_fails():
    text = changed(1, gpuPriceHr={"value": "0.48", "currency": "EUR"})
    assert judge.judge_crawl(run(text)).status == "failed"
    assert parse_machine_types(text, MACHINE_TYPES).layout_errors == [
        f"{MACHINE_TYPES}: 1 machine type(s) state a currency other than USD: {A5000} gpuPriceHr.currency='EUR'"]


@pytest.mark.parametrize("text, message", [
    ('{"machineTypes": []}', "no machine type in 'machineTypes'"),
    ('{"machine_types": []}', "expected a JSON object with a 'machineTypes' list"),
    ('{"code": 16, "message": "unauthenticated"}', "expected a JSON object with a 'machineTypes' list"),
])
def test_an_answer_without_machine_types_fails(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_renamed_identity_fields_fail():
    text = TEXT.replace('"dataCenterId"', '"data_center_id"')
    assert parse_machine_types(text, MACHINE_TYPES).layout_errors == [
        f"{MACHINE_TYPES}: 2 machine type(s) lack dataCenterId / machineType: #0, #1"]


# --- the one replay through the engine ----------------------------------------------------------

def test_replay_of_the_composed_capture(crawl):
    result = crawl("cudo", shipped("cudo"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 2
    a5000 = by_sku(result)[A5000]
    assert (a5000["price_per_gpu_hour"], a5000["gpu_model"]) == (0.52, "RTX A5000")
    assert a5000["capture"]["source_url"] == MACHINE_TYPES and a5000["capture"]["captured_at"].startswith("2024-03-14T12:00:00")

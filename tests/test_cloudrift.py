"""CloudRift on its COMPOSED instance-types/list capture (api.cloudrift.ai, values of 2026-10-06; no
real recording exists, see captures/src/2026-10-06/cloudrift/exchanges.yaml for what is real shape
and what is composed).

Expected values are read off the capture's JSON by hand (snippets quoted). Unit: ``cost_per_hour``
= US cents per instance-hour (the whole variant), so 62.0 is $0.62/h.
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.cloudrift import API, parse_instance_types
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2026-10-06" / "cloudrift" / "instance_types.json").read_text(encoding="utf-8")


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("cloudrift", parse_instance_types(text, API), url=API)


def changed(variant: str, **fields) -> str:
    doc = json.loads(TEXT)
    for itype in doc["data"]["instance_types"]:
        for v in itype["variants"]:
            if v["name"] == variant:
                v.update(fields)
    return json.dumps(doc)


def by_sku(result) -> dict[str, dict]:
    return {o["sku"]: o for o in result.items}


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def test_eight_gpu_variants_in_cents_per_instance_hour(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    offers = by_sku(result)
    # {"name":"rtxpro6000-epyc-1.1","gpu_count":1,"vram":103079215104,...,"cost_per_hour":134.0,...}
    # {"name":"rtx59-epyc-1.1","gpu_count":1,"vram":34359738368,...,"cost_per_hour":62.0,...}
    # {"name":"rtx49-epyc-1.1","gpu_count":1,"vram":25769803776,...,"cost_per_hour":39.0,...}
    assert {s: (o["gpu_model"], o["gpu_count"], o["vram_gb"], o["price_per_hour"]) for s, o in offers.items()} == {
        "rtxpro6000-epyc-1.1": ("RTX PRO 6000", 1, 96, 1.34),
        "rtxpro6000-epyc-1.2": ("RTX PRO 6000", 2, 96, 2.68),
        "rtxpro6000-xeon-1.1": ("RTX PRO 6000", 1, 96, 1.365),
        "rtxpro6000-epyc-2.1": ("RTX PRO 6000", 1, 96, 1.3936),
        "rtx59-epyc-1.1": ("RTX 5090", 1, 32, 0.62),
        "rtx59-epyc-1.4": ("RTX 5090", 4, 32, 2.48),
        "rtx59-xeon-1.1": ("RTX 5090", 1, 32, 0.65),
        "rtx49-epyc-1.1": ("RTX 4090", 1, 24, 0.39),
    }
    assert {(o["price_unit"], o["currency"], o["billing"]) for o in result.items} == {("instance_hour", "USD", "on-demand")}
    # '"brand_short":"RTX PRO 6000"' is the label as printed.
    assert {o["gpu_label"] for o in result.items} == {"RTX PRO 6000", "RTX 5090", "RTX 4090"}


def test_a_multi_gpu_variant_is_divided_by_its_count(result):
    # {"name":"rtx59-epyc-1.4","gpu_count":4,...,"cost_per_hour":248.0,...}: $2.48/h, $0.62 per GPU-hour
    four = by_sku(result)["rtx59-epyc-1.4"]
    assert (four["price_per_hour"], four["price_per_gpu_hour"]) == (2.48, 0.62)


def test_fractional_cents_are_kept(result):
    # {"name":"rtxpro6000-epyc-2.1",...,"cost_per_hour":139.36,...}
    assert by_sku(result)["rtxpro6000-epyc-2.1"]["price_per_hour"] == 1.3936


def test_cpu_only_variants_are_a_fact_not_offers(result):
    # {"name":"cpu-epyc-1.16","gpu_count":0,...,"cost_per_hour":16.0,...}
    assert "cpu-epyc-1.16" not in by_sku(result)
    [fact] = result.facts
    assert (fact["fact"], fact["value_num"], fact["value_text"]) == ("cpu_only_variants", 1, "cpu-epyc-1.16")


def test_sold_out_and_free_nodes_are_the_availability(result):
    # every GPU variant: "available_nodes":0 -> sold out, the price still stands
    assert {o["availability"] for o in result.items} == {"sold out (0 nodes free)"}
    text = changed("rtx49-epyc-1.1", available_nodes=2, available_nodes_per_dc={"usny01_a01": 2})
    assert by_sku(run(text))["rtx49-epyc-1.1"]["availability"] == "2 nodes free (usny01_a01: 2)"


# --- traps and changed layouts -----------------------------------------------------------------

def test_one_garbled_price_holds_that_variant_and_the_others_load():
    got = run(changed("rtx59-xeon-1.1", cost_per_hour="N/A"))
    outcome = judge.judge_crawl(got)
    assert outcome.status == "suspect" and "row(s) held" in outcome.error and "rtx59-xeon-1.1" in outcome.error
    held = by_sku(got)["rtx59-xeon-1.1"]
    assert (held["is_priced"], held["price_per_hour"]) == (False, None)
    assert len(outcome.offers) == 8 and sum(o["is_priced"] for o in got.items) == 7


def test_zero_cents_is_no_price():
    zero = by_sku(run(changed("rtx49-epyc-1.1", cost_per_hour=0)))["rtx49-epyc-1.1"]
    assert (zero["is_priced"], zero["price_text"], zero["price_per_hour"]) == (False, "cost_per_hour 0", None)


def test_the_price_field_renamed_fails():
    text = TEXT.replace('"cost_per_hour"', '"price_per_hour"')
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and "most rows unreadable" in outcome.error


@pytest.mark.parametrize("text, message", [
    ('{"version":"2025-01-29","data":{"instance_types":[]}}', "no instance type in data.instance_types"),
    ('{"version":"2025-01-29","data":{"types":[]}}', "expected a JSON object with a 'instance_types' list"),
    ('"Unauthorized"', "expected a JSON object with a 'data' object"),
])
def test_an_answer_without_a_catalog_fails(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_a_stated_foreign_currency_fails():
    doc = json.loads(TEXT)
    doc["data"]["currency"] = "EUR"
    outcome = judge.judge_crawl(run(json.dumps(doc)))
    assert outcome.status == "failed" and "currency='EUR'" in outcome.error


def test_a_type_without_brand_short_fails():
    text = TEXT.replace('"brand_short":"RTX 4090"', '"brand":"RTX 4090"')
    assert parse_instance_types(text, API).layout_errors == [
        f"{API}: 1 instance type(s) lack brand_short or a variants list: rtx49-epyc-1"]


# --- the one replay through the engine ----------------------------------------------------------

def test_replay_of_the_composed_capture(crawl):
    result = crawl("cloudrift", shipped("cloudrift"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 8
    five = by_sku(result)["rtx59-epyc-1.1"]
    assert (five["price_per_gpu_hour"], five["gpu_model"]) == (0.62, "RTX 5090")
    assert five["capture"]["source_url"] == API and five["capture"]["captured_at"].startswith("2026-10-06T12:00:00")

"""Hyperbolic on its REAL recorded rental-options answer (api.hyperbolic.ai, 2026-08-29, the whole
13-option list; see tests/real/hyperbolic/SOURCE.md and captures/src/2026-08-29/hyperbolic/exchanges.yaml).

Expected values are read off the recorded JSON (quoted) or SOURCE.md's asserted values. Unit:
``costPerHourCents`` = US cents per option (all ``gpuCount`` GPUs) per hour. The recording's
``providerCostPerHourCents`` values are synthetic (sanitized by the origin) and never read.
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.hyperbolic import RENTAL_OPTIONS, parse_rental_options
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import by_key, run_parsed

TEXT = (CAPTURES_SRC / "2026-08-29" / "hyperbolic" / "rental_options.json").read_text(encoding="utf-8")


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("hyperbolic", parse_rental_options(text, RENTAL_OPTIONS), url=RENTAL_OPTIONS)


def changed(n: int, **fields) -> str:
    """The recording with option #n's fields changed (None removes a field)."""
    options = json.loads(TEXT)
    for k, v in fields.items():
        if v is None:
            options[n].pop(k)
        else:
            options[n][k] = v
    return json.dumps(options)


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return by_key(run())


def test_the_real_answer_is_13_usd_offers_in_cents_per_instance_hour(offers):
    result = run()
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 13 and result.report["unknown_labels"] == []
    assert all((o["currency"], o["price_unit"], o["billing"]) == ("USD", "instance_hour", "on-demand")
               for o in result.items)
    # {"costPerHourCents":319,...,"region":"us-east-1","gpuCount":1,"gpuType":"h100","gpuFormFactor":"sxm5",
    #  ...,"machineType":"virtual-machine"}
    h100 = offers["1x h100 sxm5 on-demand/virtual-machine @us-east-1"]
    assert (h100["gpu_model"], h100["form_factor"], h100["vram_gb"], h100["price_per_hour"]) == ("H100", "SXM", 80, 3.19)
    # {"costPerHourCents":2552,...,"region":"uk-southeast-3","gpuCount":8,"gpuType":"h100","gpuFormFactor":"sxm5",
    #  "connectionType":"infiniband","machineType":"bare-metal"}: $25.52/h for 8 GPUs = 3.19 per GPU-hour.
    bm = offers["8x h100 sxm5 on-demand/bare-metal @uk-southeast-3 #infiniband"]
    assert (bm["gpu_count"], bm["price_per_hour"], bm["price_per_gpu_hour"]) == (8, 25.52, 3.19)
    # {"costPerHourCents":3192,"region":"eu-north-5","gpuCount":8,"gpuType":"h200",...}: 3.99 per GPU-hour.
    assert offers["8x h200 sxm5 on-demand/virtual-machine @eu-north-5"]["price_per_gpu_hour"] == 3.99
    # {"costPerHourCents":275,...,"region":"ca-east-1","gpuType":"h100","gpuFormFactor":"pcie",...,"totalAvailable":2}
    pcie = offers["1x h100 pcie on-demand/virtual-machine @ca-east-1"]
    assert (pcie["form_factor"], pcie["price_per_hour"], pcie["availability"]) == ("PCIe", 2.75, "2 available")
    # SOURCE.md: "13 rows; 3 bare-metal"; eu-north-4 is "ethernetVariant":"rocev2" on a virtual machine.
    assert sum(o["tier"] == "bare-metal" for o in result.items) == 3
    assert "8x h100 sxm5 on-demand/virtual-machine @eu-north-4 #ethernet rocev2" in offers


def test_two_regions_at_one_price_are_two_offers(offers):
    # eu-north-6 and eu-north-7: both H100 SXM5 x1 at "costPerHourCents":358.
    assert [offers[f"1x h100 sxm5 on-demand/virtual-machine @eu-north-{n}"]["price_per_hour"] for n in (6, 7)] == [3.58, 3.58]


def test_the_sanitized_supplier_cost_is_never_read():
    assert by_key(run(changed(0, providerCostPerHourCents=999999))) == by_key(run())


def test_a_dollar_figure_in_the_cents_field_fails_not_a_3_cent_gpu():
    result = run(changed(0, costPerHourCents=3.19))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "failed"
    assert "costPerHourCents is not whole cents (unit changed?): #0 h100 x1 @us-east-1=3.19" in outcome.error


def test_one_unreadable_price_holds_that_option_the_others_load(offers):
    # Issue 20 item 2. Option #0: '"enabled":true,"costPerHourCents":319,...,"region":"us-east-1",
    # "gpuCount":1,"gpuType":"h100","gpuFormFactor":"sxm5"', its price changed to the text "N/A": that
    # one option is held (unpriced, the text kept), the provider suspect, the 12 other options load.
    result = run(changed(0, costPerHourCents="N/A"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 13 row(s) held" in outcome.error and "costPerHourCents unreadable: 'N/A'" in outcome.error
    edited = by_key(result)
    [held] = [i for i in result.items if i["region"] == "us-east-1" and i["gpu_label"] == "h100 sxm5" and i["gpu_count"] == 1]
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "N/A", None)
    assert edited.keys() == offers.keys()
    # option #1: '"costPerHourCents":399,...,"region":"us-east-2","gpuCount":1,"gpuType":"h200"': $3.99
    [h200] = [i for i in result.items if i["region"] == "us-east-2" and i["gpu_label"] == "h200 sxm5" and i["gpu_count"] == 1]
    assert h200["price_per_hour"] == 3.99
    assert {k: o["price_per_hour"] for k, o in edited.items() if k != held["offer_key"]} == \
        {k: o["price_per_hour"] for k, o in offers.items() if k != held["offer_key"]}


def test_a_renamed_price_field_fails_naming_it():
    text = TEXT.replace('"costPerHourCents":', '"pricePerHourUsd":')
    parsed = parse_rental_options(text, RENTAL_OPTIONS)
    assert parsed.offers == [] and len(parsed.errors) == 1
    assert parsed.errors[0].startswith(f"{RENTAL_OPTIONS}: 13 option(s) lack costPerHourCents")


def test_zero_cents_is_unpriced_not_free():
    [o] = [i for i in run(changed(0, costPerHourCents=0)).items if i["region"] == "us-east-1" and i["gpu_label"] == "h100 sxm5"]
    assert (o["is_priced"], o["price_per_hour"], o["price_text"]) == (False, None, "costPerHourCents 0")


def test_a_disabled_option_is_no_offer_and_a_fact():
    result = run(changed(0, enabled=False))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 12
    assert result.facts[0]["fact"] == "disabled_options" and result.facts[0]["value_text"] == "h100 x1 @us-east-1"


def test_nodes_that_disagree_with_the_gpu_count_fail():
    parsed = parse_rental_options(changed(7, gpuCount=4), RENTAL_OPTIONS)
    assert parsed.errors == [f"{RENTAL_OPTIONS}: 1 the nodes' GPU counts do not add up to gpuCount: #7 h100 x4 @uk-southeast-3"]


@pytest.mark.parametrize("text, message", [
    ("[]", "the list of rental options is empty"),
    ('{"detail": "Not authenticated"}', "expected a JSON list of rental options, found dict"),
    ("<html>502 Bad Gateway</html>", "not a JSON document we can read"),
])
def test_an_answer_without_options_fails(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_replay_of_the_real_capture(crawl):
    result = crawl("hyperbolic", shipped("hyperbolic"))
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 13
    assert {i["capture"]["source_url"] for i in result.items} == {RENTAL_OPTIONS}

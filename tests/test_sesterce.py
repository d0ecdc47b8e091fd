"""Sesterce (aggregator) on its REAL recorded console compute page (cloud.sesterce.com/compute, 2026-08-25,
an EXCERPT: the offers-bearing flight chunk, 9 of 82 book entries, cloud ids/names anonymized by the origin;
see tests/real/sesterce_console/SOURCE.md and captures/src/2026-08-25/sesterce/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted as they stand in the HTML, quotes
escaped \\"), never off the parser's output. Unit: ``hourlyPrice`` = USD per instance-hour (gpuCount GPUs).
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.sesterce import COMPUTE, parse_compute
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

BODY = (CAPTURES_SRC / "2026-08-25" / "sesterce" / "compute.html").read_text(encoding="utf-8")

# Real cells the tests edit (each once in the document).
H200 = ('{\\"gpuName\\":\\"H200\\",\\"gpuCount\\":8,\\"spotOfferAvailable\\":false,\\"hourlySpotPrice\\":0,'
        '\\"hourlyPrice\\":28.16,')
H100_BM = ('{\\"gpuName\\":\\"H100\\",\\"gpuCount\\":1,\\"spotOfferAvailable\\":false,\\"hourlySpotPrice\\":0,'
           '\\"hourlyPrice\\":2.189,\\"configuration\\":{\\"ramGB\\":192,')


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("sesterce", parse_compute(body, COMPUTE), url=COMPUTE, is_aggregator=True)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


def by_sku(result) -> dict[tuple, dict]:
    return {(o["sku"], o["billing"]): o for o in result.items}


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def test_the_snippets_are_in_the_recording():
    assert BODY.count(H200) == 1 and BODY.count(H100_BM) == 1


def test_real_book_six_gpu_offers_per_instance_hour(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # '\"gpuName\":\"H200\",\"gpuCount\":8,...\"hourlyPrice\":28.16,...\"vRamGB\":1128,...\"cloud\":{...\"name\":\"AZ_22\"},
    #  \"instanceId\":\"H200x8\"'; RTXPro6000x8 (AZ_02, baremetal) '\"hourlyPrice\":30.008000000000003', vRamGB 768;
    # A100_sxm4_80Gx8 (AZ_07, vm) 24.552000000000003, vRamGB 640; H100 (AZ_02, baremetal) 2.189, vRamGB 80;
    # H100_sxm5 (AZ_07, vm) 4.796, vRamGB 80; A100_sxm4 (AZ_07, vm) 2.189, vRamGB 40.
    got = {k: (o["gpu_label"], o["gpu_model"], o["gpu_count"], o["vram_gb"], o["variant"], o["price_per_hour"])
           for k, o in by_sku(result).items()}
    assert got == {
        ("AZ_22:H200x8", "on-demand"): ("H200", "H200", 8, 141, "vm", 28.16),
        ("AZ_02:RTXPro6000x8", "on-demand"): ("RTXPro6000", "RTX PRO 6000", 8, 96, "baremetal", 30.008000000000003),
        ("AZ_07:A100_sxm4_80Gx8", "on-demand"): ("A100_80G", "A100 80GB", 8, 80, "vm", 24.552000000000003),
        ("AZ_02:H100", "on-demand"): ("H100", "H100", 1, 80, "baremetal", 2.189),
        ("AZ_07:H100_sxm5", "on-demand"): ("H100", "H100", 1, 80, "vm", 4.796),
        ("AZ_07:A100_sxm4", "on-demand"): ("A100", "A100 40GB", 1, 40, "vm", 2.189),
    }
    per_gpu = {k[0]: round(o["price_per_gpu_hour"], 6) for k, o in by_sku(result).items()}
    assert (per_gpu["AZ_22:H200x8"], per_gpu["AZ_02:RTXPro6000x8"], per_gpu["AZ_07:A100_sxm4_80Gx8"]) == (3.52, 3.751, 3.069)
    assert {(o["currency"], o["price_unit"], o["region"]) for o in result.items} == {("USD", "instance_hour", None)}
    assert by_sku(result)[("AZ_02:RTXPro6000x8", "on-demand")]["price_raw"] == 30.008000000000003


def test_every_offer_is_an_aggregator_offer_tiered_by_its_cloud(result):
    # '\"cloud\":{\"_id\":\"aa0000000000000000000001\",\"name\":\"AZ_22\"}': the underlying (anonymized) cloud.
    assert all(o["is_aggregator"] for o in result.items)
    assert {o["tier"] for o in result.items} == {"AZ_22", "AZ_02", "AZ_07"}


def test_two_h100_offers_of_two_clouds_stay_apart(result):
    # H100 baremetal (AZ_02, 2.189) and H100_sxm5 vm (AZ_07, 4.796): two offers, never one conflicting duplicate.
    h100 = [o for o in result.items if o["gpu_model"] == "H100"]
    assert sorted(o["price_per_hour"] for o in h100) == [2.189, 4.796]
    assert result.report["conflicting_duplicates"] == []


def test_form_factor_only_from_the_instance_name(result):
    # 'A100_sxm4_80Gx8' and 'H100_sxm5' name SXM; 'H100' (configuration '\"interconnect\":\"pcie\"') and
    # 'RTXPro6000x8' name none: the catalog's (unknown), never the interconnect field.
    ff = {k[0]: o["form_factor"] for k, o in by_sku(result).items()}
    assert (ff["AZ_07:A100_sxm4_80Gx8"], ff["AZ_07:H100_sxm5"], ff["AZ_07:A100_sxm4"]) == ("SXM", "SXM", "SXM")
    assert (ff["AZ_02:H100"], ff["AZ_22:H200x8"]) == ("unknown", "unknown")


def test_availability_summarises_the_listed_regions(result):
    # RTXPro6000x8: '{\"name\":\"TYO4\",...\"available\":false},{\"name\":\"AMS\",...\"available\":true},' SYD2,
    # chicago-usa-4, ashburn-usa-7 true.
    assert by_sku(result)[("AZ_02:RTXPro6000x8", "on-demand")]["availability"] == \
        "available in 4 of 5 listed regions: AMS, SYD2, chicago-usa-4, ashburn-usa-7"


def test_cpu_offers_and_book_references_are_not_offers(result):
    # '\"gpuName\":\"CPU\",\"gpuCount\":0,...\"hourlyPrice\":0.385,...\"instanceId\":\"cpu_small\"' (and cpu_medium
    # 0.715, cpu_large 1.43); '\"offers\":{\"H200\":[{\"offer\":\"$1b:1:props:filteredOffers:0\",...' is a reference.
    assert "$1b:1:props:filteredOffers:0" in BODY
    assert len(result.items) == 6 and not [o for o in result.items if o["price_per_hour"] in (0.385, 0.715, 1.43)]
    facts = {f["fact"]: f["value_num"] for f in result.facts}
    assert facts == {"offers_in_book": 9, "cpu_only_offers": 3}


def test_spot_only_where_the_book_offers_it(result):
    # Every recorded offer: '\"spotOfferAvailable\":false,\"hourlySpotPrice\":0': no spot offer.
    assert not [o for o in result.items if o["billing"] == "spot"]
    edited = run(BODY.replace(H200, H200.replace('\\"spotOfferAvailable\\":false,\\"hourlySpotPrice\\":0',
                                                 '\\"spotOfferAvailable\\":true,\\"hourlySpotPrice\\":14.08')))
    spot = by_sku(edited)[("AZ_22:H200x8", "spot")]
    assert (spot["price_per_hour"], spot["price_per_gpu_hour"], spot["tier"]) == (14.08, 1.76, "AZ_22")
    assert by_sku(edited)[("AZ_22:H200x8", "on-demand")]["price_per_hour"] == 28.16


def test_a_zero_price_is_an_unpriced_offer_never_zero_dollars():
    result = run(BODY.replace(H200, H200.replace('\\"hourlyPrice\\":28.16', '\\"hourlyPrice\\":0')))
    assert judge.judge_crawl(result).status == "ok"
    h200 = by_sku(result)[("AZ_22:H200x8", "on-demand")]
    assert (h200["is_priced"], h200["price_per_hour"], h200["price_text"]) == (False, None, "hourlyPrice 0")


def test_one_garbled_price_holds_that_offer_the_others_load(result):
    # H100 baremetal '\"hourlyPrice\":2.189' changed to "$2.19/hr" (a string): held, unpriced, the text kept;
    # the provider suspect; the five other offers load as recorded.
    edited = run(BODY.replace(H100_BM, H100_BM.replace('\\"hourlyPrice\\":2.189', '\\"hourlyPrice\\":\\"$2.19/hr\\"')))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted and "1 of 6 row(s) held" in outcome.error
    assert any("hourlyPrice unreadable: '$2.19/hr'" in m for m in edited.report["layout_errors"])
    h100 = by_sku(edited)[("AZ_02:H100", "on-demand")]
    assert (h100["is_priced"], h100["price_raw"], h100["price_per_hour"]) == (False, "$2.19/hr", None)
    assert h100["offer_key"] == by_sku(result)[("AZ_02:H100", "on-demand")]["offer_key"]
    assert len([o for o in edited.items if o["is_priced"]]) == 5


def test_a_stated_foreign_currency_holds_that_offer():
    edited = run(BODY.replace(H200, H200 + '\\"currency\\":\\"EUR\\",'))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and "currency='EUR'" in outcome.error
    assert by_sku(edited)[("AZ_22:H200x8", "on-demand")]["is_priced"] is False


@pytest.mark.parametrize("old, new, message", [
    ('\\"filteredOffers\\":[', '\\"offersList\\":[', "no offers book"),
    ('\\"hourlyPrice\\":28.16', '\\"pricePerHour\\":28.16', "offer(s) without hourlyPrice"),
    ('\\"instanceId\\":\\"H200x8\\"', '\\"instance\\":\\"H200x8\\"', "offer(s) without instanceId"),
])
def test_a_changed_layout_fails(old, new, message):
    assert BODY.count(old) == 1
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and message in outcome.error


def test_no_flight_data_fails():
    outcome = judged("<!DOCTYPE html><html><body><p>Sign in</p></body></html>")
    assert outcome.status == "failed" and "no Next.js flight data" in outcome.error


def test_one_offer_listed_twice_with_two_prices_fails():
    # The H200x8 entry printed again at the end of the book with 28.17: not a price we can tell.
    start = BODY.index(H200)
    end = BODY.index('\\"instanceId\\":\\"H200x8\\"}', start) + len('\\"instanceId\\":\\"H200x8\\"}')
    entry = BODY[start:end]
    tail = '}],\\"selectedGpuModel\\":null,\\"selectedRegions\\":null}]'
    assert BODY.count(tail) == 1
    same = run(BODY.replace(tail, "}," + entry + tail[1:]))
    assert judge.judge_crawl(same).status == "ok" and len(same.items) == 6
    outcome = judged(BODY.replace(tail, "}," + entry.replace("28.16", "28.17") + tail[1:]))
    assert outcome.status == "failed" and "AZ_22:H200x8 on-demand (28.16 vs 28.17)" in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("sesterce", shipped("sesterce"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 6
    h200 = by_sku(result)[("AZ_22:H200x8", "on-demand")]
    assert (h200["price_per_gpu_hour"], h200["gpu_model"], h200["is_aggregator"]) == (3.52, "H200", True)
    assert h200["capture"]["source_url"] == COMPUTE and h200["capture"]["captured_at"].startswith("2026-08-25T12:00:00")

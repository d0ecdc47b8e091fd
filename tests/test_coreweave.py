"""CoreWeave on its REAL recorded pricing page (www.coreweave.com/pricing, Webflow HTML, recorded
2026-08-22, an excerpt: the GPU-instances section plus the head of the CPU section; see
tests/real/coreweave/SOURCE.md and captures/src/2026-08-22/coreweave/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted) or SOURCE.md's asserted
values, never off the parser's output. Prices are USD per instance-hour
("On-Demand Price: <span class="item-value">$68.80</span> / Hour").
"""

from collections import Counter

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.coreweave import parse_pricing
from tests.conftest import CAPTURES, CAPTURES_SRC
from tests.inprocess import by_key, run_parsed

URL = "https://www.coreweave.com/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "coreweave" / "pricing.html").read_text(encoding="utf-8")
CAPTURE = CAPTURES / "2026-08-22" / "coreweave.warc.gz"


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("coreweave", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return by_key(run())


def offer(offers, label, count, tier, region):
    [match] = [o for o in offers.values() if (o["gpu_label"], o["gpu_count"], o["billing"], o["region"])
               == (label, count, tier, region)]
    return match


def test_real_page_is_ok_with_32_prices_na_17_eu_15_on_demand_and_spot():
    result = run()
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: "32 prices (NA 17, EU 15), tiers on-demand + spot."
    priced = Counter(o["region"] for o in result.items if o["is_priced"])
    assert priced == {"North America": 17, "Europe": 15}
    assert {o["billing"] for o in result.items} == {"on-demand", "spot"}
    assert {o["tier"] for o in result.items} == {"on-demand", "spot"}
    assert all(o["price_unit"] == "instance_hour" and o["currency"] == "USD" for o in result.items)
    assert result.report["duplicates_dropped"] == 0 and result.report["unknown_labels"] == []


def test_model_name_printed_twice_is_read_once(offers):
    # Each row: <h3 data-product="nvidia-b200" class="table-model-name">NVIDIA HGX B200</h3> in the
    # desktop cell AND again in the mobile card (the defect: "NVIDIA HGX B200 NVIDIA HGX B200").
    assert BODY.count('class="table-model-name">NVIDIA HGX B200</h3>') == 4  # 2 rows x 2 copies
    assert {o["gpu_label"] for o in offers.values()} == {
        "NVIDIA GB300 NVL72", "NVIDIA GB200 NVL72", "NVIDIA HGX B300", "NVIDIA HGX B200",
        "NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA HGX H100", "NVIDIA HGX H200",
        "NVIDIA GH200", "NVIDIA L40", "NVIDIA L40S", "NVIDIA A100"}
    assert all(o["gpu_model"] for o in offers.values())  # every label of the page resolves


def test_hgx_b200_north_america_on_demand(offers):
    # SOURCE.md: "HGX B200 NA on-demand $68.80 x8 = 8.60/GPU (180 GB, 128 vCPU, 2048 GB RAM, 61.44 TB)".
    # Desktop cells: <div>8</div> <div>180</div> <div>128</div> <div>2,048</div> <div>61.44</div> <div>$68.80</div>
    b200 = offer(offers, "NVIDIA HGX B200", 8, "on-demand", "North America")
    assert (b200["price_per_hour"], b200["price_per_gpu_hour"]) == (68.80, 8.60)
    assert (b200["vram_gb"], b200["gpu_model"], b200["form_factor"]) == (180, "B200", "SXM")
    assert (b200["tier"], b200["reserved_term"], b200["self_service"], b200["is_priced"]) == ("on-demand", None, True, True)
    assert b200["price_text"] is None


def test_regions_are_part_of_the_offer(offers):
    # SOURCE.md: "HGX B200 EU spot $34.87"; the NA row reads Spot Price: $34.11.
    eu = offer(offers, "NVIDIA HGX B200", 8, "spot", "Europe")
    na = offer(offers, "NVIDIA HGX B200", 8, "spot", "North America")
    assert (eu["price_per_hour"], na["price_per_hour"]) == (34.87, 34.11)
    assert eu["offer_key"] != na["offer_key"]
    # SOURCE.md: "HGX H200 EU spot 2.58/GPU" ($20.64 / 8); "L40S NA spot 0.985/GPU" ($7.88 / 8).
    assert offer(offers, "NVIDIA HGX H200", 8, "spot", "Europe")["price_per_gpu_hour"] == 2.58
    assert offer(offers, "NVIDIA L40S", 8, "spot", "North America")["price_per_gpu_hour"] == 0.985


def test_gb200_nvl72_gpu_count_4_footnote_is_four_gpus(offers):
    # <div class="table-meta-value">4^1</div><div>GPU Count</div>; SOURCE.md: "GB200 NVL72 $42.00 per
    # 4-GPU instance (GPU Count cell literally 4^1) = 10.50/GPU, spot N/A".
    assert '<div class="table-meta-value">4^1</div>' in BODY
    for region in ("North America", "Europe"):
        gb200 = offer(offers, "NVIDIA GB200 NVL72", 4, "on-demand", region)
        assert (gb200["price_per_hour"], gb200["price_per_gpu_hour"]) == (42.00, 10.50)
        assert (gb200["gpu_model"], gb200["form_factor"], gb200["vram_gb"]) == ("GB200", "NVL", 186)


def test_footnote_as_superscript_is_not_read_into_the_count():
    body = BODY.replace(">4^1</div>", ">4<sup>1</sup></div>")
    gb200 = offer(by_key(run(body)), "NVIDIA GB200 NVL72", 4, "on-demand", "North America")
    assert gb200["price_per_gpu_hour"] == 10.50


def test_not_offered_tiers_are_no_offers(offers):
    # "Spot Price: <span class="item-value">N/A</span> / Hour" for GB200/GB300 NVL72, GH200 and, in
    # Europe, L40 / L40S: a tier CoreWeave does not offer is not an (unpriced) offer.
    assert not [o for o in offers.values() if o["price_text"] == "N/A"]
    spot = {(o["gpu_label"], o["region"]) for o in offers.values() if o["billing"] == "spot"}
    for label in ("NVIDIA GB200 NVL72", "NVIDIA GB300 NVL72", "NVIDIA GH200"):
        assert (label, "North America") not in spot and (label, "Europe") not in spot
    assert ("NVIDIA L40", "Europe") not in spot and ("NVIDIA L40S", "Europe") not in spot
    assert ("NVIDIA L40", "North America") in spot  # NA L40 Spot Price: $6.27


def test_contact_sales_is_an_unpriced_offer(offers):
    # GB300 NVL72: on-demand span empty, its desktop cell <a href="/contact-us" ...>Contact sales</a>.
    # SOURCE.md: 'GB300 NVL72 "Contact sales" (no price, both regions)'.
    for region in ("North America", "Europe"):
        gb300 = offer(offers, "NVIDIA GB300 NVL72", 4, "on-demand", region)
        assert (gb300["is_priced"], gb300["price_per_hour"], gb300["price_text"]) == (False, None, "Contact sales")
        assert (gb300["self_service"], gb300["gpu_model"]) == (False, "GB300")


def test_hgx_b300_spot_priced_on_demand_contact_sales(offers):
    # SOURCE.md: "HGX B300 spot only: NA 4.48/GPU, EU 4.5875/GPU" (Spot Price: $35.84 and $36.70 per 8 GPUs);
    # its On-Demand column prints the same "Contact sales" link as GB300's: unpriced, not a price.
    assert offer(offers, "NVIDIA HGX B300", 8, "spot", "North America")["price_per_gpu_hour"] == 4.48
    assert offer(offers, "NVIDIA HGX B300", 8, "spot", "Europe")["price_per_gpu_hour"] == 4.5875
    on_demand = offer(offers, "NVIDIA HGX B300", 8, "on-demand", "Europe")
    assert (on_demand["is_priced"], on_demand["price_text"]) == (False, "Contact sales")


def test_gh200_single_gpu(offers):
    # SOURCE.md: "GH200 x1 $6.50".
    gh200 = offer(offers, "NVIDIA GH200", 1, "on-demand", "North America")
    assert (gh200["price_per_hour"], gh200["price_per_gpu_hour"], gh200["gpu_model"]) == (6.50, 6.50, "GH200")


def test_inference_prices_are_not_instance_prices(offers):
    # "Inference Single CPU Price: <span class="item-value">$8.60</span> / Hour" (B200), $6.16 (H100),
    # $10.50 (GB200): another product. No offer is priced at those figures per instance-hour.
    assert 'Inference Single CPU Price: <span class="item-value">$10.50</span>' in BODY
    for label, figure in (("NVIDIA HGX B200", 8.60), ("NVIDIA HGX H100", 6.16), ("NVIDIA GB200 NVL72", 10.50)):
        assert not [o for o in offers.values() if o["gpu_label"] == label and o["price_per_hour"] == figure]
    assert len([o for o in offers.values() if o["gpu_label"] == "NVIDIA GH200"]) == 2  # on-demand, NA + EU


def test_cpu_rows_are_not_gpu_offers(offers):
    cpu = BODY.index("On-demand CPU instances")
    assert "REGION: NORTH AMERICA" in BODY[cpu:] and "AMD Genoa (9274F)" in BODY[cpu:]
    assert not [o for o in offers.values() if "Genoa" in o["gpu_label"] or "AMD" in o["gpu_label"]]
    assert len(offers) == 36  # 32 priced + 4 "Contact sales"


def test_whole_page_envelope_parses_the_same():
    # The live page is a whole HTML document; the recording is its GPU section without the shell.
    wrapped = f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{BODY}</body></html>"
    assert by_key(run(wrapped)).keys() == by_key(run()).keys()


# --- layout variants: each fails with a short message naming what is missing ------------------

@pytest.mark.parametrize("old, new, named", [
    ("table-row-v2", "pricing-row-v3", "table-row-v2"),
    (">On-demand GPU instances<", ">GPU Cloud<", "On-demand GPU instances"),
    ("On-Demand Price: ", "", "On-Demand Price"),
    ("On-Demand Price (Per Hour)", "On-Demand Price (Per GPU Hour)", "(Per Hour)"),
    ("On-Demand Price (Per Hour)", "Price (Per Hour)", "On-Demand Price"),
    ('<div class="table-header-text">Spot Price (Per Hour)</div>', '<div class="table-header-text">Preemptible (Per Hour)</div>',
     "Spot Price"),
    ("</span> / Hour<br/></span>", "</span> / GPU / Hour<br/></span>", "/ Hour"),
    ("Spot Price: <span", "Reserved Price: <span", "Reserved Price"),
    ('<div class="table-meta-value">8</div>', '<div class="table-meta-value">eight</div>', "GPU Count"),
    ("REGION: ", "AREA: ", "REGION"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert old in BODY
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert "coreweave" in outcome.error and named in outcome.error


def test_one_message_per_distinct_problem():
    errors = run(BODY.replace("On-Demand Price: ", "")).report["layout_errors"]
    # Two distinct problems (an unlabeled span, no "On-Demand Price:" span), each once, not once
    # per row (22 GPU rows): the rows are named in the message.
    assert len(errors) == 2 and len(set(errors)) == 2
    assert any(e.startswith('no "On-Demand Price:" span (rows ') for e in errors)
    assert any(e.startswith("a price span has no label (rows ") for e in errors)


def test_desktop_and_mobile_copies_that_disagree_fail():
    # The desktop cell <div>$68.80</div> and the mobile span must say the same price.
    body = BODY.replace("<div>$68.80</div>", "<div>$58.80</div>", 1)
    outcome = judged(body)
    assert outcome.status == "failed" and "printed two ways" in outcome.error and "$58.80" in outcome.error


def test_model_names_that_disagree_fail():
    body = BODY.replace('class="table-model-name">NVIDIA HGX B200</h3>', 'class="table-model-name">NVIDIA B200</h3>', 1)
    outcome = judged(body)
    assert outcome.status == "failed" and "model name printed two ways" in outcome.error


def test_unreadable_price_cell_holds_that_offer_the_others_load():
    # Issue 20 item 2. The first GB200 NVL72 row (North America) prints its on-demand price in both
    # copies: <div>$42.00</div> and "On-Demand Price: <span class="item-value">$42.00</span> / Hour",
    # Spot "N/A". Both copies garbled to "$42.0.0": that one offer is held (unpriced, the text kept),
    # the provider suspect, every other offer loads as on the real page.
    real = by_key(run())
    body = BODY.replace('<div>$42.00</div>', '<div>$42.0.0</div>', 1).replace(
        '<span class="item-value">$42.00</span>', '<span class="item-value">$42.0.0</span>', 1)
    result = run(body)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(real)} row(s) held" in outcome.error and "on-demand price cell unreadable: '$42.0.0'" in outcome.error
    offers = by_key(result)
    held = offer(offers, "NVIDIA GB200 NVL72", 4, "on-demand", "North America")
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "$42.0.0", None)
    assert offers.keys() == real.keys()
    others = {k: (o["is_priced"], o["price_per_hour"]) for k, o in offers.items() if k != held["offer_key"]}
    assert others == {k: (o["is_priced"], o["price_per_hour"]) for k, o in real.items() if k != held["offer_key"]}
    assert sum(o["is_priced"] for o in result.items) == 31   # the real page's 32 prices less the one held


def test_unreadable_price_words_hold_the_offer_not_an_unpriced_offer():
    # "soon" is not "Contact sales": the offer is held with the text, never an ordinary unpriced offer.
    body = BODY.replace('<div>$42.00</div>', '<div>soon</div>').replace(
        '<span class="item-value">$42.00</span>', '<span class="item-value">soon</span>')
    result = run(body)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and "2 of" in outcome.error and "'soon'" in outcome.error
    held = [o for o in result.items if o["price_raw"] == "soon"]
    assert {(o["gpu_label"], o["region"]) for o in held} == {("NVIDIA GB200 NVL72", "North America"),
                                                             ("NVIDIA GB200 NVL72", "Europe")}
    assert not any(o["is_priced"] for o in held)


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("coreweave", CAPTURE)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "ok"
    offers = by_key(result)
    b200 = offer(offers, "NVIDIA HGX B200", 8, "on-demand", "North America")
    assert (b200["price_per_hour"], b200["price_per_gpu_hour"], b200["gpu_model"]) == (68.80, 8.60, "B200")
    assert b200["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
    assert b200["capture"]["source_url"] == URL
    gb300 = offer(offers, "NVIDIA GB300 NVL72", 4, "on-demand", "Europe")
    assert (gb300["is_priced"], gb300["price_text"]) == (False, "Contact sales")
    assert sum(o["is_priced"] for o in result.items) == 32

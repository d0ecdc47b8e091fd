"""Hot Aisle on its REAL recorded pricing page (hotaisle.xyz/pricing, recorded 2026-08-22, an excerpt
closed by "</body></html>"; see tests/real/hotaisle/SOURCE.md and
captures/src/2026-08-22/hot_aisle/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted) or SOURCE.md's asserted
values, never off the parser's output. Prices are USD per GPU-hour ("$2.99/GPU/hr").
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.hot_aisle import parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://hotaisle.xyz/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "hot_aisle" / "pricing.html").read_text(encoding="utf-8")


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("hot_aisle", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def by_count(result) -> dict[int, dict]:
    return {o["gpu_count"]: o for o in result.items}


def test_real_page_is_ok_with_the_three_plans(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: 'plan "Small" (VM, 1x) $2.99/GPU/hr on-demand; plan "Medium" (VM, "2x &amp; 4x" in the
    # HTML) $2.99/GPU/hr on-demand; plan "Large" (Bare metal, 8x) $3.39/GPU/hr with a one-month minimum'.
    offers = by_count(result)
    assert sorted(offers) == [1, 2, 4, 8]
    assert {n: (o["billing"], o["price_per_gpu_hour"]) for n, o in offers.items()} == {
        1: ("on-demand", 2.99), 2: ("on-demand", 2.99), 4: ("on-demand", 2.99), 8: ("reserved", 3.39)}
    # Chip printed "MI300x"; "<strong>192GB</strong> HBM3 Memory" (1x), "384GB or 768GB HBM3" (2x, 4x),
    # "1.5 TB HBM3 Memory" (8x): 192 GB per GPU each.
    assert all((o["gpu_label"], o["gpu_model"], o["vram_gb"]) == ("MI300x", "MI300X", 192) for o in offers.values())
    assert all((o["currency"], o["price_unit"]) == ("USD", "gpu_hour") for o in offers.values())


def test_medium_two_and_four_gpus_are_two_offers(result):
    offers = by_count(result)
    assert (offers[2]["price_per_hour"], offers[4]["price_per_hour"]) == (5.98, 11.96)
    assert offers[2]["offer_key"] != offers[4]["offer_key"]


def test_large_is_a_one_month_commitment_not_on_demand(result):
    # '$3.39/GPU/hr<span ...> <!-- -->bare metal, one-month minimum</span>'; '<a ... href="/contact" ...>Reserve Bare Metal</a>'
    large = by_count(result)[8]
    assert (large["billing"], large["reserved_term"], large["tier"], large["self_service"]) == (
        "reserved", "1 month", "bare metal", False)
    assert not [o for o in result.items if o["billing"] == "on-demand" and o["price_per_gpu_hour"] == 3.39]


def test_grandfathered_rate_is_a_fact_not_an_offer(result):
    # "Existing customers with running compute remain grandfathered at <strong ...>$1.99/GPU/hr</strong>."
    assert not [o for o in result.items if o["price_per_gpu_hour"] == 1.99]
    [fact] = result.facts
    assert (fact["fact"], fact["value_num"]) == ("grandfathered_usd_per_gpu_hour", 1.99)


def test_summary_cards_and_mi355x_links_are_not_offers(result):
    # Hero: '<p ...>Virtual machines</p><p ...>$2.99/GPU/hr</p>' and '8x bare metal ... $3.39/GPU/hr';
    # nav: '<span>MI355X</span>' (no price).
    assert ">Virtual machines</p>" in BODY and "<span>MI355X</span>" in BODY
    assert len(result.items) == 4 and {o["gpu_label"] for o in result.items} == {"MI300x"}


# --- faults ----------------------------------------------------------------------------------

def test_a_unit_switch_fails():
    old = '<p class="mb-3 font-bold text-foreground">$2.99/GPU/hr</p>'
    assert BODY.count(old) == 2
    outcome = judged(BODY.replace(old, '<p class="mb-3 font-bold text-foreground">$2.99/hr</p>', 1))
    assert outcome.status == "failed" and outcome.offers == [] and "$2.99/hr" in outcome.error and "Small" in outcome.error


def test_a_struck_through_old_price_is_not_read():
    old = '<p class="mb-3 font-bold text-foreground">$2.99/GPU/hr</p>'
    body = BODY.replace(old, '<p class="mb-3 font-bold text-foreground"><s>$1.99/GPU/hr</s>$2.99/GPU/hr</p>', 1)
    assert by_count(run(body))[1]["price_per_gpu_hour"] == 2.99
    # only the struck price: that card is held by name (issue 20 item 2), the others load
    outcome = judged(BODY.replace(old, '<p class="mb-3 font-bold text-foreground"><s>$2.99/GPU/hr</s></p>', 1))
    assert outcome.status == "suspect" and "struck through only: $2.99/GPU/hr" in outcome.error


def test_one_unreadable_price_holds_that_plan_the_others_load(result):
    # Issue 20 item 2. Plan "Small" (VM, 1x): <p class="mb-3 font-bold text-foreground">$2.99/GPU/hr</p>
    # (the first of the two such paragraphs), changed to "$2.9.9/GPU/hr": the 1x offer is held (unpriced,
    # the text kept), the provider suspect; Medium 2x/4x $2.99 and Large 8x $3.39 load as on the page.
    old = '<p class="mb-3 font-bold text-foreground">$2.99/GPU/hr</p>'
    edited = run(BODY.replace(old, '<p class="mb-3 font-bold text-foreground">$2.9.9/GPU/hr</p>', 1))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 4 row(s) held" in outcome.error and "price cell unreadable: '$2.9.9/GPU/hr'" in outcome.error
    offers = by_count(edited)
    assert (offers[1]["is_priced"], offers[1]["price_raw"], offers[1]["price_per_gpu_hour"]) == (False, "$2.9.9/GPU/hr", None)
    assert offers[1]["offer_key"] == by_count(result)[1]["offer_key"]
    assert {n: (o["billing"], o["price_per_gpu_hour"]) for n, o in offers.items() if n != 1} == {
        2: ("on-demand", 2.99), 4: ("on-demand", 2.99), 8: ("reserved", 3.39)}


def test_an_unknown_price_note_fails_instead_of_on_demand():
    outcome = judged(BODY.replace("bare metal, one-month minimum", "bare metal, annual contract"))
    assert outcome.status == "failed" and "annual contract" in outcome.error


def test_memory_that_does_not_match_the_counts_fails():
    outcome = judged(BODY.replace("384GB or 768GB</strong> HBM3", "384GB</strong> HBM3"))
    assert outcome.status == "failed" and "Medium" in outcome.error


def test_cards_gone_fails():
    outcome = judged(BODY.replace("<h2 ", "<h3 ").replace("</h2>", "</h3>"))
    assert outcome.status == "failed" and "no plan card" in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("hot_aisle", shipped("hot_aisle"))
    assert judge.judge_crawl(result).status == "ok"
    small = by_count(result)[1]
    assert (small["price_per_gpu_hour"], small["gpu_model"], small["billing"]) == (2.99, "MI300X", "on-demand")
    assert small["capture"]["source_url"] == URL and small["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
    assert len(result.items) == 4

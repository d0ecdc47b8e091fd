"""GMI Cloud on its REAL recorded pricing page (www.gmicloud.ai/en/pricing, Next.js, recorded
2026-08-22, an excerpt closed by "</body></html>"; see tests/real/gmicloud/SOURCE.md and
captures/src/2026-08-22/gmi_cloud/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted) or SOURCE.md's asserted
values, never off the parser's output. Prices are USD per GPU-hour, printed as floors
("<span>from $2.00</span><span>/GPU-hour</span>").
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.gmi_cloud import parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://www.gmicloud.ai/en/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "gmi_cloud" / "pricing.html").read_text(encoding="utf-8")


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("gmi_cloud", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return {o["gpu_label"]: o for o in run().items}


def test_real_page_is_ok_with_four_floors_and_a_pre_order(offers):
    outcome = judge.judge_crawl(run())
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: "NVIDIA GB200 from $8.00 (AVAILABLE NOW); NVIDIA H100 GPU from $2.00 (AVAILABLE NOW);
    # NVIDIA H200 from $2.60 (AVAILABLE NOW); NVIDIA B200 GPU from $4.00 (Limited Availability);
    # NVIDIA GB300 "Pre order" (no price)."
    assert {label: (o["price_per_gpu_hour"], o["availability"]) for label, o in offers.items()} == {
        "NVIDIA GB200": (8.00, "AVAILABLE NOW"), "NVIDIA H100 GPU": (2.00, "AVAILABLE NOW"),
        "NVIDIA H200": (2.60, "AVAILABLE NOW"), "NVIDIA B200 GPU": (4.00, "Limited Availability"),
        "NVIDIA GB300": (None, "AVAILABLE NOW")}
    assert {o["gpu_model"] for o in offers.values()} == {"GB200", "H100", "H200", "B200", "GB300"}
    assert all((o["currency"], o["price_unit"], o["gpu_count"], o["billing"]) == ("USD", "gpu_hour", 1, "on-demand")
               for o in offers.values())


def test_from_prices_are_floors_not_plain_on_demand_prices(offers):
    # "from $2.00" + FAQ "Does pricing differ between on-demand and committed usage? Yes.": a floor.
    h100 = offers["NVIDIA H100 GPU"]
    assert (h100["tier"], h100["price_raw"]) == ("on-demand (from)", "$2.00")
    assert h100["offer_key"] == "1x NVIDIA H100 GPU on-demand/on-demand (from)"


def test_contact_sales_is_the_only_action_so_not_self_service(offers):
    # Under the cards: '<button data-slot="button" ...>Contact Sales<svg ...'; no deploy button.
    assert all(o["self_service"] is False for o in offers.values())
    body = BODY.replace(">Contact Sales<svg", ">Deploy now<svg", 1)
    assert all(o["self_service"] for o in run(body).items if o["is_priced"])


def test_pre_order_is_an_unpriced_offer(offers):
    # '<h3 ...>NVIDIA GB300</h3>...<span ...>Pre order</span><span ...>/GPU-hour</span>'
    gb300 = offers["NVIDIA GB300"]
    assert (gb300["is_priced"], gb300["price_text"], gb300["self_service"]) == (False, "Pre order", False)


def test_description_copies_of_the_h100_floor_are_not_offers(offers):
    # SOURCE.md: '"from $2.00" appears 6 times in the bytes; only one is the H100 card.'
    assert BODY.count("from $2.00") == 6
    assert len(offers) == 5 and [o["gpu_label"] for o in offers.values() if o["price_per_gpu_hour"] == 2.00] == ["NVIDIA H100 GPU"]


def test_a_plain_price_is_on_demand():
    body = BODY.replace(">from $2.60</span>", ">$2.60</span>")
    h200 = {o["gpu_label"]: o for o in run(body).items}["NVIDIA H200"]
    assert (h200["tier"], h200["price_per_gpu_hour"]) == ("on-demand", 2.60)


# --- faults ----------------------------------------------------------------------------------

def test_a_unit_switch_fails():
    old = '>from $8.00</span><span class="text-section-gray leading-3.5 font-mono text-[10px] sm:text-xs">/GPU-hour<'
    assert old in BODY
    outcome = judged(BODY.replace(old, old.replace("/GPU-hour", "/node-hour")))
    assert outcome.status == "failed" and outcome.offers == []
    assert "/node-hour" in outcome.error and "NVIDIA GB200" in outcome.error


def test_a_struck_through_old_price_is_not_read():
    body = BODY.replace(">from $4.00</span>", "><s>from $5.00</s> from $4.00</span>")
    assert {o["gpu_label"]: o for o in run(body).items}["NVIDIA B200 GPU"]["price_per_gpu_hour"] == 4.00
    # only the struck price: that card is held by name (issue 20 item 2), the others load
    outcome = judged(BODY.replace(">from $4.00</span>", "><s>from $4.00</s></span>"))
    assert outcome.status == "suspect" and "struck through only" in outcome.error


def test_a_placeholder_holds_that_card_the_others_load(offers):
    # Issue 20 item 2. The H200 card: <h3>NVIDIA H200</h3> ... <span>from $2.60</span><span>/GPU-hour</span>
    # (SOURCE.md "NVIDIA H200 from $2.60 (AVAILABLE NOW)"), the price changed to "from $—": that one
    # offer is held (unpriced, the text kept), the provider suspect, the other four cards load.
    assert BODY.count(">from $2.60</span>") == 1
    result = run(BODY.replace(">from $2.60</span>", ">from $—</span>"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 5 row(s) held" in outcome.error and "price cell unreadable: 'from $—'" in outcome.error
    edited = {o["gpu_label"]: o for o in result.items}
    held = edited["NVIDIA H200"]
    assert (held["is_priced"], held["price_raw"], held["price_per_gpu_hour"], held["tier"]) == (
        False, "from $—", None, "on-demand (from)")
    assert held["offer_key"] == offers["NVIDIA H200"]["offer_key"]
    assert {label: (o["price_per_gpu_hour"], o["availability"]) for label, o in edited.items() if label != "NVIDIA H200"} == {
        "NVIDIA GB200": (8.00, "AVAILABLE NOW"), "NVIDIA H100 GPU": (2.00, "AVAILABLE NOW"),
        "NVIDIA B200 GPU": (4.00, "Limited Availability"), "NVIDIA GB300": (None, "AVAILABLE NOW")}


def test_cards_gone_fails_naming_what_is_missing():
    outcome = judged(BODY.replace("<h3 ", "<h4 ").replace("</h3>", "</h4>"))
    assert outcome.status == "failed" and outcome.offers == [] and "no GPU card" in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("gmi_cloud", shipped("gmi_cloud"))
    assert judge.judge_crawl(result).status == "ok"
    offers = {o["gpu_label"]: o for o in result.items}
    assert (offers["NVIDIA H200"]["price_per_gpu_hour"], offers["NVIDIA H200"]["gpu_model"]) == (2.60, "H200")
    assert offers["NVIDIA H200"]["capture"]["source_url"] == URL
    assert offers["NVIDIA H200"]["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
    assert len(offers) == 5

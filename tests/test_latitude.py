"""Latitude.sh on its REAL recorded pricing page (www.latitude.sh/pricing, 2026-08-22, an EXCERPT of the
Next.js flight data; see tests/real/latitude/SOURCE.md and captures/src/2026-08-22/latitude/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted as they stand in the HTML, quotes
escaped \\"), never off the parser's output. Unit: the whole server ("node") per hour, in USD and in BRL;
month and year prices are per node-month / node-year.
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.latitude import PRICING, parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

BODY = (CAPTURES_SRC / "2026-08-22" / "latitude" / "pricing.html").read_text(encoding="utf-8")

# The real cells the tests edit (each once in the document).
B300_US = ('\\"stock_level\\":\\"unavailable\\",\\"pricing\\":{\\"USD\\":{\\"hour\\":128,\\"month\\":46720,'
           '\\"year\\":392448},\\"BRL\\":{\\"hour\\":640,\\"month\\":233600,\\"year\\":1962240}}')
RTX_UK = ('\\"pricing\\":{\\"USD\\":{\\"hour\\":null,\\"month\\":null,\\"year\\":null},'
          '\\"BRL\\":{\\"hour\\":0,\\"month\\":0,\\"year\\":0}}')
RTX_AU_USD = '\\"USD\\":{\\"hour\\":66,\\"month\\":24090,\\"year\\":202356}'


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("latitude", parse_pricing(body, PRICING), url=PRICING)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


def offers(result) -> dict[tuple, dict]:
    return {(o["sku"], o["region"], o["currency"]): o for o in result.items}


def facts(result) -> dict[str, dict]:
    return {f["fact"]: f for f in result.facts}


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def test_the_snippets_are_in_the_recording():
    for snippet in (B300_US, RTX_UK, RTX_AU_USD):
        assert BODY.count(snippet) == 1, snippet


def test_real_page_three_gpu_plans_per_node_hour(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    got = {k: (o["gpu_count"], o["gpu_model"], o["price_per_hour"], o["price_per_gpu_hour"])
           for k, o in offers(result).items()}
    # g4-b300-large '\"gpu\":{\"count\":8,\"type\":\"NVIDIA HGX B300\",\"vram_per_gpu\":288,...}', United States
    # '\"USD\":{\"hour\":128,...},\"BRL\":{\"hour\":640,...}';
    # g3-h100-small '\"count\":1,\"type\":\"NVIDIA H100 80GB\"', '\"USD\":{\"hour\":3.37,...},\"BRL\":{\"hour\":18.54,...}';
    # g4-rtx6kpro-large '\"count\":8,\"type\":\"NVIDIA RTX PRO 6000\",\"vram_per_gpu\":96': United States and
    # Netherlands hour 48 / BRL 240, Australia 66 / 330, Japan 52 / 260.
    assert got == {
        ("g4-b300-large", "United States", "USD"): (8, "B300", 128, 16),
        ("g4-b300-large", "United States", "BRL"): (8, "B300", 640, 80),
        ("g3-h100-small", "United States", "USD"): (1, "H100", 3.37, 3.37),
        ("g3-h100-small", "United States", "BRL"): (1, "H100", 18.54, 18.54),
        ("g4-rtx6kpro-large", "United States", "USD"): (8, "RTX PRO 6000", 48, 6),
        ("g4-rtx6kpro-large", "United States", "BRL"): (8, "RTX PRO 6000", 240, 30),
        ("g4-rtx6kpro-large", "Australia", "USD"): (8, "RTX PRO 6000", 66, 8.25),
        ("g4-rtx6kpro-large", "Australia", "BRL"): (8, "RTX PRO 6000", 330, 41.25),
        ("g4-rtx6kpro-large", "Japan", "USD"): (8, "RTX PRO 6000", 52, 6.5),
        ("g4-rtx6kpro-large", "Japan", "BRL"): (8, "RTX PRO 6000", 260, 32.5),
        ("g4-rtx6kpro-large", "Netherlands", "USD"): (8, "RTX PRO 6000", 48, 6),
        ("g4-rtx6kpro-large", "Netherlands", "BRL"): (8, "RTX PRO 6000", 240, 30),
    }
    assert {(o["billing"], o["tier"], o["price_unit"]) for o in result.items} == {("on-demand", "bare metal", "instance_hour")}
    b300 = offers(result)[("g4-b300-large", "United States", "USD")]
    assert (b300["gpu_label"], b300["vram_gb"], b300["price_raw"]) == ("NVIDIA HGX B300", 288, 128)


def test_brl_is_kept_in_brl_beside_usd(result):
    # The same server in the same region in two price lists: two offers (variant = the currency), the
    # BRL one stored as printed in BRL, never converted and never a conflicting duplicate of the USD one.
    usd, brl = (offers(result)[("g4-b300-large", "United States", c)] for c in ("USD", "BRL"))
    assert (usd["variant"], brl["variant"], brl["currency"], brl["price_per_hour"]) == ("USD", "BRL", "BRL", 640)
    assert usd["offer_key"] != brl["offer_key"] and result.report["conflicting_duplicates"] == []


def test_month_and_year_are_facts_not_offers(result):
    # '\"month\":46720,\"year\":392448' (USD) for the B300 node in the United States: per node-month and
    # node-year, never an hourly offer (46720 / 730 h would be 64/h, half the 128/h on-demand price).
    f = facts(result)
    assert f["node_month_price:g4-b300-large@United States#USD"]["value_num"] == 46720
    assert f["node_year_price:g4-b300-large@United States#USD"]["value_num"] == 392448
    assert f["node_month_price:g3-h100-small@United States#USD"]["value_num"] == 1230
    assert f["node_month_price:g4-b300-large@United States#BRL"]["value_num"] == 233600
    assert {o["price_per_hour"] for o in result.items if o["sku"] == "g4-b300-large"} == {128, 640}
    assert not [o for o in result.items if o["billing"] == "reserved"]


def test_null_and_zero_prices_are_no_offer(result):
    # g4-rtx6kpro-large, United Kingdom: '\"USD\":{\"hour\":null,...},\"BRL\":{\"hour\":0,...}' (stock
    # "unavailable"): not offered there in either currency: no offer, never a price of 0.
    assert not [o for o in result.items if o["region"] == "United Kingdom"]
    assert facts(result)["unpriced_regions:g4-rtx6kpro-large"]["value_text"].endswith("United Kingdom")
    # Only the BRL price 0 elsewhere: the USD offer stays, the BRL one is no offer.
    edited = run(BODY.replace('\\"BRL\\":{\\"hour\\":330,', '\\"BRL\\":{\\"hour\\":0,', 1))
    assert judge.judge_crawl(edited).status == "ok"
    assert ("g4-rtx6kpro-large", "Australia", "BRL") not in offers(edited)
    assert offers(edited)[("g4-rtx6kpro-large", "Australia", "USD")]["price_per_hour"] == 66


def test_stock_level_is_availability_and_sold_out_keeps_its_price(result):
    # B300 United States: '\"in_stock\":[]},\"stock_level\":\"unavailable\"' of 9 locations; RTX PRO 6000
    # United States: '\"in_stock\":[\"CHI\"]},\"stock_level\":\"low\"'.
    got = offers(result)
    assert got[("g4-b300-large", "United States", "USD")]["availability"] == "stock unavailable; in stock at none of 9 locations"
    assert got[("g4-b300-large", "United States", "USD")]["is_priced"] is True
    assert got[("g4-rtx6kpro-large", "United States", "USD")]["availability"] == "stock low; in stock at CHI of 9 locations"


def test_cpu_only_plans_are_not_offers(result):
    # '\"slug\":\"c3-large-x86\",...\"gpu\":{}}' and 12 more CPU-only plans in the recording.
    assert {o["sku"] for o in result.items} == {"g4-b300-large", "g4-rtx6kpro-large", "g3-h100-small"}
    cpu = facts(result)["cpu_only_plans"]
    assert cpu["value_num"] == 13 and cpu["value_text"].startswith("c3-large-x86, rs4-metal-xlarge")


def test_a_plan_cut_off_at_the_end_of_the_excerpt_is_no_offer_and_no_error(result):
    # The recording ends inside '\"slug\":\"m4-metal-xlarge\"' (its OS list, "ubuntu_26_04_x64"): not read.
    assert BODY.endswith('\\"ubuntu_26_04_x64')
    assert facts(result)["plans_cut_off"]["value_text"].endswith("m4-metal-xlarge")
    # The same bytes in a closed push string are not a truncated document: the unreadable plan fails.
    outcome = judged(BODY + '"])</script>')
    assert outcome.status == "failed" and "not JSON we can read" in outcome.error


def test_one_garbled_price_holds_that_offer_the_others_load(result):
    # RTX PRO 6000 Australia '\"USD\":{\"hour\":66,...}' changed to "66,00" (a string): that offer is held
    # (unpriced, the text kept), the provider suspect; its BRL price and the other offers load as recorded.
    edited = run(BODY.replace(RTX_AU_USD, RTX_AU_USD.replace('\\"hour\\":66', '\\"hour\\":\\"66,00\\"')))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 12 row(s) held" in outcome.error
    assert any("hour price unreadable: '66,00'" in m for m in edited.report["layout_errors"])
    au = offers(edited)[("g4-rtx6kpro-large", "Australia", "USD")]
    assert (au["is_priced"], au["price_raw"], au["price_per_hour"]) == (False, "66,00", None)
    assert au["offer_key"] == offers(result)[("g4-rtx6kpro-large", "Australia", "USD")]["offer_key"]
    assert offers(edited)[("g4-rtx6kpro-large", "Australia", "BRL")]["price_per_hour"] == 330
    assert len([o for o in edited.items if o["is_priced"]]) == 11


@pytest.mark.parametrize("old, new, message", [
    ('\\"plansData\\":{\\"servers\\":[', '\\"plansData\\":{\\"bareMetal\\":[', "no plan list"),
    (B300_US, B300_US.replace('\\"pricing\\":', '\\"prices\\":'), "without a name and a pricing object"),
    (B300_US, B300_US.replace('\\"hour\\":128', '\\"hourly\\":128'), "that are not '<currency>': {'hour': ...}"),
    ('\\"gpu\\":{\\"count\\":8,\\"type\\":\\"NVIDIA HGX B300\\"', '\\"gpu\\":{\\"type\\":\\"NVIDIA HGX B300\\"',
     "GPU spec(s) without a whole 'count'"),
])
def test_a_changed_layout_fails(old, new, message):
    assert BODY.count(old) == 1
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and message in outcome.error


def test_no_flight_data_fails():
    outcome = judged("<!DOCTYPE html><html><body><h1>Pricing</h1></body></html>")
    assert outcome.status == "failed" and "no Next.js flight data" in outcome.error


def test_one_server_listed_twice_with_two_prices_fails():
    # The plans list printed twice in the flight data (a first copy closed after the recording's last
    # plan, then the recording's own) is one set of offers when the copies agree; the B300's USD hour
    # price 128 in one copy and 129 in the other is not a price.
    start = BODY.index('\\"plansData\\"')
    closed = BODY[start:] + '\\"]}}]},'
    same = run(BODY[:start] + closed + BODY[start:])
    assert judge.judge_crawl(same).status == "ok" and len(same.items) == 12
    outcome = judged(BODY[:start] + closed.replace('\\"hour\\":128,', '\\"hour\\":129,') + BODY[start:])
    assert outcome.status == "failed" and "g4-b300-large@United States#USD (129 vs 128)" in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("latitude", shipped("latitude"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 12
    b300 = offers(result)[("g4-b300-large", "United States", "USD")]
    assert (b300["price_per_gpu_hour"], b300["gpu_model"], b300["billing"]) == (16, "B300", "on-demand")
    assert b300["capture"]["source_url"] == PRICING and b300["capture"]["captured_at"].startswith("2026-08-22T12:00:00")

"""Hetzner's GEX dedicated GPU servers in the website's price feed (live_data_prices.json): every
price is a public reader's note of the feed pulled 2026-10-08, the JSON around it composed (see
captures/src/2026-10-08/hetzner/exchanges.yaml).

Expected values are read off that note (quoted), never off the parser's output: "GEX45
(ROBOT_1768): EUR 212.30 a month ($247.10), EUR 0.3402 an hour, setup EUR 209 ($249). Available in
FSN1, HEL1, NBG1"; "GEX63 (ROBOT_1767): EUR 997.30 ..., EUR 1.5982 an hour, setup EUR 999"; "GEX131
(ROBOT_1747): EUR 1,497.30 ..., EUR 2.3995 an hour, setup EUR 1,499".
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.hetzner import parse_prices
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://www.hetzner.com/_resources/app/data/app/live_data_prices.json"
BODY = (CAPTURES_SRC / "2026-10-08" / "hetzner" / "live_data_prices.json").read_text(encoding="utf-8")
HOURLY = {("GEX45", "FSN1"): 0.3402, ("GEX45", "HEL1"): 0.3402, ("GEX45", "NBG1"): 0.3402,
          ("GEX63", "HEL1"): 1.5982, ("GEX131", "NBG1"): 2.3995, ("GEX131", "FSN1"): 2.3995}


def edited(change) -> str:
    document = json.loads(BODY)
    change(document["products"])
    return json.dumps(document)


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("hetzner", parse_prices(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def offer(result, server: str, centre: str) -> dict:
    [found] = [o for o in result.items if (o["sku"], o["region"]) == (server, centre)]
    return found


def test_the_feed_is_ok_with_one_offer_per_server_and_datacenter(result):
    assert judge.judge_crawl(result).status == "ok"
    assert {(o["sku"], o["region"]): o["price_per_hour"] for o in result.items} == HOURLY
    gex45 = offer(result, "GEX45", "HEL1")
    assert (gex45["gpu_model"], gex45["gpu_count"], gex45["vram_gb"], gex45["price_raw"], gex45["currency"]) == (
        "RTX PRO 4000 SFF", 1, 24, "0.3402", "EUR")
    assert offer(result, "GEX131", "FSN1")["gpu_model"] == "RTX PRO 6000"
    assert all((o["billing"], o["price_unit"], o["self_service"]) == ("on-demand", "instance_hour", True)
               for o in result.items)
    assert result.report["unknown_labels"] == []


def test_monthly_price_and_setup_fee_are_facts_never_summed():
    facts = {f["fact"]: f["value_num"] for f in parse_prices(BODY, URL).facts}
    assert facts == {"monthly_eur/GEX45": 212.30, "setup_fee_eur/GEX45": 209, "monthly_eur/GEX63": 997.30,
                     "setup_fee_eur/GEX63": 999, "monthly_eur/GEX131": 1497.30, "setup_fee_eur/GEX131": 1499}
    # the hourly price is the feed's own figure, not 212.30 / hours nor 212.30 + 209
    assert {o["price_raw"] for o in parse_prices(BODY, URL).offers} == {"0.3402", "1.5982", "2.3995"}


def test_the_ipv4_add_on_and_unknown_keys_are_not_offers(result):
    assert "ROBOT_1266" in BODY                      # "IPv4 add-on (ROBOT_1266): EUR 1.70 a month"
    assert not [o for o in result.items if o["sku"] not in ("GEX45", "GEX63", "GEX131")]


# --- per-row judgement -----------------------------------------------------------------------------

def test_one_garbled_price_holds_that_row_the_others_load(result):
    def garble(p):
        p["ROBOT_1767"]["locations"][0]["prices"]["hourly"]["EUR"] = "1,59.82"
    outcome_run = run(edited(garble))
    outcome = judge.judge_crawl(outcome_run)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 6 row(s) held" in outcome.error and "GEX63 in HEL1: hourly EUR price unreadable" in outcome.error
    held = offer(outcome_run, "GEX63", "HEL1")
    assert (held["is_priced"], held["price_per_hour"]) == (False, None)
    assert sum(o["is_priced"] for o in outcome_run.items) == 5


@pytest.mark.parametrize("value", [None, "", "N/A", 0, "€0.3402x", True])
def test_unreadable_hourly_prices_are_held_never_priced(value):
    def set_it(p):
        p["ROBOT_1768"]["locations"][1]["prices"]["hourly"]["EUR"] = value
    outcome_run = run(edited(set_it))
    assert judge.judge_crawl(outcome_run).status == "suspect"
    assert offer(outcome_run, "GEX45", "HEL1")["is_priced"] is False


def test_a_server_with_a_monthly_price_only_is_held_not_divided_into_hours():
    def drop(p):
        for loc in p["ROBOT_1747"]["locations"]:
            del loc["prices"]["hourly"]
    outcome_run = run(edited(drop))
    outcome = judge.judge_crawl(outcome_run)
    assert outcome.status == "suspect" and "GEX131 in NBG1: no hourly EUR price" in outcome.error
    assert [o["is_priced"] for o in outcome_run.items if o["sku"] == "GEX131"] == [False, False]


def test_a_usd_only_price_is_not_read_as_eur():
    def usd(p):
        p["ROBOT_1767"]["locations"][0]["prices"]["hourly"] = {"USD": "1.90"}
    assert offer(run(edited(usd)), "GEX63", "HEL1")["is_priced"] is False


def test_an_inactive_location_is_no_offer():
    def close(p):
        p["ROBOT_1768"]["locations"][2]["active"] = False
    outcome_run = run(edited(close))
    assert judge.judge_crawl(outcome_run).status == "ok" and len(outcome_run.items) == 5
    assert ("GEX45", "NBG1") not in {(o["sku"], o["region"]) for o in outcome_run.items}


# --- changed layouts -----------------------------------------------------------------------------

def _gone(p):
    del p["ROBOT_1768"]


def _no_locations(p):
    p["ROBOT_1767"] = {"prices": {}}


def _all_inactive(p):
    p["ROBOT_1767"]["locations"][0]["active"] = False


def _no_centre(p):
    del p["ROBOT_1747"]["locations"][0]["datacenter"]


@pytest.mark.parametrize("change, named", [
    (_gone, "no longer in the feed: GEX45 (ROBOT_1768)"),
    (_no_locations, "without a 'locations' list"),
    (_all_inactive, "no active location"),
    (_no_centre, "without a 'datacenter'"),
])
def test_layout_change_fails_naming_what_is_missing(change, named):
    outcome = judged(edited(change))
    assert outcome.status == "failed" and named in outcome.error


@pytest.mark.parametrize("body, named", [
    ('{"items": {}}', "expected a JSON object with a 'products' object"),
    ("<html>Wartung</html>", "not a JSON document"),
    ('{"products": {"ROBOT_1768": {}, "ROBOT_1768": {}}}', "not a JSON document"),
])
def test_a_feed_of_another_shape_fails(body, named):
    outcome = judged(body)
    assert outcome.status == "failed" and outcome.offers == [] and named in outcome.error


# --- the one replay through the engine -------------------------------------------------------------

def test_replay_of_the_shipped_capture(crawl):
    result = crawl("hetzner", shipped("hetzner"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 6
    gex45 = offer(result, "GEX45", "FSN1")
    assert (gex45["price_per_hour"], gex45["gpu_model"], gex45["currency"]) == (0.3402, "RTX PRO 4000 SFF", "EUR")
    assert gex45["capture"]["source_url"] == URL and gex45["capture"]["captured_at"].startswith("2026-10-08T12:00:00")

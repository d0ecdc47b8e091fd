"""Shadeform (aggregator) spider on its recorded 2026-10-29 instance types answer, and the
warehouse rule that an aggregator never becomes "the cheapest provider"."""

import json
from datetime import datetime, timezone

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges
from warehouse import db

OCT29 = CAPTURES / "2026-10-29"
CAPTURE = OCT29 / "shadeform.warc.gz"
MASSED_B200 = "massedcompute:B200x8@us-central-2"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_hourly_price_is_cents_per_instance_hour(crawl):
    offers = by_key(crawl("shadeform", CAPTURE))
    # The capture's hourly_price values: 4120, 2392 and 50 cents.
    b200 = offers[MASSED_B200]
    assert (b200["price_per_hour"], b200["price_per_gpu_hour"], b200["gpu_count"]) == (41.2, 5.15, 8)
    assert offers["lambdalabs:H100x8@us-east-3"]["price_per_hour"] == 23.92
    assert offers["hyperstack:A6000@canada-1"]["price_per_hour"] == 0.5


def test_every_offer_is_an_aggregator_offer_keyed_and_tiered_by_the_underlying_cloud(crawl):
    result = crawl("shadeform", CAPTURE)
    assert result.items and all(i["is_aggregator"] is True for i in result.items)
    b200 = by_key(result)[MASSED_B200]
    assert (b200["provider"], b200["tier"], b200["billing"]) == ("shadeform", "massedcompute", "on-demand")
    assert {i["tier"] for i in result.items} == {"massedcompute", "datacrunch", "lambdalabs", "hyperstack"}
    assert (b200["gpu_model"], b200["form_factor"]) == ("B200", "SXM")
    assert by_key(result)["massedcompute:A100_80G@us-central-2"]["gpu_model"] == "A100 80GB"
    assert result.report["unknown_labels"] == []
    assert collect.judge_crawl(result).status == "ok"


def test_one_offer_per_region_with_its_availability(crawl):
    offers = by_key(crawl("shadeform", CAPTURE))
    assert offers["datacrunch:B200x8@helsinki-finland-1"]["availability"] == "available"
    assert offers["datacrunch:B200x8@helsinki-finland-5"]["availability"] == "unavailable"
    assert offers["datacrunch:B200x8@helsinki-finland-5"]["region"] == "helsinki-finland-5"


def test_cheaper_republished_b200_never_becomes_the_cheapest_offer(crawl, tmp_path):
    # Every 8x B200 source of 2026-10-29 we have next to the cited Massed Compute page.
    providers = ["massed_compute", "shadeform", "runpod", "vultr", "vastai"]
    outcomes = [collect.judge_crawl(crawl(p, OCT29 / f"{p}.warc.gz")) for p in providers]
    assert [o.status for o in outcomes] == ["ok"] * len(providers)
    run, provider_runs, offers, facts = collect.build_run(outcomes, "replay", datetime.now(timezone.utc), None, OCT29)
    con = db.connect(tmp_path / "w.duckdb")
    try:
        assert db.load_run(con, run, provider_runs, offers, facts)
        cheapest = con.execute("""SELECT provider, price_per_hour::DOUBLE FROM cheapest_offer
                                  WHERE gpu_model = 'B200' AND gpu_count = 8 AND billing = 'on-demand'""").fetchall()
        shade = con.execute("SELECT price_per_hour::DOUBLE, is_aggregator FROM latest_offers WHERE provider = 'shadeform' "
                            "AND offer_key = ?", [MASSED_B200]).fetchall()
        compared = {p for (p,) in con.execute(
            """SELECT DISTINCT provider FROM latest_offers WHERE gpu_model = 'B200' AND gpu_count = 8
               AND billing = 'on-demand' AND is_priced AND self_service AND NOT is_aggregator""").fetchall()}
        marketplace = con.execute("""SELECT provider, price_per_hour::DOUBLE FROM cheapest_offer
                                     WHERE gpu_model = 'B200' AND gpu_count = 8 AND billing = 'marketplace'""").fetchall()
    finally:
        con.close()
    # Published page 1: "cheapest self-service on-demand 8x B200: $43.46/h at Massed Compute".
    assert cheapest == [("massed_compute", 43.46)]
    assert shade == [(41.2, True)]  # stored, just never "a provider" of its own
    assert compared == {"massed_compute", "runpod", "vultr"}
    # Vast.ai marketplace listings are compared among marketplace offers only.
    assert marketplace == [("vastai", 29.87)]


def test_error_answer_without_instance_types_fails_naming_provider(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "shadeform")
    ex[0]["body"] = json.dumps({"error": "missing X-API-KEY header"})
    outcome = collect.judge_crawl(crawl("shadeform", make_warc(ex)))
    assert outcome.status == "failed"
    assert "shadeform" in outcome.error and "'instance_types' list" in outcome.error
    assert outcome.offers == []


def test_renamed_price_field_fails_naming_the_field(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "shadeform")
    ex[0]["body"] = ex[0]["body"].replace(b'"hourly_price":', b'"hourly_price_cents":')
    outcome = collect.judge_crawl(crawl("shadeform", make_warc(ex)))
    assert outcome.status == "failed"
    assert "shadeform" in outcome.error and "lacks hourly_price" in outcome.error

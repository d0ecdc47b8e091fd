"""Vast.ai spider on its recorded 2026-10-29 marketplace search (bundles API)."""

import json

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "vastai.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_real_offer_is_read_per_instance_with_its_region_and_vram(crawl):
    offers = by_key(crawl("vastai", CAPTURE))
    # ../shared/sources/samples/vastai.bundles_offer.json: RTX 4090, gpu_ram 24564 MiB,
    # dph_total 0.2466759259259259, min_bid 0.2, geolocation "Guangxi, CN".
    real = offers["11684738"]
    assert (real["gpu_model"], real["gpu_count"], real["vram_gb"]) == ("RTX 4090", 1, 24)
    assert real["price_per_hour"] == 0.2466759259259259
    assert (real["billing"], real["tier"], real["region"]) == ("marketplace", "on-demand", "Guangxi, CN")
    bid = offers["11684738:bid"]
    assert (bid["billing"], bid["tier"], bid["price_per_hour"]) == ("spot", "interruptible", 0.2)


def test_marketplace_keeps_every_listing_and_prices_whole_instances(crawl):
    result = crawl("vastai", CAPTURE)
    b200x8 = {i["offer_key"]: i for i in result.items
              if i["gpu_model"] == "B200" and i["gpu_count"] == 8 and i["billing"] == "marketplace"}
    assert set(b200x8) == {"25140977", "24987215"}
    # dph_total is for all num_gpus GPUs: $29.87 for 8 is $3.73375 per GPU.
    assert b200x8["25140977"]["price_per_hour"] == 29.87
    assert b200x8["25140977"]["price_per_gpu_hour"] == 3.73375
    assert b200x8["24987215"]["region"] == "Texas, US"
    assert collect.judge_crawl(result).status == "ok"
    assert result.report["unknown_labels"] == []


def test_same_machine_listed_twice_is_one_offer_but_another_gpu_count_is_not(crawl):
    result = crawl("vastai", CAPTURE)
    offers = by_key(result)
    # Machine 41207 as 8x B200 at $29.87 (offer 25140977) and again at $31.20 (25141003).
    assert "25141003" not in offers and "25141003:bid" not in offers
    assert offers["25140977"]["price_per_hour"] == 29.87
    assert result.report["duplicates_dropped"] == 1
    # The same machine's 4x B200 listing is a different offer.
    assert offers["25140978"]["gpu_count"] == 4


def test_gpu_ram_in_mib_picks_a100_40gb_or_80gb(crawl):
    offers = by_key(crawl("vastai", CAPTURE))
    # Both are labelled "A100 SXM4": 40960 MiB vs 81920 MiB per GPU.
    assert (offers["21500921"]["gpu_label"], offers["21500921"]["gpu_model"]) == ("A100 SXM4", "A100 40GB")
    assert (offers["22015564"]["gpu_label"], offers["22015564"]["gpu_model"]) == ("A100 SXM4", "A100 80GB")
    assert offers["22015564"]["form_factor"] == "SXM"


def test_error_answer_without_offers_fails_naming_provider(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "vastai")
    ex[0]["body"] = json.dumps({"success": False, "error": "invalid_args", "msg": "unknown field offset"})
    outcome = collect.judge_crawl(crawl("vastai", make_warc(ex)))
    assert outcome.status == "failed"
    assert "vastai" in outcome.error and "'offers' list" in outcome.error
    assert outcome.offers == []


def test_offers_without_dph_total_fail_naming_the_field(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "vastai")
    answer = json.loads(ex[0]["body"])
    for offer in answer["offers"]:  # a renamed price field must not pass as "no price"
        offer["dph"] = offer.pop("dph_total")
    ex[0]["body"] = json.dumps(answer)
    outcome = collect.judge_crawl(crawl("vastai", make_warc(ex)))
    assert outcome.status == "failed"
    assert "vastai" in outcome.error and "dph_total" in outcome.error

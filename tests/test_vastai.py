"""Vast.ai on its real 2026-08-22 bundles answers (tests/real/vast, shipped as captures/2026-08-22/vastai).

Every expected value below is read off the recorded JSON (the snippet is quoted beside it) or
off tests/real/vast/SOURCE.md, never off the parser's output.
"""

import json
from pathlib import Path

import yaml

from pricewatch.collect import judge
from spiders.base import Parsed
from spiders.vastai import QUERIES, VastaiSpider, parse_bundles, search_url
from tests.conftest import CAPTURES, CAPTURES_SRC
from tests.inprocess import run_parsed

REAL = Path(__file__).resolve().parent / "real" / "vast"
SRC = CAPTURES_SRC / "2026-08-22" / "vastai"
CAPTURE = CAPTURES / "2026-08-22" / "vastai.warc.gz"

H100_ASC = search_url("H100 SXM", "asc", 8)
H100_DESC = search_url("H100 SXM", "desc", 8)
B300_ASC = search_url("B300", "asc", 8)
H200_NVL_ASC = search_url("H200 NVL", "asc", 4)
BUNDLES_ANY = "https://console.vast.ai/api/v0/bundles/"  # no query: no gpu_name to check
ANSWERS = {H100_ASC: "h100_sxm_asc.json", H100_DESC: "h100_sxm_desc.json", B300_ASC: "b300_asc.json",
           H200_NVL_ASC: "h200_nvl_asc.json"}


def body(name: str) -> str:
    return (SRC / name).read_text()


def parse_all(answers: dict[str, str] = ANSWERS) -> Parsed:
    parsed = Parsed()
    for url, name in answers.items():
        parsed.extend(parse_bundles(body(name), url))
    return parsed


def offer(result, sku: str, billing: str = "marketplace") -> dict:
    found = [i for i in result.items if i["sku"] == sku and i["billing"] == billing]
    assert len(found) == 1, (sku, billing, len(found))
    return found[0]


def real_offer(name: str, n: int = 0) -> dict:
    return json.loads(body(name))["offers"][n]


# --- the real answers -------------------------------------------------------------------


def test_capture_is_the_real_recording_at_the_urls_the_spider_asks_for():
    spec = yaml.safe_load((SRC / "exchanges.yaml").read_text())
    assert {ex["url"]: ex["body_file"] for ex in spec["exchanges"]} == ANSWERS
    assert {search_url(*q) for q in VastaiSpider.queries} == set(ANSWERS)
    assert all(limit <= 64 for _, _, limit in QUERIES)  # the server clamps a page to 64 offers
    for name in ANSWERS.values():  # byte copies of the recording
        assert (SRC / name).read_bytes() == (REAL / name).read_bytes()
    assert {ex["captured_at"] for ex in spec["exchanges"]} == {"2026-08-22T12:00:00Z"}
    assert (SRC / "exchanges.yaml").read_text().startswith("# REAL recording")


def test_cheapest_h100_listing_is_a_marketplace_offer_per_instance_with_its_bid_floor():
    result = run_parsed("vastai", parse_all())
    assert judge.judge_crawl(result).status == "ok"
    # h100_sxm_asc.json, first offer: "id": 48285735, "dph_total": 1.3867407407407408, "geolocation": ", US",
    # "gpu_name": "H100 SXM", "gpu_ram": 81559, "machine_id": 148199, "min_bid": 0.39999999999999997,
    # "num_gpus": 1, "verification": "unverified"
    o = offer(result, "48285735")
    assert (o["gpu_label"], o["gpu_model"], o["gpu_count"], o["vram_gb"], o["form_factor"]) == \
        ("H100 SXM", "H100", 1, 80.0, "SXM")
    assert (o["billing"], o["tier"], o["price_unit"], o["currency"]) == \
        ("marketplace", "on-demand", "instance_hour", "USD")
    assert o["price_per_hour"] == 1.3867407407407408 == o["price_per_gpu_hour"]
    assert o["region"] == "US"  # ", US": no city given, the country is the region
    assert o["availability"] == "rentable, unverified"
    bid = offer(result, "48285735", "spot")
    assert (bid["tier"], bid["price_per_hour"], bid["region"]) == ("interruptible", 0.39999999999999997, "US")


def test_merged_h100_book_keeps_every_listing_and_the_8x_box_is_priced_per_instance():
    result = run_parsed("vastai", parse_all({H100_ASC: "h100_sxm_asc.json", H100_DESC: "h100_sxm_desc.json"}))
    market = [i for i in result.items if i["billing"] == "marketplace"]
    # SOURCE.md: "merged ASC+DESC book: 16 offers, 14 machines, per-GPU min 1.3867, max 5.0939".
    assert len(market) == 16 and len({i["sku"] for i in market}) == 16
    per_gpu = sorted(i["price_per_gpu_hour"] for i in market)
    assert round(per_gpu[0], 4) == 1.3867 and round(per_gpu[-1], 4) == 5.0939
    # Machine 146215 twice: the 1x slice in ASC ("id": 48370126, "dph_total": 1.9348161481481483) and the 8x box
    # in DESC ("id": 48370130, "num_gpus": 8, "dph_total": 15.468158814814817): two rentals, two offers.
    slice_, box = offer(result, "48370126"), offer(result, "48370130")
    assert (slice_["gpu_count"], slice_["price_per_hour"]) == (1, 1.9348161481481483)
    assert (box["gpu_count"], box["price_per_hour"]) == (8, 15.468158814814817)
    assert round(box["price_per_gpu_hour"], 4) == 1.9335  # SOURCE.md: "an 8× box at 1.9335/GPU-h"
    assert box["region"] == "New Jersey, US"
    # The box's "min_bid": 19.2 is above its dph_total: kept as read, per instance (2.4 per GPU).
    bid = offer(result, "48370130", "spot")
    assert (bid["price_per_hour"], bid["price_per_gpu_hour"]) == (19.2, 2.4)
    # "machine_id": 142073 ... "verification": "deverified", 4x at 12.271999999999998: still rentable, kept.
    deverified = offer(result, "43189291")
    assert (deverified["gpu_count"], deverified["price_per_hour"]) == (4, 12.271999999999998)
    assert deverified["availability"] == "rentable, deverified"
    # "id": 47905648, "num_gpus": 8, "dph_total": 35.159555555555556, "geolocation": "Japan, JP"
    assert (offer(result, "47905648")["price_per_hour"], offer(result, "47905648")["region"]) == \
        (35.159555555555556, "Japan, JP")


def test_b300_thin_book_one_machine_two_gpu_counts():
    result = run_parsed("vastai", parse_bundles(body("b300_asc.json"), B300_ASC))
    # "id": 47419089, "machine_id": 144888, "num_gpus": 2, "dph_total": 15.002083333333335, "min_bid": 11.25
    # "id": 47419091, "machine_id": 144888, "num_gpus": 4, "dph_total": 30.00208333333334, "min_bid": 22.5
    # "gpu_ram": 275040, "geolocation": "Utah, US"
    two, four = offer(result, "47419089"), offer(result, "47419091")
    assert (two["gpu_label"], two["gpu_model"], two["gpu_count"], two["price_per_hour"]) == \
        ("B300", "B300", 2, 15.002083333333335)
    assert (four["gpu_count"], four["price_per_hour"], four["region"]) == (4, 30.00208333333334, "Utah, US")
    assert round(four["price_per_gpu_hour"], 4) == 7.5005  # SOURCE.md: "30.00208333333334 → 7.5005/GPU-h"
    assert offer(result, "47419091", "spot")["price_per_hour"] == 22.5
    assert len(result.items) == 4


def test_h200_nvl_is_read_as_its_own_label():
    result = run_parsed("vastai", parse_bundles(body("h200_nvl_asc.json"), H200_NVL_ASC))
    # "id": 47111252, "machine_id": 146771, "gpu_name": "H200 NVL", "gpu_ram": 143771, "num_gpus": 1,
    # "dph_total": 2.6688888888888886, "geolocation": "California, US"
    o = offer(result, "47111252")
    assert (o["gpu_label"], o["gpu_count"], o["vram_gb"]) == ("H200 NVL", 1, 141.0)
    assert (o["price_per_gpu_hour"], o["region"]) == (2.6688888888888886, "California, US")
    assert len([i for i in result.items if i["billing"] == "marketplace"]) == 4


def test_gpu_ram_in_mib_tells_a100_40gb_from_80gb():
    # ewyluda_vast.json (a projection of real offers): {"gpu_name": "A100 SXM4", "gpu_ram": 40960, ...} and
    # {"gpu_name": "A100 SXM4", "gpu_ram": 81920, ...}. Put into a real offer's full record (a variant).
    answer = json.loads(body("h100_sxm_asc.json"))
    answer["offers"] = answer["offers"][:2]
    for o, mib in zip(answer["offers"], (40960, 81920)):
        o["gpu_name"], o["gpu_ram"] = "A100 SXM4", mib
    result = run_parsed("vastai", parse_bundles(json.dumps(answer), search_url("A100 SXM4")))
    assert offer(result, "48285735")["gpu_model"] == "A100 40GB"
    assert offer(result, "48317589")["gpu_model"] == "A100 80GB"


def test_same_listing_in_both_windows_is_one_offer():
    # A book of at most 8 offers: the ASC and DESC answers hold the same listings.
    parsed = parse_all({H100_ASC: "h100_sxm_asc.json"})
    parsed.extend(parse_bundles(body("h100_sxm_asc.json"), H100_DESC))
    result = run_parsed("vastai", parsed)
    assert len(result.items) == 16 and result.report["duplicates_dropped"] == 16
    assert judge.judge_crawl(result).status == "ok"


def test_listings_nobody_can_rent_and_bids_are_not_offers():
    answer = json.loads(body("h200_nvl_asc.json"))
    answer["offers"][0]["rentable"] = False
    answer["offers"][1]["rented"] = True
    answer["offers"][2]["is_bid"] = True
    parsed = parse_bundles(json.dumps(answer), H200_NVL_ASC)
    assert parsed.errors == []
    assert {o["sku"] for o in parsed.offers} == {"47771077"}


# --- layout variants: each fails with one short line naming what is missing --------------


def judged(text: str, url: str = H100_ASC):
    return judge.judge_crawl(run_parsed("vastai", parse_bundles(text, url)))


def test_error_object_fails_in_one_short_line():
    outcome = judged(json.dumps({"success": False, "error": "invalid_args", "msg": "unknown field offset"}))
    assert outcome.status == "failed" and outcome.offers == []
    assert outcome.error == ("vastai: layout changed: bundles 'H100 SXM' asc limit 8: the API answered an error "
                             "(invalid_args unknown field offset)")


def test_null_offers_fails_in_one_short_line():
    outcome = judged(json.dumps({"offers": None}))
    assert outcome.status == "failed"
    assert outcome.error == "vastai: layout changed: bundles 'H100 SXM' asc limit 8: expected an 'offers' list, found null"


def test_projection_without_the_envelope_or_ids_is_not_read():
    # ewyluda_vast.json: a bare list of offers, 4 fields each (gpu_name, gpu_ram, num_gpus, dph_total).
    projection = (REAL / "ewyluda_vast.json").read_text()
    assert parse_bundles(projection, H100_ASC).errors == [
        "bundles 'H100 SXM' asc limit 8: expected an 'offers' list, found a JSON array"]
    wrapped = parse_bundles(json.dumps({"offers": json.loads(projection)}), BUNDLES_ANY)
    assert wrapped.offers == []
    assert wrapped.errors == ["bundles: 138 of 138 offers lack a valid id",
                              "bundles: 138 of 138 offers lack a valid machine_id"]



def test_renamed_price_field_fails_naming_it_once():
    answer = json.loads(body("h100_sxm_asc.json"))
    for o in answer["offers"]:
        o["dph"] = o.pop("dph_total")
    outcome = judged(json.dumps(answer))
    assert outcome.status == "failed"
    assert outcome.error == "vastai: layout changed: bundles 'H100 SXM' asc limit 8: 8 of 8 offers lack a valid dph_total"


def test_one_unreadable_dph_total_holds_that_listing_the_others_load():
    # Issue 20 item 2. h100_sxm_asc.json, first offer: "id": 48285735, "dph_total": 1.3867407407407408,
    # "min_bid": 0.39999999999999997; dph_total garbled to "$1.3.8": that listing's marketplace offer is
    # held (unpriced, the text kept), the provider suspect; its bid floor and the 7 other listings
    # (and their bids) load as recorded.
    real = run_parsed("vastai", parse_bundles(body("h100_sxm_asc.json"), H100_ASC))
    text = body("h100_sxm_asc.json")
    assert text.count('"dph_total": 1.3867407407407408') == 1
    result = run_parsed("vastai", parse_bundles(text.replace('"dph_total": 1.3867407407407408', '"dph_total": "$1.3.8"'),
                                                H100_ASC))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 16 row(s) held" in outcome.error and "dph_total unreadable" in outcome.error and "'$1.3.8'" in outcome.error
    held = offer(result, "48285735")
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "$1.3.8", None)
    assert offer(result, "48285735", "spot")["price_per_hour"] == 0.39999999999999997
    # the second listing, read off the answer: "id": 48317589, "dph_total": 1.492888888888889
    assert offer(result, "48317589")["price_per_hour"] == 1.492888888888889
    others = sorted((i["offer_key"], i["price_per_hour"]) for i in result.items if i is not held)
    assert others == sorted((i["offer_key"], i["price_per_hour"]) for i in real.items
                            if i["offer_key"] != held["offer_key"])
    assert all(i["is_priced"] for i in result.items if i is not held)


def test_answer_of_another_gpu_fails_the_query():
    # The H200 NVL answer served for the H100 SXM query: the gpu_name filter no longer holds.
    outcome = judged(body("h200_nvl_asc.json"), H100_ASC)
    assert outcome.status == "failed"
    assert "4 of 4 offers are not 'H100 SXM'" in outcome.error


def test_empty_book_is_no_offer_and_no_error():
    parsed = parse_bundles('{"offers": []}', search_url("MI300X"))
    assert (parsed.offers, parsed.errors) == ([], [])


# --- the one subprocess replay -----------------------------------------------------------


def test_replay_of_the_shipped_capture(crawl):
    result = crawl("vastai", CAPTURE)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "ok", outcome.error
    # 4 answers: 8 + 8 + 2 + 4 listings, every one with a min_bid: 22 marketplace + 22 spot offers.
    assert len(result.items) == 44
    assert result.report["unknown_labels"] == []
    cheapest = offer(result, "48285735")
    assert (cheapest["price_per_hour"], cheapest["gpu_model"], cheapest["capture"]["source_url"]) == \
        (1.3867407407407408, "H100", H100_ASC)
    assert cheapest["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
    assert offer(result, "48370130")["capture"]["source_url"] == H100_DESC
    assert offer(result, "47419091")["price_per_hour"] == 30.00208333333334
    assert offer(result, "47111252", "spot")["price_per_hour"] == 0.4666666666666666  # "min_bid": 0.4666666666666666

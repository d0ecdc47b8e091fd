"""RunPod spider on its real GraphQL gpuTypes answers.

Expected values are read off the recordings (tests/real/runpod/SOURCE.md and the JSON files):
* the shipped capture captures/src/2026-09-28/runpod/graphql_gpuTypes.json = the WHOLE
  48-type body of ewyluda/gpu-price-index tests/fixtures/runpod.json (fields id, displayName,
  memoryInGb, securePrice, communityPrice only);
* tests/real/runpod/gputypes.json, the 2026-08-25 EXCERPT (9 of 48 types) of a larger query
  that also asked for secureCloud/communityCloud, spot prices and maxGpuCount.
"""

import asyncio
import json

from warcio.archiveiterator import ArchiveIterator

from pricewatch.collect import judge
from spiders.runpod import API, RunpodSpider, parse_gpu_types
from tests.conftest import CAPTURES, CAPTURES_SRC, ROOT
from tests.inprocess import run_parsed

SHIPPED = CAPTURES / "2026-09-28" / "runpod.warc.gz"
WHOLE = (CAPTURES_SRC / "2026-09-28" / "runpod" / "graphql_gpuTypes.json").read_text()
EXCERPT = (ROOT / "tests" / "real" / "runpod" / "gputypes.json").read_text()


def offers_of(result):
    """(gpu label, tier, billing, gpu count) -> offer."""
    out = {}
    for item in result.items:
        key = (item["gpu_label"], item["tier"], item["billing"], item["gpu_count"])
        assert key not in out, key
        out[key] = item
    return out


def parsed_offers(text):
    result = run_parsed("runpod", parse_gpu_types(text, API), url=API)
    return result, offers_of(result)


def failure(text):
    outcome = judge.judge_crawl(run_parsed("runpod", parse_gpu_types(text, API), url=API))
    assert outcome.status == "failed" and outcome.offers == []
    return outcome.error


# --- the one subprocess replay -------------------------------------------------------------

def test_replay_of_the_real_2026_09_28_answer(crawl):
    result = crawl("runpod", SHIPPED)
    offers = offers_of(result)
    # SOURCE.md "Values in the file": H100 80GB HBM3 3.49 / 2.69; H200 ("H200 SXM", 141 GB)
    # 4.59 / 3.59; B200 (180 GB) 6.79 / 5.98; B300 SXM6 AC (288 GB) 7.89 / 6.94.
    expected = {"NVIDIA H100 80GB HBM3": (80, 3.49, 2.69), "NVIDIA H200": (141, 4.59, 3.59),
                "NVIDIA B200": (180, 6.79, 5.98), "NVIDIA B300 SXM6 AC": (288, 7.89, 6.94)}
    for label, (vram, secure, community) in expected.items():
        for tier, price in (("secure", secure), ("community", community)):
            offer = offers[(label, tier, "on-demand", 1)]
            assert (offer["price_per_gpu_hour"], offer["price_per_hour"], offer["vram_gb"],
                    offer["price_unit"], offer["currency"]) == (price, price, vram, "gpu_hour", "USD")
    h100 = offers[("NVIDIA H100 80GB HBM3", "secure", "on-demand", 1)]
    assert (h100["gpu_model"], h100["form_factor"]) == ("H100", "SXM")   # displayName "H100 SXM"
    assert h100["capture"]["source_url"] == API
    assert h100["capture"]["captured_at"].startswith("2026-09-28")
    assert len(result.items) == 76        # counted below (test_every_priced_type_becomes_offers)
    assert judge.judge_crawl(result).status == "ok"


def test_the_shipped_capture_answers_the_spiders_request():
    """Replay matches by URL only (pricewatch/archive.ReplayIndex.next_response); the recorded
    request is a POST to the URL the spider posts to, asking a subset of the spider's fields."""
    async def first_request():
        async for request in RunpodSpider().start():
            return request
    request = asyncio.run(first_request())
    assert (request.method, request.url) == ("POST", API)
    recorded = []
    with open(SHIPPED, "rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type == "request":
                recorded.append((record.rec_headers.get_header("WARC-Target-URI"),
                                 record.http_headers.protocol, record.content_stream().read()))
    assert [(url, method) for url, method, _ in recorded] == [(API, "POST")]
    recorded_query = json.loads(recorded[0][2])["query"]
    # ewyluda/gpu-price-index src/gpu_index/sources/runpod.py @ d789fed5:
    assert recorded_query == "query { gpuTypes { id displayName memoryInGb securePrice communityPrice } }"
    asked = set(json.loads(request.body)["query"].replace("{", " ").replace("}", " ").split())
    assert set(recorded_query.replace("{", " ").replace("}", " ").split()) <= asked


# --- the whole 48-type answer (no flags, no spot prices, no maxGpuCount) --------------------

def test_every_priced_type_becomes_offers_consumer_and_workstation_cards_included():
    result, offers = parsed_offers(WHOLE)
    document = json.loads(WHOLE)["data"]["gpuTypes"]
    assert len(document) == 48
    # 47 GPU types besides "unknown"; each has at least one price that is not 0 or 0.5.
    assert {i["gpu_label"] for i in result.items} == {g["id"] for g in document} - {"unknown"}
    # Read off the file: securePrice is 0 for 6 types (A100-SXM4-40GB, RTX 3070, 3080, 3080 Ti,
    # both V100s) and 0.5 for 6 (RTX 3090, 4070 Ti, 4080, 4080 SUPER, A2000, PRO 6000 Max-Q):
    # 47 - 12 = 35 secure offers; communityPrice is 0.5 for 6 (MI300X, H200 NVL, RTX 2000 Ada,
    # RTX PRO 4000, RTX PRO 4500 SE, PRO 6000 MIG 24GB): 41 community offers.
    tiers = [i["tier"] for i in result.items]
    assert (tiers.count("secure"), tiers.count("community"), len(tiers)) == (35, 41, 76)
    assert {i["billing"] for i in result.items} == {"on-demand"}   # no spot fields asked
    # {"id": "NVIDIA GeForce RTX 5090", "displayName": "RTX 5090", "memoryInGb": 32,
    #  "securePrice": 0.99, "communityPrice": 0.69}
    assert offers[("NVIDIA GeForce RTX 5090", "secure", "on-demand", 1)]["price_per_gpu_hour"] == 0.99
    assert offers[("NVIDIA GeForce RTX 5090", "community", "on-demand", 1)]["vram_gb"] == 32
    # {"id": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "memoryInGb": 96,
    #  "securePrice": 2.19, "communityPrice": 1.69}
    wk = offers[("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "secure", "on-demand", 1)]
    assert (wk["price_per_gpu_hour"], wk["vram_gb"]) == (2.19, 96)
    # {"id": "NVIDIA RTX A4500", "memoryInGb": 20, "securePrice": 0.25, "communityPrice": 0.19}
    assert offers[("NVIDIA RTX A4500", "community", "on-demand", 1)]["price_per_gpu_hour"] == 0.19
    # {"id": "NVIDIA GeForce RTX 3080", "securePrice": 0, "communityPrice": 0.17}
    assert offers[("NVIDIA GeForce RTX 3080", "community", "on-demand", 1)]["price_per_gpu_hour"] == 0.17


def test_labels_not_in_the_catalog_are_stored_and_the_snapshot_is_ok():
    result, offers = parsed_offers(WHOLE)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "ok" and outcome.error is None
    assert len(outcome.offers) == 76
    # Every label the catalog does not know is reported as news, not as a fault.
    unknown = {i["gpu_label"] for i in result.items if i["gpu_model"] is None}
    assert set(result.report.get("unknown_labels", [])) == unknown
    assert len(outcome.warnings) == len(unknown)
    # Labels the catalog resolves today:
    assert offers[("AMD Instinct MI300X OAM", "secure", "on-demand", 1)]["gpu_model"] == "MI300X"
    assert offers[("NVIDIA H200", "secure", "on-demand", 1)]["gpu_model"] == "H200"
    assert offers[("NVIDIA GeForce RTX 4090", "secure", "on-demand", 1)]["gpu_model"] == "RTX 4090"


def test_zero_and_placeholder_prices_and_the_unknown_entry_are_not_offers():
    result, offers = parsed_offers(WHOLE)
    labels_tiers = {(i["gpu_label"], i["tier"]) for i in result.items}
    # securePrice 0: not offered in Secure Cloud.
    for label in ("NVIDIA A100-SXM4-40GB", "NVIDIA GeForce RTX 3070", "Tesla V100-PCIE-16GB",
                  "Tesla V100-SXM2-16GB"):
        assert (label, "secure") not in labels_tiers and (label, "community") in labels_tiers
    # {"id": "NVIDIA A100-SXM4-40GB", ..., "securePrice": 0, "communityPrice": 1}
    assert offers[("NVIDIA A100-SXM4-40GB", "community", "on-demand", 1)]["price_per_gpu_hour"] == 1.0
    # 0.5 without the *Cloud flag is the not-offered placeholder: {"id": "NVIDIA H200 NVL",
    # "securePrice": 3.79, "communityPrice": 0.5}; {"id": "AMD Instinct MI300X OAM",
    # "securePrice": 2.39, "communityPrice": 0.5} (communityCloud false in the 2026-08-25 answer);
    # {"id": "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "securePrice": 0.5,
    # "communityPrice": 1.64}.
    assert ("NVIDIA H200 NVL", "community") not in labels_tiers
    assert offers[("NVIDIA H200 NVL", "secure", "on-demand", 1)]["price_per_gpu_hour"] == 3.79
    assert ("AMD Instinct MI300X OAM", "community") not in labels_tiers
    assert ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "secure") not in labels_tiers
    maxq = offers[("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "community", "on-demand", 1)]
    assert maxq["price_per_gpu_hour"] == 1.64
    assert all(i["price_per_gpu_hour"] not in (0, 0.5) for i in result.items)
    # {"id": "unknown", "displayName": "unknown", "memoryInGb": 0, "securePrice": 0, ...}
    assert "unknown" not in {i["gpu_label"] for i in result.items}


def test_without_max_gpu_count_offers_are_one_gpu_at_the_per_gpu_rate():
    result, offers = parsed_offers(WHOLE)
    assert {i["gpu_count"] for i in result.items} == {1}
    assert all(i["price_per_hour"] == i["price_per_gpu_hour"] for i in result.items)


def test_vram_and_form_factor_come_from_the_answer():
    _, offers = parsed_offers(WHOLE)

    def first(label):
        return next(o for k, o in offers.items() if k[0] == label)
    # memoryInGb: B300 SXM6 AC 288, H100 NVL 94, RTX 4000 Ada 20, RTX A2000 6.
    assert first("NVIDIA B300 SXM6 AC")["vram_gb"] == 288
    assert first("NVIDIA H100 NVL")["vram_gb"] == 94
    assert first("NVIDIA RTX 4000 Ada Generation")["vram_gb"] == 20
    assert first("NVIDIA RTX A2000")["vram_gb"] == 6
    # "NVIDIA H200" / "H200 SXM"; "NVIDIA A100 80GB PCIe" / "A100 PCIe"; "NVIDIA B300 SXM6 AC";
    # "Tesla V100-SXM2-16GB" / "V100 SXM2"; "NVIDIA H100 NVL" / "H100 NVL".
    assert first("NVIDIA H200")["form_factor"] == "SXM"
    assert first("NVIDIA A100 80GB PCIe")["form_factor"] == "PCIe"
    assert first("NVIDIA B300 SXM6 AC")["form_factor"] == "SXM"
    assert first("Tesla V100-SXM2-16GB")["form_factor"] == "SXM"
    assert first("NVIDIA H100 NVL")["form_factor"] == "NVL"


# --- the 2026-08-25 excerpt (flags, spot prices, maxGpuCount) -------------------------------

def test_excerpt_flags_decide_and_spot_prices_are_spot_offers():
    result, offers = parsed_offers(EXCERPT)
    assert not result.report.get("layout_errors")
    # Spot is never above on-demand within one tier (a secure spot price may be above the
    # community on-demand price of the same GPU: B200 6.79 > 5.98, two different offers).
    for (label, tier, billing, count), offer in offers.items():
        if billing == "spot":
            assert offer["price_per_hour"] <= offers[(label, tier, "on-demand", count)]["price_per_hour"]
    labels_tiers = {(i["gpu_label"], i["tier"]) for i in result.items}
    # SOURCE.md: "NVIDIA A100-SXM4-40GB securePrice 0 (not offered on secure), community 1.0";
    # the entry: "secureCloud": false, "communityCloud": true, "communitySpotPrice": 1, "maxGpuCount": 2.
    assert ("NVIDIA A100-SXM4-40GB", "secure") not in labels_tiers
    a100 = offers[("NVIDIA A100-SXM4-40GB", "community", "on-demand", 1)]
    assert (a100["price_per_gpu_hour"], a100["vram_gb"]) == (1.0, 40)
    assert offers[("NVIDIA A100-SXM4-40GB", "community", "spot", 1)]["price_per_gpu_hour"] == 1.0
    assert sorted(k[3] for k in offers if k[:3] == ("NVIDIA A100-SXM4-40GB", "community", "on-demand")) == [1, 2]
    # SOURCE.md: "AMD Instinct MI300X OAM (192 GB) secure 2.39"; communityPrice 0.5 with
    # "communityCloud": false: no community offer.
    mi300x = offers[("AMD Instinct MI300X OAM", "secure", "on-demand", 1)]
    assert (mi300x["price_per_gpu_hour"], mi300x["vram_gb"], mi300x["gpu_model"]) == (2.39, 192, "MI300X")
    assert offers[("AMD Instinct MI300X OAM", "secure", "spot", 1)]["price_per_gpu_hour"] == 2.39
    assert ("AMD Instinct MI300X OAM", "community") not in labels_tiers
    # SOURCE.md: "NVIDIA B200 (180 GB) securePrice 6.79, communityPrice 5.98, secureSpotPrice
    # 6.79, communitySpotPrice 5.98 ... maxGpuCount 8".
    spot = offers[("NVIDIA B200", "secure", "spot", 1)]
    assert (spot["billing"], spot["tier"], spot["price_per_gpu_hour"]) == ("spot", "secure", 6.79)
    assert offers[("NVIDIA B200", "community", "spot", 1)]["price_per_gpu_hour"] == 5.98
    # maxGpuCount 8: pods of 1, 2, 4 and 8 GPUs, each at 6.79 per GPU-hour.
    b200x8 = offers[("NVIDIA B200", "secure", "on-demand", 8)]
    assert (b200x8["price_per_hour"], b200x8["price_per_gpu_hour"]) == (54.32, 6.79)
    assert sorted(k[3] for k in offers if k[:3] == ("NVIDIA B200", "secure", "on-demand")) == [1, 2, 4, 8]
    # The entry "NVIDIA H100 80GB HBM3": "securePrice": 3.29 on 2026-08-25 (3.49 on 2026-09-28).
    assert offers[("NVIDIA H100 80GB HBM3", "secure", "on-demand", 1)]["price_per_gpu_hour"] == 3.29


def test_a_flagged_tier_is_an_offer_even_at_0_5():
    document = json.loads(EXCERPT)
    mi300x = document["data"]["gpuTypes"][0]
    assert mi300x["id"] == "AMD Instinct MI300X OAM" and mi300x["communityPrice"] == 0.5
    mi300x["communityCloud"] = True     # what an answer offering it at $0.50 would say
    _, offers = parsed_offers(json.dumps(document))
    assert offers[("AMD Instinct MI300X OAM", "community", "on-demand", 1)]["price_per_gpu_hour"] == 0.5


# --- answers that are not data ---------------------------------------------------------------

def test_graphql_error_answer_fails_with_one_short_line_quoting_the_message():
    message = 'Cannot query field "secureSpotPrice" on type "GpuType".'
    answer = {"errors": [{"message": message, "locations": [{"line": 1, "column": 60}],
                          "extensions": {"code": "GRAPHQL_VALIDATION_FAILED", "stacktrace": ["x" * 3500]}}],
              "data": None}
    error = failure(json.dumps(answer))
    assert error.startswith("runpod: ") and "GraphQL error: " + message in error
    assert error.count(message) == 1 and len(error) < 250 and "\n" not in error
    assert "x" * 50 not in error


def test_a_3500_character_error_message_is_cut_and_several_errors_are_counted():
    answer = {"errors": [{"message": "Something went wrong " + "y" * 3500}, {"message": "again"}]}
    error = failure(json.dumps(answer))
    assert "GraphQL error: Something went wrong" in error and len(error) < 250


def test_data_null_without_errors_fails_naming_gpu_types():
    error = failure(json.dumps({"data": None}))
    assert "gpuTypes" in error and len(error) < 250
    assert "gpuTypes" in failure(json.dumps({"data": {"gpuTypes": None}}))


def test_an_html_error_page_instead_of_json_fails():
    assert "not a JSON document" in failure("<html><body>502 Bad Gateway</body></html>")


def test_answer_without_any_price_fails_instead_of_storing_nothing_silently():
    answer = json.loads(WHOLE)
    for gpu in answer["data"]["gpuTypes"]:   # what an unauthenticated call is reported to return
        gpu["securePrice"] = gpu["communityPrice"] = None
    assert "prices withheld" in failure(json.dumps(answer))


def test_entries_lacking_a_price_field_fail_with_one_message():
    answer = json.loads(WHOLE)
    for gpu in answer["data"]["gpuTypes"]:
        del gpu["securePrice"]
    parsed = parse_gpu_types(json.dumps(answer), API)
    assert len(parsed.errors) == 1 and "lacks securePrice" in parsed.errors[0]
    assert "45 more" in parsed.errors[0]
    assert "lacks securePrice" in failure(json.dumps(answer))


def test_a_price_that_is_not_a_number_holds_its_offers_naming_the_field():
    # Issue 20 item 2: two GPUs' unreadable prices hold those GPUs' offers (kept unpriced with the
    # value the API gave), the provider is suspect, every other GPU loads.
    answer = json.loads(WHOLE)
    answer["data"]["gpuTypes"][0]["securePrice"] = "2.39/hr"
    answer["data"]["gpuTypes"][1]["securePrice"] = -1
    result = run_parsed("runpod", parse_gpu_types(json.dumps(answer), API), url=API)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect"
    assert "securePrice is not a price" in outcome.error and "'2.39/hr'" in outcome.error
    held = [i for i in result.items if i["price_raw"] in ("2.39/hr", "-1")]
    assert held and not any(i["is_priced"] for i in held)
    assert sum(i["is_priced"] for i in result.items) == len(result.items) - len(held)

"""RunPod spider on its recorded 2026-10-29 GraphQL gpuTypes answer."""

import json

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "runpod.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_dated_per_gpu_prices_by_tier(crawl):
    offers = by_key(crawl("runpod", CAPTURE))
    # PROVIDERS.md §4, runpod.io/pricing 2026-10-06: secure / community per GPU-hour.
    expected = {
        "NVIDIA H100 80GB HBM3": (3.49, 2.69),
        "NVIDIA H100 PCIe": (2.89, 1.99),
        "NVIDIA H200": (4.59, 3.59),
    }
    for gpu, (secure, community) in expected.items():
        assert offers[f"{gpu}:secure:on-demand:x1"]["price_per_gpu_hour"] == secure
        assert offers[f"{gpu}:community:on-demand:x1"]["price_per_gpu_hour"] == community
    b200 = offers["NVIDIA B200:secure:on-demand:x1"]
    assert (b200["price_per_hour"], b200["billing"], b200["tier"]) == (6.79, "on-demand", "secure")


def test_labels_map_to_models_with_the_display_names_form_factor(crawl):
    result = crawl("runpod", CAPTURE)
    offers = by_key(result)
    h100 = offers["NVIDIA H100 80GB HBM3:secure:on-demand:x1"]
    assert (h100["gpu_model"], h100["form_factor"], h100["vram_gb"]) == ("H100", "SXM", 80)
    # The id "NVIDIA H200" does not say SXM; displayName "H200 SXM" does.
    assert offers["NVIDIA H200:secure:on-demand:x1"]["form_factor"] == "SXM"
    assert offers["NVIDIA H100 NVL:secure:on-demand:x1"]["vram_gb"] == 94
    assert offers["AMD Instinct MI300X OAM:secure:on-demand:x1"]["gpu_model"] == "MI300X"
    assert result.report["unknown_labels"] == []
    assert collect.judge_crawl(result).status == "ok"


def test_placeholder_prices_of_tiers_not_offered_never_become_offers(crawl):
    result = crawl("runpod", CAPTURE)
    keys = {i["offer_key"] for i in result.items}
    # B200: communityPrice 0.5 with communityCloud=false; RTX 3070: securePrice 0 with
    # secureCloud=false; "unknown": both tiers false.
    assert not [k for k in keys if k.startswith("NVIDIA B200:community")]
    assert not [k for k in keys if k.startswith("NVIDIA GeForce RTX 3070:secure")]
    assert not [k for k in keys if k.startswith("unknown:")]
    assert all(i["price_per_gpu_hour"] not in (0, 0.5) for i in result.items)
    # The tier that is offered is still read: RTX 3070 community $0.13, spot $0.07.
    assert by_key(result)["NVIDIA GeForce RTX 3070:community:on-demand:x1"]["price_per_hour"] == 0.13
    assert by_key(result)["NVIDIA GeForce RTX 3070:community:spot:x1"]["price_per_hour"] == 0.07


def test_spot_prices_are_spot_offers_and_null_spot_is_none(crawl):
    offers = by_key(crawl("runpod", CAPTURE))
    spot = offers["NVIDIA H100 80GB HBM3:secure:spot:x1"]
    assert (spot["billing"], spot["tier"], spot["price_per_gpu_hour"]) == ("spot", "secure", 1.75)
    # H200 and B200 have secureSpotPrice null in the answer.
    assert not [k for k in offers if k.startswith(("NVIDIA H200:", "NVIDIA B200:")) and ":spot:" in k]


def test_gpu_counts_follow_max_gpu_count_and_price_linearly(crawl):
    offers = by_key(crawl("runpod", CAPTURE))
    b200x8 = offers["NVIDIA B200:secure:on-demand:x8"]
    assert (b200x8["gpu_count"], b200x8["price_per_hour"], b200x8["price_per_gpu_hour"]) == (8, 54.32, 6.79)
    # Published claim: no self-service on-demand 8x B200 at or below Massed Compute's $43.46.
    assert b200x8["price_per_hour"] > 43.46
    # RTX PRO 6000: maxGpuCount 4, so no 8-GPU pod.
    counts = sorted(i["gpu_count"] for k, i in offers.items()
                    if k.startswith("NVIDIA RTX PRO 6000 Blackwell Workstation Edition:secure:on-demand"))
    assert counts == [1, 2, 4]


def test_graphql_error_answer_fails_naming_provider_and_missing_field(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "runpod")
    ex[0]["body"] = json.dumps({"errors": [{"message": "Cannot query field \"securePrice\" on type \"GpuType\"."}]})
    outcome = collect.judge_crawl(crawl("runpod", make_warc(ex)))
    assert outcome.status == "failed"
    assert "runpod" in outcome.error and "data.gpuTypes" in outcome.error
    assert "Cannot query field" in outcome.error
    assert outcome.offers == []


def test_answer_without_any_price_fails_instead_of_storing_unpriced_offers(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "runpod")
    answer = json.loads(ex[0]["body"])
    for gpu in answer["data"]["gpuTypes"]:  # what an unauthenticated call is reported to return
        for field in ("securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice"):
            gpu[field] = None
    ex[0]["body"] = json.dumps(answer)
    outcome = collect.judge_crawl(crawl("runpod", make_warc(ex)))
    assert outcome.status == "failed"
    assert "runpod" in outcome.error and "securePrice/communityPrice" in outcome.error

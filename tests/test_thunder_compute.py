"""Thunder Compute spider on its recorded public pricing + specs API responses."""

import json

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "thunder_compute.warc.gz"


def test_a100_80gb_prototyping_is_the_cited_1_09_per_hour(crawl):
    offers = {i["offer_key"]: i for i in crawl("thunder_compute", CAPTURE).items}
    a100 = offers["a100xl_x1_prototyping"]
    # Published page 1, 2026-10-29: "one A100 80GB: $1.09/h at Thunder Compute".
    assert a100["price_per_hour"] == 1.09
    assert (a100["gpu_model"], a100["gpu_count"], a100["tier"], a100["vram_gb"]) == ("A100 80GB", 1, "prototyping", 80)
    # Per instance-hour for the whole config: x2 is two GPUs.
    assert offers["h100_x2_prototyping"]["price_per_hour"] == 4.98
    assert offers["h100_x2_prototyping"]["price_per_gpu_hour"] == 2.49


def test_add_on_rates_are_not_offers_and_tiers_are_kept(crawl):
    result = crawl("thunder_compute", CAPTURE)
    keys = {i["offer_key"] for i in result.items}
    assert not keys & {"additional_vcpus", "disk_gb", "ephemeral_disk_gb"}
    # Every GPU key of the real /v1/specs response becomes an offer.
    specs = json.loads(source_exchanges("2026-10-29", "thunder_compute")[1]["body"])["specs"]
    assert keys == set(specs)
    assert {i["tier"] for i in result.items} == {"prototyping", "production"}


def test_price_points_to_the_pricing_record_not_the_specs_record(crawl):
    result = crawl("thunder_compute", CAPTURE)
    urls = {i["capture"]["source_url"] for i in result.items}
    assert urls == {"https://api.thundercompute.com:8443/v1/pricing"}


def test_v2_api_is_used_when_v1_is_gone(crawl, make_warc):
    # v2 shape from thunder-cli fixtures (../shared/sources/samples/thundercompute.pricing_and_v2.fixture.json)
    at = "2026-11-02T02:00:00Z"
    exchanges = [
        {"url": "https://api.thundercompute.com:8443/v1/pricing", "status": 404, "captured_at": at,
         "headers": {"Content-Type": "application/json"}, "body": b'{"error":"not found"}'},
        {"url": "https://api.thundercompute.com:8443/v2/pricing", "captured_at": at,
         "headers": {"Content-Type": "application/json"},
         "body": json.dumps({"pricing": {"a6000_x1": 0.35, "additional_vcpus": 0.04, "disk_gb": 0.0003,
                                         "snapshot_gb": 6.849e-05}})},
        {"url": "https://api.thundercompute.com:8443/v2/specs", "captured_at": at,
         "headers": {"Content-Type": "application/json"},
         "body": json.dumps({"specs": {"a6000_x1": {"displayName": "A6000", "gpuCount": 1, "vcpuOptions": [4, 6, 8],
                                                    "ramPerVCPUGiB": 8, "storageGB": {"min": 100, "max": 500}}}})},
    ]
    result = crawl("thunder_compute", make_warc(exchanges))
    assert [(i["offer_key"], i["gpu_model"], i["price_per_hour"]) for i in result.items] == [("a6000_x1", "RTX A6000", 0.35)]
    assert collect.judge_crawl(result).status == "ok"


def test_pricing_without_specs_entry_fails_the_provider(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "thunder_compute")
    specs = json.loads(ex[1]["body"])
    del specs["specs"]["a100xl_x1_prototyping"]
    ex[1]["body"] = json.dumps(specs).encode()
    outcome = collect.judge_crawl(crawl("thunder_compute", make_warc(ex)))
    assert outcome.status == "failed"
    assert "thunder_compute" in outcome.error and "a100xl_x1_prototyping" in outcome.error

"""Thunder Compute spider on its public pricing + specs API answers.

There is NO real recording of /v1/pricing (see the header of
captures/src/2026-10-29/thunder_compute/exchanges.yaml): the shipped capture joins the REAL
/v1/specs answer (tests/samples/thundercompute.v1_specs.json, byte for byte) with a COMPOSED
/v1/pricing answer whose values have the sources listed there. Expected values below are read
off those files, e.g. v1_specs.json:
    "a100xl_x1_prototyping": {"displayName": "NVIDIA A100 (80GB)", "vramGB": 80, "gpuCount": 1,
                              "mode": "prototyping", ...}
and v1_pricing.json: "a100xl_x1_prototyping": 1.09 (the value published page 1 cites for
2026-10-29: "one A100 80GB: $1.09/h at Thunder Compute").
"""

import json

from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from pricewatch.collect import judge
from spiders.items import OfferItem
from spiders.thunder_compute import API, ThunderComputeSpider, parse_offers
from tests.conftest import CAPTURES, CAPTURES_SRC, ROOT
from tests.inprocess import by_key, run_parsed

SRC = CAPTURES_SRC / "2026-10-29" / "thunder_compute"
SHIPPED = CAPTURES / "2026-10-29" / "thunder_compute.warc.gz"
PRICING_URL, SPECS_URL = f"{API}/v1/pricing", f"{API}/v1/specs"
PRICING = (SRC / "v1_pricing.json").read_text()
SPECS = (SRC / "v1_specs.json").read_text()
FIXTURES = json.loads((ROOT / "tests" / "samples" / "thundercompute.pricing_and_v2.fixture.json").read_text())

# The key the pipeline builds for the cited offer: sku "a100xl", 1 GPU, 80 GB from specs,
# on-demand billing in the "prototyping" tier.
A100 = "1x a100xl 80GB on-demand/prototyping"


def run(pricing=PRICING, specs=SPECS, pricing_url=PRICING_URL, specs_url=SPECS_URL):
    as_text = lambda doc: doc if isinstance(doc, str) else json.dumps(doc)
    return run_parsed("thunder_compute", parse_offers(as_text(pricing), as_text(specs), pricing_url, specs_url),
                      url=pricing_url)


def pricing_with(**changes):
    doc = json.loads(PRICING)
    for key, value in changes.items():
        if value is None:
            doc["pricing"].pop(key)
        else:
            doc["pricing"][key] = value
    return doc


def failure(**kw):
    outcome = judge.judge_crawl(run(**kw))
    assert outcome.status == "failed", outcome
    return outcome.error


# --- the one subprocess replay -------------------------------------------------------------

def test_replay_of_the_shipped_capture(crawl):
    result = crawl("thunder_compute", SHIPPED)
    assert judge.judge_crawl(result).status == "ok"
    offers = by_key(result)
    a100 = offers[A100]
    # v1_pricing.json "a100xl_x1_prototyping": 1.09; v1_specs.json displayName "NVIDIA A100 (80GB)",
    # vramGB 80, gpuCount 1, mode "prototyping".
    assert (a100["sku"], a100["gpu_label"], a100["gpu_model"], a100["gpu_count"], a100["vram_gb"],
            a100["billing"], a100["tier"], a100["price_per_hour"], a100["price_unit"], a100["currency"]) == (
        "a100xl", "NVIDIA A100 (80GB)", "A100 80GB", 1, 80, "on-demand", "prototyping", 1.09,
        "instance_hour", "USD")
    # The price's evidence is the pricing record, not the specs record.
    assert {i["capture"]["source_url"] for i in result.items} == {PRICING_URL}
    assert len(result.items) == 25


# --- in-process: the shipped documents -----------------------------------------------------

def test_every_priced_gpu_key_with_specs_is_an_offer_and_tiers_are_kept():
    result = run()
    assert judge.judge_crawl(result).status == "ok"
    # v1_specs.json: 25 keys, 9 "_prototyping" and 16 "_production".
    tiers = [i["tier"] for i in result.items]
    assert (len(tiers), tiers.count("prototyping"), tiers.count("production")) == (25, 9, 16)
    offers = by_key(result)
    # Same GPU and count in both modes: two offers, two keys, two prices (1.09 / 1.64).
    assert offers[A100]["price_per_hour"] == 1.09
    assert offers["1x a100xl 80GB on-demand/production"]["price_per_hour"] == 1.64
    assert {i["sku"] for i in result.items} == {"a100xl", "a6000", "h100", "l40", "l40s"}
    assert {i["gpu_model"] for i in result.items} == {"A100 80GB", "RTX A6000", "H100", "L40", "L40S"}


def test_a_price_is_for_the_whole_configuration():
    offers = by_key(run())
    # "h100_x2_prototyping": 4.98 and specs gpuCount 2: $4.98/h for two GPUs, $2.49 per GPU.
    h100x2 = offers["2x h100 80GB on-demand/prototyping"]
    assert (h100x2["gpu_count"], h100x2["price_per_hour"], h100x2["price_per_gpu_hour"]) == (2, 4.98, 2.49)
    # "l40s_x8_production": 11.92, vramGB 48.
    l40s = offers["8x l40s 48GB on-demand/production"]
    assert (l40s["gpu_label"], l40s["vram_gb"], l40s["price_per_gpu_hour"]) == ("NVIDIA L40S", 48, 1.49)


def test_add_on_rates_are_not_offers():
    # additional_vcpus / disk_gb / ephemeral_disk_gb are in the shipped answer; snapshot_gb is in
    # thunder-cli's v2 fixture.
    result = run(pricing=pricing_with(snapshot_gb=6.849e-05))
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 25
    assert not {i["sku"] for i in result.items} & {"additional_vcpus", "disk_gb", "ephemeral_disk_gb", "snapshot_gb"}


def test_a_bare_alias_next_to_its_moded_keys_is_not_another_offer():
    result = run(pricing=pricing_with(a100xl_x1=1.09))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 25


# --- in-process: the v2 API and the spider's join ------------------------------------------

def test_v2_answer_keys_without_mode():
    # thunder-cli fixtures: v2 pricing {"a6000_x1": 0.35, "additional_vcpus": 0.04, ...} and
    # v2 specs {"a6000_x1": {"displayName": "A6000", "gpuCount": 1, ...}} (no mode, no vramGB).
    result = run(FIXTURES["v2_pricing_example"], FIXTURES["v2_specs_example"], f"{API}/v2/pricing", f"{API}/v2/specs")
    assert judge.judge_crawl(result).status == "ok"
    [offer] = result.items
    assert (offer["offer_key"], offer["sku"], offer["gpu_model"], offer["tier"], offer["price_per_hour"]) == (
        "1x a6000 on-demand", "a6000", "RTX A6000", "on-demand", 0.35)
    # v2 specs state no VRAM: the key carries none, the catalog's 48 GB is the stored size.
    assert offer["vram_gb"] == 48


def response(url, body, status=200, capture=None):
    return TextResponse(url, status=status, body=body.encode() if isinstance(body, str) else body,
                        encoding="utf-8", request=Request(url, meta={"capture": capture} if capture else {}))


def spider():
    return ThunderComputeSpider.from_crawler(get_crawler(ThunderComputeSpider))


def test_spider_falls_back_to_v2_when_v1_is_gone_and_joins_on_the_pricing_record():
    s = spider()
    [v2_pricing] = list(s.parse_pricing(response(PRICING_URL, b'{"error":"not found"}', status=404), "v1"))
    assert v2_pricing.url == f"{API}/v2/pricing"
    ref = {"source_url": v2_pricing.url, "warc_record_id": "<urn:uuid:pricing>"}
    pricing = response(v2_pricing.url, json.dumps(FIXTURES["v2_pricing_example"]), capture=ref)
    [v2_specs] = list(s.parse_pricing(pricing, **v2_pricing.cb_kwargs))
    assert v2_specs.url == f"{API}/v2/specs"
    specs = response(v2_specs.url, json.dumps(FIXTURES["v2_specs_example"]),
                     capture={"source_url": v2_specs.url, "warc_record_id": "<urn:uuid:specs>"})
    items = list(s.parse_specs(specs, **v2_specs.cb_kwargs))
    assert [(type(i), i["sku"], i["price_raw"], i["capture"]) for i in items] == [(OfferItem, "a6000", 0.35, ref)]
    assert "offer_key" not in items[0]


def test_v1_answer_goes_to_v1_specs():
    [specs] = list(spider().parse_pricing(response(PRICING_URL, PRICING), "v1"))
    assert specs.url == SPECS_URL


# --- in-process: layout variants -----------------------------------------------------------

def test_a_pricing_key_without_specs_entry_fails_naming_it():
    specs = json.loads(SPECS)
    del specs["specs"]["a100xl_x1_prototyping"]
    error = failure(specs=specs)
    assert "thunder_compute" in error and "'a100xl_x1_prototyping'" in error and "no entry in specs" in error


def test_a_currency_other_than_usd_fails_and_usd_is_accepted():
    doc = json.loads(PRICING)
    assert "currency" not in doc and "currency" not in doc["pricing"]   # the real shape has none
    assert "currency 'EUR'" in failure(pricing={**doc, "currency": "EUR"})
    assert "currency 'EUR'" in failure(pricing=pricing_with(currency="EUR"))
    result = run(pricing={**doc, "currency": "USD"})
    assert judge.judge_crawl(result).status == "ok" and {i["currency"] for i in result.items} == {"USD"}


def test_renamed_keys_fail_instead_of_yielding_nothing():
    doc = {"pricing": {k.replace("_x", "-x"): v for k, v in json.loads(PRICING)["pricing"].items()}}
    assert "no '<gpu>_x<count>[_<mode>]' keys" in failure(pricing=doc)


def test_a_changed_envelope_or_an_html_page_fails_naming_what_is_missing():
    assert "expected a JSON object with a 'pricing' object, found list" in failure(pricing={"pricing": []})
    assert "expected a JSON object with a 'specs' object, found nothing" in failure(specs={"data": {}})
    assert "not a JSON document" in failure(pricing="<html><body>Bad gateway</body></html>")


def test_an_unknown_mode_is_not_read_as_on_demand():
    error = failure(pricing=pricing_with(h100_x1_spot=1.5))
    assert "unknown mode in key(s) 'h100_x1_spot'" in error


def test_a_quoted_price_reads_and_a_price_that_is_not_positive_holds_its_offer():
    # Issue 20 items 2 and 6: "2.49" in the USD-only answer is the number 2.49; the 0 of one key
    # holds that offer (unpriced, the value kept), the provider is suspect, the other keys load.
    result = run(pricing=pricing_with(h100_x1_prototyping="2.49", a6000_x1_prototyping=0))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and "'a6000_x1_prototyping'" in outcome.error
    by_sku = {(i["sku"], i["gpu_count"], i["tier"]): i for i in result.items}
    assert by_sku[("h100", 1, "prototyping")]["price_per_hour"] == 2.49
    held = by_sku[("a6000", 1, "prototyping")]
    assert (held["is_priced"], held["price_raw"]) == (False, "0")
    assert sum(not i["is_priced"] for i in result.items) == 1


def test_specs_that_disagree_with_the_key_fail():
    specs = json.loads(SPECS)
    specs["specs"]["h100_x2_prototyping"]["gpuCount"] = 1
    specs["specs"]["l40_x1_production"]["mode"] = "prototyping"
    error = failure(specs=specs)
    assert "'h100_x2_prototyping', 'l40_x1_production'" in error and "disagrees with its key" in error

"""Spheron on its COMPOSED gpu-offers answer (app.spheron.ai/api/gpu-offers, dated 2026-06-03; see
captures/src/2026-06-03/spheron/exchanges.yaml: Spheron's documented answer shape, the prices of
Spheron's own blog table "Spheron spot pricing (2026-06-03)", the rest composed).

Expected values are read off the document (snippets quoted) and the blog table the header
quotes, never off the parser's output. ``price`` is USD per hour of the whole offer.
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.spheron import API, parse_offers, page_url
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = page_url(1)
TEXT = (CAPTURES_SRC / "2026-06-03" / "spheron" / "gpu-offers_page1.json").read_text(encoding="utf-8")


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("spheron", parse_offers(text, URL), url=URL, is_aggregator=True)


def judged(text: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(text))


def edited(gpu_type: str, n: int = 0, **fields) -> str:
    """The answer with the n-th offer of GPU type ``gpu_type`` changed (None removes a field)."""
    doc = json.loads(TEXT)
    [group] = [g for g in doc["data"] if g["gpuType"] == gpu_type]
    for k, v in fields.items():
        if v is None:
            group["offers"][n].pop(k, None)
        else:
            group["offers"][n][k] = v
    return json.dumps(doc)


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def by_sku(result) -> dict[str, dict]:
    return {o["sku"]: o for o in result.items}


def test_the_answer_is_ok_with_eleven_offers(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # The blog table: H100 SXM5 $5.07 / $2.91, H100 PCIe $2.01 / N/A, H200 SXM5 $5.55 / $3.31,
    # A100 80GB SXM4 $1.69 / $0.82, A100 80GB PCIe $1.48 / $1.19, B200 SXM6 $8.32 / $2.68:
    # six on-demand offers and five spot offers, each "gpuCount": 1.
    got = {(o["gpu_label"], o["billing"]): o["price_per_hour"] for o in result.items}
    assert got == {("H100 SXM5", "on-demand"): 5.07, ("H100 SXM5", "spot"): 2.91,
                   ("H100 PCIe", "on-demand"): 2.01,
                   ("H200 SXM5", "on-demand"): 5.55, ("H200 SXM5", "spot"): 3.31,
                   ("A100 80GB SXM4", "on-demand"): 1.69, ("A100 80GB SXM4", "spot"): 0.82,
                   ("A100 80GB PCIe", "on-demand"): 1.48, ("A100 80GB PCIe", "spot"): 1.19,
                   ("B200 SXM6", "on-demand"): 8.32, ("B200 SXM6", "spot"): 2.68}
    assert {(o["currency"], o["price_unit"], o["gpu_count"], o["is_aggregator"]) for o in result.items} == {
        ("USD", "instance_hour", 1, True)}
    # '"displayName": "A100 80GB SXM4"' and '"gpu_memory": 80': the catalog's A100 80GB, SXM.
    a100 = by_sku(result)["a100-80gb-sxm4-sesterce-1"]
    assert (a100["gpu_model"], a100["form_factor"], a100["vram_gb"]) == ("A100 80GB", "SXM", 80)


def test_offer_identity_region_upstream_and_availability(result):
    # '"provider": "voltage-park", "offerId": "h100-sxm5-voltage-park-1", ... "clusters": ["us-central-1"],
    #  "region": "us-central-1", "gpu_memory": 80, ... "instanceType": "DEDICATED"'
    h100 = by_sku(result)["h100-sxm5-voltage-park-1"]
    assert (h100["variant"], h100["region"], h100["tier"], h100["availability"], h100["vram_gb"]) == (
        "voltage-park", "us-central-1", "dedicated", "available in us-central-1", 80)
    # '"offerId": "h100-sxm5-data-crunch-1::spot", ... "clusters": ["FIN-01", "FIN-02"], ... "instanceType": "SPOT"'
    spot = by_sku(result)["h100-sxm5-data-crunch-1::spot"]
    assert (spot["billing"], spot["tier"], spot["availability"]) == ("spot", "spot", "available in FIN-01, FIN-02")


def test_group_aggregates_are_not_offers(result):
    # '"lowestPrice": 2.91, "highestPrice": 5.07, "averagePrice": 3.99' (H100 SXM5 group)
    assert '"averagePrice": 3.99' in TEXT
    assert not [o for o in result.items if o["price_per_hour"] == 3.99]
    assert len(result.items) == 11


def test_a_multi_gpu_offer_is_an_instance_price():
    # An 8-GPU offer priced 40.56 per hour is 5.07 per GPU-hour: never read as per GPU.
    [o] = [i for i in run(edited("h100-sxm5", gpuCount=8, price=40.56)).items if i["sku"] == "h100-sxm5-voltage-park-1"]
    assert (o["gpu_count"], o["price_per_hour"], o["price_per_gpu_hour"]) == (8, 40.56, 5.07)


def test_spot_price_on_an_on_demand_offer_is_its_spot_tier():
    # '"offerId": "h100-pcie-tensordock-1", ..., "price": 2.01' with a "spot_price": 1.2 added.
    offers = [o for o in run(edited("h100-pcie", spot_price=1.2)).items if o["sku"] == "h100-pcie-tensordock-1"]
    assert sorted((o["billing"], o["price_per_hour"]) for o in offers) == [("on-demand", 2.01), ("spot", 1.2)]


def test_unavailable_and_maintenance_keep_the_price():
    result = run(edited("b200-sxm6", available=False))
    b200 = by_sku(result)["b200-sxm6-spheron-ai-1"]
    assert (b200["availability"], b200["price_per_hour"]) == ("unavailable in us-east-2", 8.32)
    b200 = by_sku(run(edited("b200-sxm6", maintenance=True)))["b200-sxm6-spheron-ai-1"]
    assert b200["availability"] == "under maintenance in us-east-2"


@pytest.mark.parametrize("price", [0, None])
def test_zero_or_null_price_is_unpriced_not_free(price):
    result = run(edited("h100-pcie", price=price))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "ok"
    pcie = by_sku(result)["h100-pcie-tensordock-1"]
    assert (pcie["is_priced"], pcie["price_per_hour"], pcie["price_text"]) == (False, None, f"price {price!r}")


def test_one_unreadable_price_holds_that_offer_the_others_load(result):
    # '"offerId": "h200-sxm5-data-crunch-1", ..., "price": 5.55' changed to "$5.5.5": that offer is held
    # (unpriced, the text kept), the provider suspect; the other ten load as in the answer.
    changed = run(edited("h200-sxm5", price="$5.5.5"))
    outcome = judge.judge_crawl(changed)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 11 row(s) held" in outcome.error
    assert any("price unreadable: '$5.5.5'" in m for m in changed.report["layout_errors"])
    held = by_sku(changed)["h200-sxm5-data-crunch-1"]
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "$5.5.5", None)
    assert held["offer_key"] == by_sku(result)["h200-sxm5-data-crunch-1"]["offer_key"]
    assert {s: o["price_per_hour"] for s, o in by_sku(changed).items() if s != "h200-sxm5-data-crunch-1"} == {
        s: o["price_per_hour"] for s, o in by_sku(result).items() if s != "h200-sxm5-data-crunch-1"}


def test_a_spot_offer_whose_two_prices_disagree_is_held():
    # '"offerId": "b200-sxm6-spheron-ai-1::spot", ... "price": 2.68, "spot_price": 2.68': spot_price set to 1.5.
    changed = run(edited("b200-sxm6", 1, spot_price=1.5))
    assert judge.judge_crawl(changed).status == "suspect"
    held = by_sku(changed)["b200-sxm6-spheron-ai-1::spot"]
    assert (held["is_priced"], held["billing"]) == (False, "spot")


def test_an_offer_stating_another_currency_is_held():
    changed = run(edited("a100-80gb-pcie", currency="EUR"))
    assert judge.judge_crawl(changed).status == "suspect"
    assert by_sku(changed)["a100-80gb-pcie-massed-compute-1"]["is_priced"] is False


def test_an_unknown_instance_type_fails():
    outcome = judged(edited("h100-sxm5", instanceType="RESERVED"))
    assert outcome.status == "failed" and "unknown instanceType 'RESERVED'" in outcome.error


def test_offers_renamed_fails():
    outcome = judged(TEXT.replace('"offers":', '"items":'))
    assert outcome.status == "failed" and "without an 'offers' list" in outcome.error


@pytest.mark.parametrize("text, message", [
    ('{"error": "Too many requests"}', "expected a JSON object with a 'data' list"),
    ('{"data": [], "total": 0, "page": 1, "limit": 100, "totalPages": 0}', "no GPU type in 'data'"),
    ('{"data": [], "total": 6, "page": 3, "limit": 100, "totalPages": 1}', "is not a page of the answer"),
])
def test_an_answer_without_offers_fails(text, message):
    outcome = judged(text)
    assert outcome.status == "failed" and message in outcome.error


def test_a_bad_gpu_count_fails():
    assert parse_offers(edited("h100-sxm5", gpuCount=0), URL).errors == [
        f"{URL}: gpuCount is not a positive whole number (0) ('h100-sxm5-voltage-park-1')"]


# --- the one replay of the shipped capture through the engine ------------------------------------

def test_replay_of_the_composed_capture(crawl):
    result = crawl("spheron", shipped("spheron"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 11
    h100 = by_sku(result)["h100-sxm5-voltage-park-1"]
    assert (h100["price_per_hour"], h100["gpu_model"], h100["is_aggregator"]) == (5.07, "H100", True)
    assert h100["capture"]["source_url"] == URL and h100["capture"]["captured_at"].startswith("2026-06-03T12:00:00")
    assert API in URL

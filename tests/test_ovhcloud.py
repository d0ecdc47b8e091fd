"""OVHcloud on its COMPOSED Public Cloud order-catalog capture (two books, FR in EUR and US in USD;
see captures/src/2026-10-29/ovhcloud/exchanges.yaml for which values are real and which composed).

Expected values are read off the capture's JSON by hand (quoted), and they are the values
getcomputable/gpu-index's tests pin on its real 2026-08-22 bodies: FR h100-380.consumption
"price": 280000000, "formattedPrice": "2.80 €" (H100 x1, 80 GB); h200-1920 4200000000 (H200 x8,
141 GB: 5.25 per GPU); US l40s-90 180000000 "$1.80 USD" with "intervalUnit": "none". Unit:
``pricings[0].price`` / 1e8 = the book's currency per instance-hour, ex-VAT.
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.ovhcloud import BOOKS, parse_catalog
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

SRC = CAPTURES_SRC / "2026-10-29" / "ovhcloud"
FR = (SRC / "catalog_fr.json").read_text(encoding="utf-8")
US = (SRC / "catalog_us.json").read_text(encoding="utf-8")


def run(text: str = FR, sub: str = "FR") -> crawl_process.CrawlResult:
    return run_parsed("ovhcloud", parse_catalog(text, BOOKS[sub]), url=BOOKS[sub])


def changed(code: str, text: str = FR, pricing=None, **fields) -> str:
    doc = json.loads(text)
    [addon] = [a for a in doc["addons"] if a["planCode"] == code]
    addon.update(fields)
    if pricing:
        addon["pricings"][0].update(pricing)
    return json.dumps(doc, ensure_ascii=False)


def by_sku(result) -> dict[str, dict]:
    return {o["sku"]: o for o in result.items}


def test_fr_book_hourly_gpu_instances_in_eur():
    result = run()
    assert judge.judge_crawl(result).status == "ok"
    got = {sku: (o["gpu_model"], o["gpu_count"], o["vram_gb"], o["price_per_hour"], o["price_per_gpu_hour"], o["currency"])
           for sku, o in by_sku(result).items()}
    # "planCode": "h100-380.consumption", "price": 280000000, "formattedPrice": "2.80 €", gpu {"model": "H100", "number": 1,
    #  "memory": {"size": 80}}; "h200-1920.consumption" 4200000000 "42.00 €", {"model": "H200", "number": 8, "size": 141}
    assert got["h100-380"] == ("H100", 1, 80, 2.8, 2.8, "EUR")
    assert got["h200-1920"] == ("H200", 8, 141, 42.0, 5.25, "EUR")
    # "t1-45.consumption" and the legacy "t1-le-45.consumption": both 70000000 "0.70 €", "Tesla V100", 16 GB
    assert got["t1-45"] == got["t1-le-45"] == ("V100 16GB", 1, 16, 0.7, 0.7, "EUR")
    assert set(got) == {"h100-380", "h200-1920", "l40s-90", "a10-45", "t1-45", "t1-le-45"}
    assert {(o["billing"], o["price_unit"], o["variant"]) for o in result.items} == {("on-demand", "instance_hour", "FR subsidiary")}


def test_us_book_is_usd_and_interval_unit_none_is_still_hourly():
    result = run(US, "US")
    assert judge.judge_crawl(result).status == "ok"
    # "l40s-90.consumption": "interval": 0, "intervalUnit": "none", "price": 180000000, "formattedPrice": "$1.80 USD"
    l40s = by_sku(result)["l40s-90"]
    assert (l40s["currency"], l40s["price_per_hour"], l40s["variant"]) == ("USD", 1.8, "US subsidiary")
    # "t2-45.consumption": 88000000 "$0.88 USD", "Tesla V100S" 32 GB
    t2 = by_sku(result)["t2-45"]
    assert (t2["gpu_model"], t2["price_per_hour"], t2["vram_gb"]) == ("V100 32GB", 0.88, 32)
    assert set(by_sku(result)) == {"l4-90", "l40s-90", "t2-45"}


def test_monthly_rates_and_windows_flavors_are_not_hourly_offers():
    # "h100-380.monthly.postpaid" 194000000000 "1940.00 €": a monthly rate, never divided into hours;
    # "win-t1-45.consumption" 97760000: the same V100 with a Windows licence in the price.
    parsed = parse_catalog(FR, BOOKS["FR"])
    assert not any(o["sku"].startswith("win-") or o["price_raw"] == 1940 for o in parsed.offers)
    assert {f["fact"]: f["value_text"] for f in parsed.facts} == {
        "fr_monthly_plans": "h100-380.monthly.postpaid", "fr_windows_flavors": "win-t1-45.consumption"}
    us = parse_catalog(US, BOOKS["US"])
    assert {f["fact"]: f["value_text"] for f in us.facts} == {
        "us_monthly_plans": "win-l4-90.monthly.postpaid", "us_windows_flavors": "win-t2-45.consumption"}


def test_coming_soon_keeps_its_price_with_the_tag_as_availability():
    # "a10-45.consumption": 76000000 "0.76 €", "tags": ["coming_soon"]
    a10 = by_sku(run())["a10-45"]
    assert (a10["price_per_hour"], a10["availability"], a10["is_priced"]) == (0.76, "coming soon", True)


def test_a_per_minute_ai_addon_with_a_gpu_blob_is_not_an_instance_offer():
    doc = json.loads(FR)
    doc["addons"].append({"planCode": "ai-deploy-l4-1.minute.consumption", "pricings": [
        {"interval": 1, "intervalUnit": "minute", "price": 1500000, "formattedPrice": "0.02 €"}],
        "blobs": {"commercial": {"brick": "ai-serving"},
                  "technical": {"gpu": {"model": "NVIDIA Ada Lovelace L4", "number": 1, "memory": {"size": 24}}}}})
    doc["addons"].append({"planCode": "b3-8.consumption", "pricings": [{"price": 6800000, "formattedPrice": "0.07 €"}],
                          "blobs": {"commercial": {"brick": "general-purpose"}}})
    result = run(json.dumps(doc, ensure_ascii=False))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 6


def test_one_price_disagreeing_with_its_display_is_held_the_others_load():
    # The 1e-8 scale broken on one row: 2800000000 (/1e8 = 28) beside its display "2.80 €".
    text = changed("h100-380.consumption", pricing={"price": 2800000000})
    result = run(text)
    assert judge.judge_crawl(result).status == "suspect"
    held = by_sku(result)["h100-380"]
    assert held["is_priced"] is False and held["price_per_hour"] is None
    assert "disagrees with its formattedPrice '2.80 €'" in held["held_row"]
    assert sum(o["is_priced"] for o in result.items) == 5


@pytest.mark.parametrize("pricing, why", [
    ({"price": "2.80"}, "price '2.80' is not an integer of 1e-8 currency units"),
    ({"formattedPrice": "Contact us"}, "formattedPrice 'Contact us' cannot be read"),
])
def test_a_garbled_price_cell_is_held(pricing, why):
    parsed = parse_catalog(changed("h200-1920.consumption", pricing=pricing), BOOKS["FR"])
    assert parsed.layout_errors == [] and len(parsed.held) == 1 and why in parsed.held[0]


def test_two_pricing_phases_are_held_not_chosen_between():
    doc = json.loads(FR)
    [addon] = [a for a in doc["addons"] if a["planCode"] == "l40s-90.consumption"]
    addon["pricings"].append(dict(addon["pricings"][0], price=120000000, formattedPrice="1.20 €"))
    parsed = parse_catalog(json.dumps(doc, ensure_ascii=False), BOOKS["FR"])
    assert parsed.held and "2 pricing phases" in parsed.held[0]


def test_price_zero_is_unpriced_never_free():
    o = by_sku(run(changed("a10-45.consumption", pricing={"price": 0, "formattedPrice": "0.00 €"})))["a10-45"]
    assert (o["is_priced"], o["price_per_hour"]) == (False, None)


def test_the_wrong_book_fails():
    # The FR body served for the US URL: locale.subsidiary "FR" is not what ?ovhSubsidiary=US asks for.
    outcome = judge.judge_crawl(run(FR, "US"))
    assert outcome.status == "failed" and "subsidiary 'FR', the URL asks for 'US'" in outcome.error


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.pop("addons"), "expected an 'addons' list, found nothing"),
    (lambda d: [a["blobs"]["commercial"].update(brick="instance") for a in d["addons"]], "no addon with blobs.commercial.brick 'gpu'"),
    (lambda d: d.pop("locale"), "expected a JSON object with a 'locale' object"),
    (lambda d: d["addons"].append(dict(d["addons"][0])), "planCode 'h100-380.consumption' appears twice"),
    (lambda d: d["addons"][0]["blobs"]["technical"]["gpu"].pop("model"), "GPU addon h100-380.consumption lacks"),
])
def test_changed_layouts_fail(edit, message):
    doc = json.loads(FR)
    edit(doc)
    outcome = judge.judge_crawl(run(json.dumps(doc, ensure_ascii=False)))
    assert outcome.status == "failed" and message in outcome.error


def test_replay_of_the_composed_capture(crawl):
    result = crawl("ovhcloud", shipped("ovhcloud"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 9
    assert {o["currency"] for o in result.items} == {"EUR", "USD"}

"""Units and terms (issue 20 item 5): a silent unit switch is caught by the GPU count and held,
and no hyperscaler term with an upfront fee, reservation or commitment becomes an on-demand
hourly price.

The gate's screens (pricewatch/collect/gate.py) are checked as pure functions on hand-made
batches, then the fault rows on the REAL shipped documents, copied and changed by each test
(never the shipped files): parsed by the real spider parser, run through the real pipelines,
judge, gate, load, claims evaluation and alert derivation on a real DuckDB file
(tests/test_history_and_gate.py Warehouse). Expected figures are read off the documents.
"""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest

from pricewatch.collect import judge
from pricewatch.collect.gate import screen, unit_findings
from spiders import aws, azure, coreweave, gcp, thunder_compute, voltage_park
from tests.conftest import CAPTURES_SRC, ROOT, migrated_warehouse
from tests.inprocess import by_key, run_parsed
from tests.test_history_and_gate import Warehouse, evaluated_run, seed_pages

# --- the between-runs screen: a move by exactly the GPU count -------------------------------


def _offer(key, count, price, model="H100", billing="on-demand", provider="acme"):
    return {"provider": provider, "offer_key": key, "gpu_model": model, "gpu_count": count, "billing": billing,
            "currency": "USD", "is_priced": True, "price_per_hour": price, "price_per_gpu_hour": price / count}


def _before(key, trusted, last=None, held=False, provider="acme"):
    return {"provider": provider, "offer_key": key, "trusted_price": trusted,
            "last_price": trusted if last is None else last, "last_held": held}


def test_a_move_by_the_gpu_count_is_a_unit_switch_either_way_and_a_repeat_does_not_confirm_it():
    offers = pd.DataFrame([
        _offer("8x up", 8, 127.36),        # $15.92 x 8: the node price read per GPU (was $15.92/h)
        _offer("8x down", 8, 6.16),        # $49.24 / 8, rounded as a page prints it
        _offer("8x again", 8, 160.0),      # held as 8x last run, the same again now: still held
        _offer("2x up", 2, 4.1),           # 2 x $2.00 and 2.5 %: within 10 %
        _offer("2x real", 2, 2.6, model="A100 80GB"),    # +30 %: an ordinary big move
        _offer("1x", 1, 4.0, model="A100 80GB"),         # x2 of one GPU: per-GPU and per-instance are one
        _offer("8x market", 8, 80.0),      # x8 while beta moved H100 the same way: not released
        _offer("8x market", 8, 12.0, provider="beta"),
    ])
    previous = pd.DataFrame([
        _before("8x up", 15.92), _before("8x down", 49.24), _before("8x again", 20.0, last=160.0, held=True),
        _before("2x up", 2.0), _before("2x real", 2.0), _before("1x", 2.0), _before("8x market", 10.0),
        _before("8x market", 10.0, provider="beta"),
    ])
    out = screen(offers, previous)
    held = dict(zip(zip(out["provider"], out["offer_key"]), out["held_reason"]))
    notes = dict(zip(zip(out["provider"], out["offer_key"]), out["screen_note"]))
    assert held["acme", "8x up"] == (
        "unit switch? $127.36/h is 8x the last trusted $15.92/h of this 8-GPU offer (an instance price read "
        "as per-GPU?); held until a person accepts it, a repeat does not confirm it")
    assert held["acme", "8x down"] == (
        "unit switch? $6.16/h is 1/8 of the last trusted $49.24/h of this 8-GPU offer (a per-GPU price read "
        "as per-instance?); held until a person accepts it, a repeat does not confirm it")
    assert held["acme", "8x again"].startswith("unit switch? $160/h is 8x") and notes["acme", "8x again"] is None
    assert held["acme", "2x up"].startswith("unit switch? $4.1/h is 2x the last trusted $2/h")
    assert held["acme", "2x real"].startswith("moved +30.0% from the last trusted $2/h")
    assert held["acme", "1x"].startswith("moved +100.0%")          # the ordinary screens only
    assert held["acme", "8x market"].startswith("unit switch?") and notes["acme", "8x market"] is None
    # beta's +20 % stands alone: acme's switched reading is no corroboration.
    assert held["beta", "8x market"] is None and notes["beta", "8x market"] is None


# --- the within-run screen: prices that scale with the count the wrong way ------------------

def _page(*rows, billing="on-demand"):
    return [{"offer_key": f"{c}x H100 {billing}", "gpu_model": "H100", "gpu_count": c, "billing": billing,
             "tier": billing, "is_priced": True, "price_per_hour": per_hour, "price_per_gpu_hour": per_hour / c}
            for c, per_hour in rows]


def test_a_page_whose_prices_scale_with_the_count_the_wrong_way_is_a_unit_switch():
    right = _page((1, 2.49), (2, 4.98), (8, 19.0))
    assert unit_findings(right) == []
    up = _page((1, 2.49), (2, 9.96), (8, 8 * 8 * 2.3))               # per-GPU x count: instance read per GPU
    assert unit_findings(up) == [
        ("unit switch? 1 GPU(s) whose per-GPU price grows with the GPU count as an instance price does (an "
         "instance price read as per-GPU?), e.g. 8x H100 on-demand $18.4 per GPU, 7.4x the 1-GPU offer's $2.49")]
    down = _page((1, 2.49), (2, 2.49), (8, 2.3))                     # the same instance price at every count
    assert unit_findings(down) == [
        ("unit switch? 1 GPU(s) whose instance price stays the same at every GPU count (a per-GPU price read "
         "as per-instance?), e.g. 8x H100 on-demand $2.3/h, 0.92x the 1-GPU offer's $2.49/h")]
    # Spot prices are bids (the real Vast.ai page: an 8x spot H100 at 13x the 1x per GPU): not read.
    assert unit_findings(_page((1, 0.2), (8, 8 * 8 * 0.2 * 1.6), billing="spot")) == []


# --- fault rows: real documents changed by the test -----------------------------------------

VOLTAGE = CAPTURES_SRC / "2026-08-22" / "voltage_park" / "locations.json"
COREWEAVE = CAPTURES_SRC / "2026-08-22" / "coreweave" / "pricing.html"
THUNDER = CAPTURES_SRC / "2026-10-29" / "thunder_compute"


@pytest.fixture
def wh(tmp_path):
    return Warehouse(migrated_warehouse(tmp_path / "w.duckdb"))


def _nights(wh, provider, pages):
    """Each page one night after the other, with the seed sources' real pages beside it (their
    claims evaluated each night); the held readings, latest prices, price changes and alerts."""
    runs = [evaluated_run(wh, day, **seed_pages(), **{provider: page}) for day, page in enumerate(pages)]
    statuses = [wh.q("SELECT claim_id, status FROM claim_evaluations WHERE run_id = ? ORDER BY 1", [r["run_id"]])
                for r in runs]
    return runs, statuses


def _switch_through_the_warehouse(wh, provider, real_page, switched_page, key):
    runs, statuses = _nights(wh, provider, [real_page, switched_page, switched_page])
    held = wh.q("SELECT run_id, held_reason FROM offers WHERE provider = ? AND offer_key = ? ORDER BY observed_at",
                [provider, key])
    latest = wh.q("SELECT price_per_hour::DOUBLE, held_reading_reason IS NOT NULL FROM latest_offers "
                  "WHERE provider = ? AND offer_key = ?", [provider, key])
    changes = wh.q("SELECT count(*) FROM price_changes WHERE provider = ?", [provider])[0][0]
    alerts = wh.q("SELECT count(*) FROM alerts WHERE run_id <> ? AND (subject LIKE ? OR title LIKE ?)",
                  [runs[0]["run_id"], f"%{provider}%", f"%{provider}%"])[0][0]
    assert [r for r, _ in held] == [r["run_id"] for r in runs]
    assert held[0][1] is None and all(h.startswith("unit switch? ") for _, h in held[1:])
    assert changes == 0 and alerts == 0
    assert statuses[0] == statuses[1] == statuses[2]      # no claim moved
    return held, latest


@pytest.mark.fault
def test_a_per_gpu_field_over_node_prices_is_held_as_a_unit_switch_every_night(wh, fault):
    real = VOLTAGE.read_text()
    # "gpu_price_ethernet":"1.99","gpu_price_infiniband":"2.49" per GPU of an 8-GPU node; the API
    # keeps its per-GPU names but quotes the node: 15.92 and 19.92.
    assert '"gpu_price_ethernet":"1.99"' in real and '"gpu_price_infiniband":"2.49"' in real
    node = real.replace('"gpu_price_ethernet":"1.99"', '"gpu_price_ethernet":"15.92"') \
               .replace('"gpu_price_infiniband":"2.49"', '"gpu_price_infiniband":"19.92"')
    pages = [voltage_park.parse_locations(t) for t in (real, node)]
    key = next(o["offer_key"] for o in run_parsed("voltage_park", pages[0]).items if o["variant"] == "ethernet")
    held, latest = _switch_through_the_warehouse(wh, "voltage_park", pages[0], pages[1], key)
    assert latest == [(15.92, True)]      # 8 x $1.99 stays the price; $127.36/h is held
    fault("per-GPU API field starts quoting the 8-GPU node price (Voltage Park gpu_price_* 1.99 -> 15.92), "
          "two nights running",
          expected="held both nights as 'unit switch?'; the last trusted price stays; no price change, no alert, "
                   "no claim moved",
          observed=f"{held[2][1]}; latest ${latest[0][0]:g}/h; 0 price changes, 0 alerts")


@pytest.mark.fault
def test_an_instance_price_page_that_starts_printing_per_gpu_prices_is_held_as_a_unit_switch(wh, fault):
    real = COREWEAVE.read_text()
    # <div>$49.24</div> ... On-Demand Price: <span class="item-value">$49.24</span> / Hour: the 8x
    # HGX H100 node, spot $19.71 / $19.51 (North America / Europe); the page now prints per-GPU
    # prices in the same cells: $6.16, $2.46, $2.44.
    assert real.count("$49.24") == 4 and real.count("$19.71") == real.count("$19.51") == 2
    per_gpu = real.replace("$49.24", "$6.16").replace("$19.71", "$2.46").replace("$19.51", "$2.44")
    pages = [coreweave.parse_pricing(t, "https://www.coreweave.com/pricing") for t in (real, per_gpu)]
    key = "8x NVIDIA HGX H100 80GB on-demand @North America"
    assert by_key(run_parsed("coreweave", pages[0]))[key]["price_per_hour"] == 49.24
    held, latest = _switch_through_the_warehouse(wh, "coreweave", pages[0], pages[1], key)
    assert latest == [(49.24, True)]
    fault("instance-price page starts printing per-GPU prices in the same cells (CoreWeave 8x HGX H100 "
          "$49.24 -> $6.16), two nights running",
          expected="held both nights as 'unit switch?'; $49.24/h stays; no price change, no alert, no claim moved",
          observed=f"{held[2][1]}; latest ${latest[0][0]:g}/h; 0 price changes, 0 alerts")


@pytest.mark.fault
def test_a_page_with_counts_read_in_the_wrong_unit_is_suspect_on_its_first_night(fault):
    pricing, specs = (THUNDER / "v1_pricing.json").read_text(), (THUNDER / "v1_specs.json").read_text()
    doc = json.loads(pricing)
    # "h100_x2_production": 6.98, "h100_x8_production": 27.92 (instance prices, $3.49 per GPU).
    assert doc["pricing"]["h100_x8_production"] == 27.92

    def judged(change):
        changed = copy.deepcopy(doc)
        changed["pricing"] = {k: change(v, int(k.split("_x")[1].split("_")[0])) if "_x" in k else v
                              for k, v in doc["pricing"].items()}
        parsed = thunder_compute.parse_offers(json.dumps(changed), specs, "https://api.thundercompute.com:8443/v1/pricing",
                                              "https://api.thundercompute.com:8443/v1/specs")
        return judge.judge_crawl(run_parsed("thunder_compute", parsed))

    assert judged(lambda v, n: v).status == "ok"
    up = judged(lambda v, n: round(v * n, 2))          # every price x its count (per-GPU figures quoted per node)
    down = judged(lambda v, n: round(v / n, 2))        # every price / its count (per-GPU figures as node prices)
    assert up.status == down.status == "suspect"
    assert "unit switch?" in up.error and "an instance price read as per-GPU?" in up.error
    assert "unit switch?" in down.error and "a per-GPU price read as per-instance?" in down.error
    fault("a page that prints GPU counts is read in the wrong unit from its first night (Thunder Compute's "
          "x2/x4/x8 prices times, or divided by, the count)",
          expected="suspect with 'unit switch?' either way (no history needed): its offers are not the latest",
          observed=f"{up.error} || {down.error}")


AWS_SRC = CAPTURES_SRC / "2026-09-28" / "aws"
AWS_URL = aws.OFFERS.format(region="us-east-1")


def _aws(doc):
    return run_parsed("aws", aws.parse_offer_file(json.dumps(doc).encode(), AWS_URL), url=AWS_URL)


@pytest.mark.fault
def test_an_aws_on_demand_term_with_an_upfront_fee_is_no_on_demand_hourly_price(fault):
    doc = json.loads((AWS_SRC / "us-east-1.json").read_text())
    sku = next(s for s, p in doc["products"].items() if p["attributes"]["instanceType"] == "p5.48xlarge")
    [term] = doc["terms"]["OnDemand"][sku].values()
    [dim] = term["priceDimensions"].values()
    assert dim["unit"] == "Hrs" and dim["pricePerUnit"] == {"USD": "55.0400000000"}   # the real p5 price
    # The term gains an upfront fee beside its hourly rate (the Reserved terms' documented shape).
    term["priceDimensions"][f"{term['offerTermCode']}.2TG2D8R56U"] = {
        "unit": "Quantity", "description": "Upfront Fee", "pricePerUnit": {"USD": "1000"}}
    result = _aws(doc)
    outcome = judge.judge_crawl(result)
    [p5] = [o for o in result.items if o["sku"] == "p5.48xlarge"]
    assert (p5["billing"], p5["is_priced"], p5["price_per_hour"]) == ("on-demand", False, None)
    assert p5["price_text"] == p5["price_raw"] == "$55.04/h + $1000 upfront (OnDemand JRTCKXETXF)"
    facts = {f["fact"]: f["value_text"] for f in result.facts}
    assert facts["on_demand_with_upfront_fee"] == "p5.48xlarge us-east-1: $55.04/h + $1000 upfront"
    assert outcome.status == "ok" and sum(o["is_priced"] for o in result.items) == len(result.items) - 1
    # A zero fee is no fee (the term is the ordinary hourly price).
    term["priceDimensions"][f"{term['offerTermCode']}.2TG2D8R56U"]["pricePerUnit"] = {"USD": "0.0000000000"}
    assert [o["price_per_hour"] for o in _aws(doc).items if o["sku"] == "p5.48xlarge"] == [55.04]
    fault("AWS OnDemand term carrying an upfront fee besides its hourly rate (p5.48xlarge us-east-1 "
          "$55.04/h + $1000 Quantity dimension)",
          expected="no on-demand hourly price: the offer kept unpriced with the term as text; counted fact",
          observed=f"is_priced {p5['is_priced']}, price_text {p5['price_text']!r}; "
                   f"fact on_demand_with_upfront_fee: {facts['on_demand_with_upfront_fee']}; provider {outcome.status}")


@pytest.mark.fault
def test_an_aws_no_upfront_reserved_term_carrying_a_fee_is_not_an_hourly_price():
    doc = json.loads((AWS_SRC / "us-east-1.json").read_text())
    sku = next(s for s, p in doc["products"].items() if p["attributes"]["instanceType"] == "p5.48xlarge")
    code = "4NA7Y494T4"
    doc["terms"]["Reserved"][sku] = {f"{sku}.{code}": {
        "offerTermCode": code, "sku": sku,
        "priceDimensions": {f"{sku}.{code}.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {"USD": "38.5280000000"}},
                            f"{sku}.{code}.2TG2D8R56U": {"unit": "Quantity", "pricePerUnit": {"USD": "5000"}}},
        "termAttributes": {"LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "No Upfront"}}}
    result = _aws(doc)
    assert [o["billing"] for o in result.items if o["sku"] == "p5.48xlarge"] == ["on-demand"]
    assert {f["fact"]: f["value_text"] for f in result.facts}["reserved_with_upfront_fee"] == \
        "p5.48xlarge 1yr standard No Upfront"


AZURE_REAL = json.loads((ROOT / "tests" / "real" / "azure" / "ewyluda_azure.json").read_text())
AZURE_H100 = next(i for i in AZURE_REAL if (i["armSkuName"], i["armRegionName"]) == ("Standard_ND96isr_H100_v5", "eastus"))


def _azure(items):
    text = json.dumps({"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
                       "Items": items, "NextPageLink": None, "Count": len(items)})
    return run_parsed("azure", azure.parse_prices(text, azure.URL), url=azure.URL)


@pytest.mark.fault
def test_an_azure_reservation_is_never_an_on_demand_price(fault):
    # The real eastus ND96isr H100 v5 item: retailPrice 98.32, "1 Hour", type "Consumption".
    assert (AZURE_H100["retailPrice"], AZURE_H100["type"]) == (98.32, "Consumption")
    reservation = {**AZURE_H100, "type": "Reservation", "reservationTerm": "3 Years", "retailPrice": 1447000.0}
    mislabelled = {**AZURE_H100, "armRegionName": "westus3", "reservationTerm": "1 Year", "retailPrice": 521000.0}
    by_name = {**AZURE_H100, "armRegionName": "japaneast", "meterName": "ND96isrH100v5 Reservation",
               "retailPrice": 40.0}
    result = _azure([reservation, mislabelled, by_name, AZURE_H100])
    assert [(o["region"], o["billing"], o["price_per_hour"]) for o in result.items] == [("eastus", "on-demand", 98.32)]
    fact = {f["fact"]: f for f in result.facts}["non_consumption_meters"]
    assert fact["value_num"] == 3
    assert "Standard_ND96isr_H100_v5@westus3 'ND96isrH100v5': Consumption naming a reservation 1 Year" in \
        fact["value_text"]
    assert judge.judge_crawl(result).status == "ok"
    fault("Azure reservation items in the retail prices answer (type Reservation / a reservationTerm under "
          "type Consumption / a meter named Reservation)",
          expected="none is an on-demand price: skipped and counted (non_consumption_meters); the pay-as-you-go "
                   "item still reads",
          observed=f"offers {[(o['region'], o['billing'], o['price_per_hour']) for o in result.items]}; "
                   f"non_consumption_meters {fact['value_num']}: {fact['value_text']}")


GCP_PAGE = (ROOT / "tests" / "real" / "gcp" / "ewyluda_gpus_pricing_tables.html").read_text()


@pytest.mark.fault
def test_a_gcp_commitment_price_under_the_on_demand_header_is_never_on_demand(fault):
    assert judge.judge_crawl(run_parsed("gcp", gcp.parse_pricing(GCP_PAGE, gcp.URL), url=gcp.URL)).status == "ok"
    # <p>Price (USD)</p><sup>*</sup>...: the on-demand header of both tables; it now names a
    # 1-year commitment (its cells: commitment prices).
    assert GCP_PAGE.count("<p>Price (USD)</p>") == 2
    changed = GCP_PAGE.replace("<p>Price (USD)</p>", "<p>Price (USD) 1 Year commitment</p>")
    parsed = gcp.parse_pricing(changed, gcp.URL)
    outcome = judge.judge_crawl(run_parsed("gcp", parsed, url=gcp.URL))
    assert not [o for o in parsed.offers if o["billing"] == "on-demand" and o["tier"] == "on-demand"]
    assert outcome.status == "failed" and "price table header changed: unknown column(s)" in outcome.error
    assert "unknown column(s) ['Price (USD) 1 Year commit" in outcome.error
    fault("GCP pricing page's on-demand header starts naming a commitment (\"Price (USD) 1 Year commitment\")",
          expected="not read as on-demand: the header is an unknown column, the provider fails with one line",
          observed=outcome.error)

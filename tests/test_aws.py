"""AWS EC2: parse_price_page (the default source) on the shipped REAL 2026-09-28 capture, and
parse_offer_file (the bulk offer-file option) on the COMPOSED offer files kept beside it.

The capture (captures/src/2026-09-28/aws/exchanges.yaml) is REAL: each body is the verbatim
span of one region's document in the real recording tests/real/aws/ewyluda_aws.json (the
documents the EC2 on-demand pricing page reads: meteredUnitMaps .../ec2-ondemand-without-sec-sel/
<Location>/Linux/index.json), trimmed by the origin to its GPU offers. Expected values below are
read off that recording (quoted). The offer files (<region>.json beside it) are COMPOSED from the
same real prices in the documented offer-file shape; they test the option only.
"""

import copy
import json

import pytest

from pricewatch.collect import judge
from spiders.aws import OFFERS, AwsSpider, parse_offer_file, parse_price_page, price_page_url
from spiders.base import Parsed
from tests.conftest import CAPTURES_SRC, ROOT, shipped
from tests.inprocess import run_parsed

SRC = CAPTURES_SRC / "2026-09-28" / "aws"
REAL = json.loads((ROOT / "tests" / "real" / "aws" / "ewyluda_aws.json").read_text())
REGIONS = ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1", "ap-south-1", "ap-southeast-2", "sa-east-1")
US_EAST_1 = json.loads((SRC / "us-east-1.json").read_text())       # composed offer file (the option)
URL = OFFERS.format(region="us-east-1")
PAGE_URL = price_page_url("us-east-1")
PAGE = json.loads((SRC / "price_page" / "us-east-1.json").read_text())   # real
VIRGINIA = "US East (N. Virginia)"


def run(doc=US_EAST_1, url=URL):
    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return run_parsed("aws", parse_offer_file(body, url), url=url)


def run_page(doc=PAGE, url=PAGE_URL):
    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return run_parsed("aws", parse_price_page(body, url), url=url)


def page_variant():
    return copy.deepcopy(PAGE)


def entry(doc, instance_type):
    return next(e for e in doc["regions"][VIRGINIA].values() if e["Instance Type"] == instance_type)


def variant():
    return copy.deepcopy(US_EAST_1)


def sku_of(doc, instance_type):
    return next(s for s, p in doc["products"].items() if p["attributes"]["instanceType"] == instance_type)


def offers(result, instance_type):
    return {(o["billing"], o["tier"], o["reserved_term"]): o for o in result.items if o["sku"] == instance_type}


def facts_of(result):
    return {f["fact"]: f["value_text"] for f in result.facts}


# --- the default source: the price page's documents (REAL) ------------------------------------

def test_the_capture_bodies_are_the_real_region_documents_verbatim():
    raw = (ROOT / "tests" / "real" / "aws" / "ewyluda_aws.json").read_text()
    for region in REGIONS:
        body = (SRC / "price_page" / f"{region}.json").read_text()
        assert body.rstrip("\n") in raw                      # a byte span of the recording, unchanged
        [location] = json.loads(body)["regions"]
        assert json.loads(body) == REAL[location]
    assert sum(len(v) for d in REAL.values() for v in d["regions"].values()) == 51


def test_replay_of_the_shipped_capture(crawl):
    result = crawl("aws", shipped("aws"))
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 51   # every real offer, 7 regions read one after the other
    # "p5 48xlarge US East N. Virginia Linux": "price": "55.0400000000", "Instance Type": "p5.48xlarge"
    [p5] = [o for o in result.items if (o["sku"], o["region"]) == ("p5.48xlarge", "us-east-1")]
    assert (p5["gpu_model"], p5["gpu_count"], p5["price_per_hour"], p5["price_per_gpu_hour"]) == ("H100", 8, 55.04, 6.88)
    assert p5["capture"]["source_url"] == PAGE_URL == (
        "https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/"
        "ec2-ondemand-without-sec-sel/US%20East%20(N.%20Virginia)/Linux/index.json")
    assert {o["region"] for o in result.items} == set(REGIONS)
    assert result.report["unknown_labels"] == []


def test_price_page_instance_types_give_gpu_model_and_count():
    result = run_page()
    assert judge.judge_crawl(result).status == "ok"
    got = {o["sku"]: (o["gpu_model"], o["gpu_count"], o["price_per_hour"]) for o in result.items}
    assert got == {
        "p5.48xlarge": ("H100", 8, 55.04),          # "price": "55.0400000000"
        "p5.4xlarge": ("H100", 1, 6.88),            # "price": "6.8800000000"
        "p4d.24xlarge": ("A100 40GB", 8, 21.957642),  # "price": "21.9576420000"
        "p4de.24xlarge": ("A100 80GB", 8, 27.44705),  # "price": "27.4470500000"
        "p5en.48xlarge": ("H200", 8, 63.296),       # "price": "63.2960000000"
        "p6-b200.48xlarge": ("B200", 8, 113.9328),  # "price": "113.9328000000"
        "p6-b300.48xlarge": ("B300", 8, 142.416),   # "price": "142.4160000000"
        "g6e.48xlarge": ("L40S", 8, 30.13118),      # "price": "30.1311800000"
        "g6e.12xlarge": ("L40S", 4, 10.49264),      # "price": "10.4926400000"
        "g6e.xlarge": ("L40S", 1, 1.861),           # "price": "1.8610000000"
    }
    assert {(o["billing"], o["price_unit"], o["currency"], o["region"]) for o in result.items} == \
        {("on-demand", "instance_hour", "USD", "us-east-1")}
    # "p5 48xlarge US East N. Virginia Linux": "rateCode": "3D4V8UAYEMB38GU2.JRTCKXETXF.6YS6EN2CT7"
    assert entry(PAGE, "p5.48xlarge")["rateCode"] == "3D4V8UAYEMB38GU2.JRTCKXETXF.6YS6EN2CT7"


def test_sao_paulo_reads_its_own_location():
    body = (SRC / "price_page" / "sa-east-1.json").read_bytes()
    result = run_page(body, price_page_url("sa-east-1"))
    # p4d, p5 x2, p6-b300 in "South America (Sao Paulo)"
    assert sorted(o["sku"] for o in result.items) == ["p4d.24xlarge", "p5.48xlarge", "p5.4xlarge", "p6-b300.48xlarge"]
    assert {o["region"] for o in result.items} == {"sa-east-1"}


def test_price_page_only_linux_without_software_or_licence_is_an_offer():
    doc = page_variant()
    p5 = entry(doc, "p5.48xlarge")
    for n, change in enumerate(({"Operating System": "Windows"}, {"Pre Installed S/W": "SQL Std"},
                                {"License Model": "Bring your own license"})):
        doc["regions"][VIRGINIA][f"clone {n}"] = {**p5, **change, "price": "99.0000000000"}
    result = run_page(doc)
    assert [o["price_per_hour"] for o in result.items if o["sku"] == "p5.48xlarge"] == [55.04]
    assert judge.judge_crawl(result).status == "ok"


def test_price_page_a_term_other_than_on_demand_is_never_an_on_demand_price():
    # A Reserved term's code (4NA7Y494T4: 1 yr standard No Upfront) in the on-demand map.
    doc = page_variant()
    p5 = entry(doc, "p5.48xlarge")
    p5["rateCode"] = "3D4V8UAYEMB38GU2.4NA7Y494T4.6YS6EN2CT7"
    result = run_page(doc)
    assert "p5.48xlarge" not in {o["sku"] for o in result.items}
    assert facts_of(result)["not_on_demand_terms"] == "p5.48xlarge 3D4V8UAYEMB38GU2.4NA7Y494T4.6YS6EN2CT7"
    assert judge.judge_crawl(result).status == "ok"


def test_price_page_an_upfront_fee_is_no_on_demand_hourly_price():
    doc = page_variant()
    entry(doc, "p5.48xlarge")["riupfront:PricePerUnit"] = "1000"
    result = run_page(doc)
    [p5] = [o for o in result.items if o["sku"] == "p5.48xlarge"]
    assert (p5["billing"], p5["is_priced"], p5["price_per_hour"]) == ("on-demand", False, None)
    assert p5["price_raw"] == "$55.04/h + $1000 upfront (OnDemand JRTCKXETXF)"
    assert facts_of(result)["on_demand_with_upfront_fee"] == "p5.48xlarge us-east-1: $55.04/h + $1000 upfront"
    # A zero fee is no fee.
    entry(doc, "p5.48xlarge")["riupfront:PricePerUnit"] = "0"
    assert [o["price_per_hour"] for o in run_page(doc).items if o["sku"] == "p5.48xlarge"] == [55.04]


def test_price_page_new_families_from_the_table_and_an_unknown_one_is_news():
    doc = page_variant()
    g6e = entry(doc, "g6e.xlarge")
    entries = doc["regions"][VIRGINIA]
    # Variants of the real g6e entry (prices ours) for the types the table gained, and one it lacks.
    for itype, price in (("p6e-gb200.36xlarge", "80.0000000000"), ("g5g.16xlarge", "2.7440000000"),
                         ("gr6.8xlarge", "2.4464000000"), ("g6f.large", "0.2020000000"),
                         ("g7e.2xlarge", "3.3600000000")):
        entries[itype] = {**g6e, "Instance Type": itype, "price": price}
    result = run_page(doc)
    got = {o["sku"]: (o["gpu_model"], o["gpu_count"]) for o in result.items}
    assert got["p6e-gb200.36xlarge"] == ("GB200", 4)
    assert got["g5g.16xlarge"] == ("T4", 2)            # T4G: the T4 of the Graviton instances
    assert got["gr6.8xlarge"] == ("L4", 1)
    assert "g6f.large" not in got and "g7e.2xlarge" not in got
    facts = facts_of(result)
    assert facts["fractional_gpu_types"] == "g6f.large (1/8 NVIDIA L4)"
    assert facts["unknown_instance_types"] == "g7e.2xlarge"
    assert result.report["unknown_labels"] == []
    # A non-GPU type is neither an offer nor news.
    entries["m7i"] = {**g6e, "Instance Type": "m7i.large", "Instance Family": "General purpose"}
    assert "unknown_instance_types" in facts_of(run_page(doc)) and \
        facts_of(run_page(doc))["unknown_instance_types"] == "g7e.2xlarge"


def test_price_page_layout_changes_fail():
    doc = page_variant()
    entry(doc, "p5.48xlarge")["price"] = "$55.04"
    outcome = judge.judge_crawl(run_page(doc))
    assert outcome.status == "failed" and "price is not a number: p5.48xlarge: '$55.04'" in outcome.error
    outcome = judge.judge_crawl(run_page({"region": PAGE["regions"]}))
    assert outcome.status == "failed" and "a 'regions' object" in outcome.error
    outcome = judge.judge_crawl(run_page(PAGE, price_page_url("us-east-2")))
    assert outcome.status == "failed" and "has no 'US East (Ohio)' object" in outcome.error
    doc = page_variant()
    entry(doc, "p5.48xlarge")["Location"] = "US East (Ohio)"
    outcome = judge.judge_crawl(run_page(doc))
    assert outcome.status == "failed" and "an entry of another location: p5.48xlarge" in outcome.error
    outcome = judge.judge_crawl(run_page({**PAGE, "manifest": {"currencyCode": "CNY"}}))
    assert outcome.status == "failed" and "currencyCode='CNY'" in outcome.error
    body = json.dumps(PAGE).encode()
    outcome = judge.judge_crawl(run_page(body[: len(body) // 2]))
    assert outcome.status == "failed" and "not a JSON document we can read" in outcome.error
    outcome = judge.judge_crawl(run_page({"regions": {VIRGINIA: {}}}))
    assert outcome.status == "failed" and "no GPU instance type we know" in outcome.error


def test_the_source_is_chosen_by_argument():
    assert AwsSpider().source == "price-page"
    assert AwsSpider(offers_url="http://127.0.0.1:1/{region}/index.json").source == "offer-file"
    assert AwsSpider(source="offer-file").source == "offer-file"
    with pytest.raises(ValueError, match="no location name known for region"):
        AwsSpider(regions="xx-nowhere-1")


# --- the option: the bulk offer files (COMPOSED from the real prices) ---------------------------

def test_the_composed_offer_files_carry_the_real_values():
    real = {o["rateCode"]: (o["price"], o["Instance Type"], o["Location"])
            for doc in REAL.values() for offers_ in doc["regions"].values() for o in offers_.values()}
    composed = {}
    for region in REGIONS:
        doc = json.loads((SRC / f"{region}.json").read_text())
        for sku, terms in doc["terms"]["OnDemand"].items():
            attrs = doc["products"][sku]["attributes"]
            for term in terms.values():
                for rate, dim in term["priceDimensions"].items():
                    composed[rate] = (dim["pricePerUnit"]["USD"], attrs["instanceType"], attrs["location"])
    assert composed == real and len(real) == 51


def test_offer_file_reads_the_same_offers_as_the_price_page():
    a = {(o["sku"], o["price_raw"]) for o in run().items}
    b = {(o["sku"], o["price_raw"]) for o in run_page().items}
    assert a == b and len(a) == 10


def test_only_linux_shared_tenancy_without_software_is_an_offer():
    doc = variant()
    sku = sku_of(doc, "p5.48xlarge")
    for n, change in enumerate(({"operatingSystem": "Windows"}, {"tenancy": "Dedicated"},
                                {"preInstalledSw": "SQL Std"}, {"capacitystatus": "UnusedCapacityReservation"},
                                {"licenseModel": "Bring your own license"})):
        clone = f"CLONE{n}"
        doc["products"][clone] = {**copy.deepcopy(doc["products"][sku]), "sku": clone}
        doc["products"][clone]["attributes"].update(change)
        doc["terms"]["OnDemand"][clone] = {f"{clone}.JRTCKXETXF": {
            **copy.deepcopy(next(iter(doc["terms"]["OnDemand"][sku].values()))), "sku": clone}}
    result = run(doc)
    assert [o["price_per_hour"] for o in result.items if o["sku"] == "p5.48xlarge"] == [55.04]
    assert judge.judge_crawl(result).status == "ok"


def _reserved_term(sku, code, length, option, klass, hourly, upfront=None):
    dims = {f"{sku}.{code}.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {"USD": hourly}}}
    if upfront:
        dims[f"{sku}.{code}.2TG2D8R56U"] = {"unit": "Quantity", "pricePerUnit": {"USD": upfront}}
    return {f"{sku}.{code}": {"offerTermCode": code, "sku": sku, "priceDimensions": dims,
                              "termAttributes": {"LeaseContractLength": length, "OfferingClass": klass,
                                                 "PurchaseOption": option}}}


def test_reserved_no_upfront_is_reserved_with_its_term_upfront_options_are_not_hourly():
    # Variant (no real Reserved price is recorded): the documented termAttributes shape.
    doc = variant()
    sku = sku_of(doc, "p5.48xlarge")
    doc["terms"]["Reserved"][sku] = {**_reserved_term(sku, "4NA7Y494T4", "1yr", "No Upfront", "standard", "38.5280000000"),
                                     **_reserved_term(sku, "HU7G6KETJZ", "3yr", "Partial Upfront", "standard",
                                                      "11.0000000000", upfront="289000")}
    result = run(doc)
    p5 = offers(result, "p5.48xlarge")
    reserved = p5[("reserved", "standard no upfront", "1 year")]
    assert (reserved["price_per_hour"], reserved["offer_key"]) == \
        (38.528, "8x p5.48xlarge 80GB reserved/standard no upfront 1 year @us-east-1")
    assert len(p5) == 2   # on-demand + the no-upfront term; the partial-upfront one is no hourly price
    facts = {f["fact"]: f for f in result.facts}
    assert facts["reserved_with_upfront_fee"]["value_text"] == "p5.48xlarge 3yr standard Partial Upfront"


def test_an_unknown_gpu_instance_type_is_reported_not_guessed():
    doc = variant()
    sku = sku_of(doc, "g6e.xlarge")
    doc["products"][sku]["attributes"]["instanceType"] = "g7e.2xlarge"
    result = run(doc)
    assert "g7e.2xlarge" not in {o["sku"] for o in result.items}
    assert {f["fact"]: f["value_text"] for f in result.facts}["unknown_instance_types"] == "g7e.2xlarge"


def test_a_unit_or_currency_change_fails():
    doc = variant()
    sku = sku_of(doc, "p5.48xlarge")
    [dim] = next(iter(doc["terms"]["OnDemand"][sku].values()))["priceDimensions"].values()
    dim["unit"] = "Month"
    outcome = judge.judge_crawl(run(doc))
    assert outcome.status == "failed" and "unit is not Hrs: p5.48xlarge JRTCKXETXF: 'Month'" in outcome.error
    dim["unit"], dim["pricePerUnit"] = "Hrs", {"CNY": "380.00"}
    outcome = judge.judge_crawl(run(doc))
    assert outcome.status == "failed" and "pricePerUnit is not in USD" in outcome.error


def test_not_an_ec2_offer_file_or_a_cut_body_fails():
    outcome = judge.judge_crawl(run({**US_EAST_1, "offerCode": "AmazonS3"}))
    assert outcome.status == "failed" and "not an AmazonEC2 offer file" in outcome.error
    body = json.dumps(US_EAST_1).encode()
    outcome = judge.judge_crawl(run(body[: len(body) // 2]))
    assert outcome.status == "failed" and "not a JSON document we can read" in outcome.error


def test_a_gpu_instance_without_an_on_demand_price_fails():
    doc = variant()
    del doc["terms"]["OnDemand"][sku_of(doc, "p5.48xlarge")]
    outcome = judge.judge_crawl(run(doc))
    assert outcome.status == "failed" and "a GPU instance has no OnDemand term: p5.48xlarge" in outcome.error


def test_the_parser_reads_bytes_and_memoryviews_alike():
    body = (SRC / "sa-east-1.json").read_bytes()
    url = OFFERS.format(region="sa-east-1")
    a, b = parse_offer_file(body, url), parse_offer_file(memoryview(body), url)
    assert isinstance(a, Parsed) and a.offers == b.offers and len(a.offers) == 4

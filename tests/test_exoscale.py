"""Exoscale on its REAL price-list capture (GET portal.exoscale.com/api/pricing/opencompute; see
captures/src/2026-12-02/exoscale/exchanges.yaml for where the copy comes from).

Expected values are read off the capture's JSON by hand (quoted). The list is {"chf": {...},
"eur": {...}, "usd": {...}}, each section a price key -> decimal string per instance-hour:
"running_gpua5000_small": "1.34028000" in all three. The list names no GPU and no count; the
spider's DOCUMENTED_TYPES says which types it reads and from where.
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders import exoscale
from spiders.exoscale import PRICE_LIST, parse_price_list
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2026-12-02" / "exoscale" / "opencompute.json").read_text(encoding="utf-8")


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("exoscale", parse_price_list(text, PRICE_LIST), url=PRICE_LIST)


def changed(section: str = "usd", **prices) -> str:
    doc = json.loads(TEXT)
    doc[section].update(prices)
    return json.dumps(doc)


def test_the_documented_gpu_type_per_instance_hour_in_usd():
    result = run()
    assert judge.judge_crawl(result).status == "ok"
    # "usd": {... "running_gpua5000_small": "1.34028000" ...}; gpua5000.small: "gpus": 1 (DOCUMENTED_TYPES)
    [o] = result.items
    assert (o["sku"], o["gpu_model"], o["gpu_count"], o["vram_gb"], o["price_per_hour"], o["price_per_gpu_hour"]) == \
        ("gpua5000.small", "RTX A5000", 1, 24, 1.34028, 1.34028)
    assert (o["currency"], o["price_unit"], o["billing"], o["region"]) == ("USD", "instance_hour", "on-demand", None)


def test_gpu_types_without_documented_gpus_are_told_not_offered():
    # 26 running_gpu* keys in the usd section ("running_gpu_small" ... "running_gpurtx6000pro_huge"),
    # one of them documented: the other 25 are named in a fact, none is an offer.
    [fact] = parse_price_list(TEXT, PRICE_LIST).facts
    assert (fact["fact"], fact["value_num"]) == ("gpu_types_without_documented_gpus", 25)
    named = fact["value_text"].split(", ")
    assert {"running_gpu3_small", "running_gpua30_huge", "running_gpurtx6000pro_huge", "running_gpua5000_medium"} <= set(named)
    # CPU, memory, storage and standard instances, and the storage/network prices, are no GPU types.
    assert not {k for k in named if not k.startswith("running_gpu")}
    assert "running_cpu_titan" not in named and "running_medium" not in named


def test_the_usd_section_is_read_never_converted():
    # Another figure in the chf or eur section changes nothing; one in usd is the price.
    moved = changed("eur", running_gpua5000_small="9.99000000")
    assert [o["price_per_hour"] for o in run(moved).items] == [1.34028]
    assert [o["price_per_hour"] for o in run(changed(running_gpua5000_small="1.50000000")).items] == [1.5]


def test_one_garbled_price_is_held_the_others_load(monkeypatch):
    # A second documented type, for this test only: gpua30.small ("running_gpua30_small": "1.22645833").
    monkeypatch.setitem(exoscale.DOCUMENTED_TYPES, ("gpua30", "small"), ("A30", 1, "this test"))
    result = run(changed(running_gpua5000_small="1,34028"))
    assert judge.judge_crawl(result).status == "suspect"
    offers = {o["sku"]: o for o in result.items}
    held = offers["gpua5000.small"]
    assert held["is_priced"] is False and "price '1,34028' is not a positive decimal string" in held["held_row"]
    assert (offers["gpua30.small"]["is_priced"], offers["gpua30.small"]["price_per_hour"]) == (True, 1.22645833)


@pytest.mark.parametrize("value", ["0E-8", "-1.34028000", "", None, 1.34028])
def test_a_price_that_is_not_a_positive_decimal_string_holds_the_row(value):
    # "traffic_free": "0E-8" is how the list prints a zero; a number (not a string) is a changed layout.
    [o] = run(changed(running_gpua5000_small=value)).items
    assert o["is_priced"] is False and "is not a positive decimal string" in o["held_row"]


@pytest.mark.parametrize("text, message", [
    (json.dumps({k: v for k, v in json.loads(TEXT).items() if k != "usd"}), "with a 'usd' object of prices"),
    (json.dumps(dict(json.loads(TEXT), usd=[])), "with a 'usd' object of prices"),
    (json.dumps({"usd": {k: v for k, v in json.loads(TEXT)["usd"].items() if not k.startswith("running_gpu")}}),
     "no GPU instance price (running_gpu*) among 34 usd prices"),
    (json.dumps({"usd": {k: v for k, v in json.loads(TEXT)["usd"].items() if not k.startswith("running_gpua5000")}}),
     "none of the documented GPU types (gpua5000.small) is in the usd prices"),
    ("<html>Service Unavailable</html>", "portal.exoscale.com"),
])
def test_changed_layouts_fail(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_replay_of_the_real_capture(crawl):
    result = crawl("exoscale", shipped("exoscale"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 1

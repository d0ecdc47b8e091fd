"""Nebius spider on its recorded 2026-10-29 prices page (escaped JSON table in __NEXT_DATA__),
and on variants of it: the column set before 2026-10-01, a dated column not yet in force, a
renamed on-demand column."""

import json
import re

import pytest

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "nebius.warc.gz"
NEXT_DATA = re.compile(rb'(<script id="__NEXT_DATA__" type="application/json">)(.*?)(</script>)', re.S)
DATED = "GPU-hour (Effective October 1, 2026)"


def by_key(items):
    return {i["offer_key"]: i for i in items}


def variant(edit, captured_at=None):
    """The shipped capture with its GPU table rewritten by ``edit(rows) -> rows``."""
    ex = source_exchanges("2026-10-29", "nebius")
    body = ex[0]["body"]
    m = NEXT_DATA.search(body)
    data = json.loads(m[2])
    page = next(v for v in data["props"]["pageProps"]["__APOLLO_STATE__"].values() if "content" in v)
    content = json.loads(page["content"])  # the JSON string that the HTML shows escaped
    block = next(b for b in content["blocks"] if b.get("title") == "NVIDIA GPU Instances")
    block["table"]["content"] = edit(block["table"]["content"])
    page["content"] = json.dumps(content)
    ex[0]["body"] = body[:m.start(2)] + json.dumps(data).encode() + body[m.end(2):]
    if captured_at:
        ex[0]["captured_at"] = captured_at
    return ex


def columns(rows, names):
    """The table with exactly these columns, in this order (picked by header name)."""
    idx = [rows[0].index(n) for n in names]
    return [[r[i] for i in idx] for r in rows]


def test_on_2026_10_29_the_price_effective_october_1_is_the_on_demand_price(crawl):
    offers = by_key(crawl("nebius", CAPTURE).items)
    # PROVIDERS.md §13: H100 $3.85 -> $4.50, H200 $4.50 -> $5.40, B200 $7.15 -> $8.50 from
    # 2026-10-01; the capture is of 2026-10-29, so the new prices are in force.
    for item, price in (("NVIDIA HGX H100", 4.50), ("NVIDIA HGX H200", 5.40), ("NVIDIA HGX B200", 8.50)):
        o = offers[f"{item} on-demand"]
        assert (o["price_per_gpu_hour"], o["price_per_hour"], o["gpu_count"]) == (price, price, 1)
        assert (o["billing"], o["tier"], o["price_unit"], o["self_service"]) == ("on-demand", "on-demand", "gpu_hour", True)
        assert o["form_factor"] == "SXM"


def test_preemptible_column_is_spot_per_gpu_hour(crawl):
    offers = by_key(crawl("nebius", CAPTURE).items)
    # PROVIDERS.md §13: "preemptible from $0.79/$0.99" (the L40S rows print "from $...").
    l40s = sorted(o["price_per_gpu_hour"] for k, o in offers.items() if k.startswith("NVIDIA L40S") and k.endswith("preemptible"))
    assert l40s == [0.79, 0.99]
    h100 = offers["NVIDIA HGX H100 preemptible"]
    assert (h100["billing"], h100["tier"], h100["price_per_gpu_hour"]) == ("spot", "preemptible", 2.15)
    assert {o["gpu_model"] for k, o in offers.items() if k.startswith("NVIDIA L40S")} == {"L40S"}


def test_no_nebius_offer_is_an_8x_b200_below_massed_compute(crawl):
    items = crawl("nebius", CAPTURE).items
    # Per-GPU listings state no count: each is one GPU, never an 8-GPU instance at 8x the price.
    assert {i["gpu_count"] for i in items} == {1}
    assert not [i for i in items if i["gpu_model"] == "B200" and i["gpu_count"] == 8]


def test_contact_us_rows_are_unpriced_sales_offers_and_other_tables_are_not_read(crawl):
    result = crawl("nebius", CAPTURE)
    offers = by_key(result.items)
    gb200 = offers["NVIDIA GB200 NVL72 on-demand"]
    assert (gb200["is_priced"], gb200["price_text"], gb200["self_service"]) == (False, "Contact us", False)
    assert "NVIDIA GB200 NVL72 preemptible" not in offers  # printed "--": not offered
    # CPU-only and Storage tables, and the "$2.00 / hour" reservation card, are not GPU offers.
    assert {i["gpu_model"] for i in result.items} == {"GB300", "GB200", "B300", "B200", "H200", "H100", "L40S"}
    assert 2.00 not in {i["price_per_gpu_hour"] for i in result.items}
    outcome = collect.judge_crawl(result)
    assert (outcome.status, outcome.warnings) == ("ok", [])


@pytest.mark.parametrize("order", [
    ["Item", "vCPUs", "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour"],  # as before 2026-10-01
    ["Item", "On-demand, GPU-hour", "Preemptible, GPU-hour", "RAM, GB", "vCPUs"],  # same names, moved
])
def test_old_column_set_before_october_is_read_by_header_name(crawl, make_warc, order):
    ex = variant(lambda rows: columns(rows, order), captured_at="2026-09-20T02:00:09Z")
    offers = by_key(crawl("nebius", make_warc(ex)).items)
    assert offers["NVIDIA HGX H100 on-demand"]["price_per_gpu_hour"] == 3.85
    assert offers["NVIDIA HGX H200 on-demand"]["price_per_gpu_hour"] == 4.50
    assert offers["NVIDIA HGX B200 on-demand"]["price_per_gpu_hour"] == 7.15
    assert offers["NVIDIA HGX B200 preemptible"]["price_per_gpu_hour"] == 3.95


def test_dated_column_before_its_date_is_announced_not_in_force(crawl, make_warc):
    # The same table seen on 2026-09-20: the October price is announced, $3.85 still applies.
    result = crawl("nebius", make_warc(variant(lambda rows: rows, captured_at="2026-09-20T02:00:09Z")))
    offers = by_key(result.items)
    assert offers["NVIDIA HGX H100 on-demand"]["price_per_gpu_hour"] == 3.85
    facts = {f["fact"]: f for f in collect.judge_crawl(result).facts}
    h100 = facts["scheduled_price:NVIDIA HGX H100 on-demand"]
    assert h100["value_num"] == 4.50 and "2026-10-01" in h100["value_text"]


def test_renamed_on_demand_column_fails_naming_provider_and_column(crawl, make_warc):
    def rename(rows):
        rows[0] = ["Pay as you go, GPU-hour" if h == "On-demand, GPU-hour" else h for h in rows[0]]
        return rows

    outcome = collect.judge_crawl(crawl("nebius", make_warc(variant(rename))))
    assert outcome.status == "failed"
    assert "nebius" in outcome.error and "no 'On-demand, GPU-hour' column" in outcome.error
    assert outcome.offers == []


def test_page_without_embedded_table_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "nebius")
    ex[0]["body"] = NEXT_DATA.sub(b"", ex[0]["body"])  # e.g. moved to the App Router's flight data
    outcome = collect.judge_crawl(crawl("nebius", make_warc(ex)))
    assert outcome.status == "failed"
    assert "nebius" in outcome.error and "no embedded price tables" in outcome.error

"""CoreWeave spider on its recorded 2026-10-29 pricing page (Webflow HTML, per instance-hour)."""

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "coreweave.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_hgx_instances_are_priced_per_8_gpu_instance(crawl):
    offers = by_key(crawl("coreweave", CAPTURE))
    # RESEARCH 2026-10-06: HGX H100 $49.24 (spot $19.71), HGX H200 $50.44, HGX B200 $68.80 per instance-hour.
    b200 = offers["nvidia-b200:north-america:on-demand"]
    assert (b200["price_per_hour"], b200["price_per_gpu_hour"], b200["gpu_count"]) == (68.80, 8.60, 8)
    assert (b200["gpu_label"], b200["gpu_model"], b200["form_factor"], b200["vram_gb"]) == ("NVIDIA HGX B200", "B200", "SXM", 180)
    assert offers["nvidia-h200:north-america:on-demand"]["price_per_hour"] == 50.44
    assert offers["nvidia-h100:north-america:on-demand"]["price_per_hour"] == 49.24
    spot = offers["nvidia-h100:north-america:spot"]
    assert (spot["price_per_hour"], spot["billing"], spot["gpu_count"]) == (19.71, "spot", 8)


def test_footnoted_gpu_count_4_1_is_four_gpus_not_41(crawl):
    body = source_exchanges("2026-10-29", "coreweave")[0]["body"]
    assert b'<div class="table-meta-value">4^1</div>' in body
    gb200 = by_key(crawl("coreweave", CAPTURE))["nvidia-gb200-nvl72:north-america:on-demand"]
    # PROVIDERS.md §6: GB200 NVL72 $42.00 per 4 GPUs.
    assert (gb200["gpu_count"], gb200["price_per_hour"], gb200["price_per_gpu_hour"]) == (4, 42.00, 10.50)
    assert (gb200["gpu_model"], gb200["form_factor"]) == ("GB200", "NVL")


def test_footnote_as_superscript_is_not_read_into_the_count(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "coreweave")
    ex[0]["body"] = ex[0]["body"].replace(b">4^1</div>", b">4<sup>1</sup></div>")
    gb200 = by_key(crawl("coreweave", make_warc(ex)))["nvidia-gb200-nvl72:north-america:on-demand"]
    assert gb200["gpu_count"] == 4 and gb200["price_per_gpu_hour"] == 10.50


def test_unlabeled_duplicate_price_and_hidden_spans_add_no_offers(crawl):
    result = crawl("coreweave", CAPTURE)
    offers = by_key(result)
    # 5 models in North America (H100 with spot) + H100/H200 in Europe; the <div>$68.80</div>
    # copy and Europe's hidden, empty spot span are not offers.
    assert len(result.items) == 8 and result.report["duplicates_dropped"] == 0
    assert [k for k in offers if k.startswith("nvidia-b200")] == ["nvidia-b200:north-america:on-demand"]
    assert "nvidia-h100:europe:spot" not in offers


def test_regions_are_kept_apart(crawl):
    offers = by_key(crawl("coreweave", CAPTURE))
    assert offers["nvidia-h100:europe:on-demand"]["region"] == "Europe"
    assert offers["nvidia-h100:north-america:on-demand"]["region"] == "North America"


def test_cpu_instances_are_not_gpu_offers(crawl):
    body = source_exchanges("2026-10-29", "coreweave")[0]["body"]
    assert b"On-demand CPU instances" in body and b"AMD Genoa" in body
    result = crawl("coreweave", CAPTURE)
    assert not [i for i in result.items if "Genoa" in i["gpu_label"] or "Intel" in i["gpu_label"]]
    assert result.report["unknown_labels"] == []


def test_contact_sales_row_is_unpriced_and_not_self_service(crawl):
    gb300 = by_key(crawl("coreweave", CAPTURE))["nvidia-gb300-nvl72:north-america:on-demand"]
    assert gb300["is_priced"] is False and gb300["price_text"] == "Contact Sales"
    assert gb300["self_service"] is False and gb300["gpu_count"] == 4


def test_no_coreweave_8x_b200_undercuts_the_cited_cheapest(crawl):
    # CLAIMS.md g-cite-massed-b200x8: $43.46/h at Massed Compute is the cheapest on 2026-10-29.
    b200 = [i for i in crawl("coreweave", CAPTURE).items if i["gpu_model"] == "B200" and i["gpu_count"] == 8]
    assert b200 and all(i["price_per_hour"] > 43.46 for i in b200)


def test_rows_renamed_by_a_redesign_fail_naming_what_is_missing(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "coreweave")
    ex[0]["body"] = ex[0]["body"].replace(b"table-row-v2", b"pricing-row-v3")
    outcome = collect.judge_crawl(crawl("coreweave", make_warc(ex)))
    assert outcome.status == "failed"
    assert "coreweave" in outcome.error and "table-row-v2" in outcome.error
    assert outcome.offers == []


def test_unlabeled_price_fails_instead_of_reading_the_duplicate(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "coreweave")
    # The label goes; only the bare "$68.80" copies remain, which must not become prices.
    ex[0]["body"] = ex[0]["body"].replace(b"On-Demand Price: ", b"")
    outcome = collect.judge_crawl(crawl("coreweave", make_warc(ex)))
    assert outcome.status == "failed"
    assert "coreweave" in outcome.error and "On-Demand Price" in outcome.error

"""Hyperstack spider on its recorded 2026-10-29 GPU pricing page (static tables, per GPU-hour)."""

from pricewatch import collect
from tests.conftest import CAPTURES, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "hyperstack.warc.gz"


def by_key(result):
    return {i["offer_key"]: i for i in result.items}


def test_on_demand_prices_per_gpu_hour(crawl):
    offers = by_key(crawl("hyperstack", CAPTURE))
    # PROVIDERS.md §9 (2026-10-06): H100 SXM $3.20, H100 PCIe $2.50, H100 PCIe NVLink $2.60,
    # H200 SXM $3.99, B200 $6.00 per GPU-hour.
    expected = {"NVIDIA H100 SXM": 3.20, "NVIDIA H100 PCIe": 2.50, "NVIDIA H100 PCIe NVLink": 2.60,
                "NVIDIA H200 SXM": 3.99, "NVIDIA B200 SXM": 6.00}
    assert {k.split(":", 1)[1]: o["price_per_gpu_hour"]
            for k, o in offers.items() if o["billing"] == "on-demand"} == expected
    sxm = offers["on-demand:NVIDIA H100 SXM"]
    assert (sxm["gpu_count"], sxm["price_per_hour"], sxm["gpu_model"], sxm["form_factor"], sxm["vram_gb"]) == (1, 3.20, "H100", "SXM", 80)
    assert offers["on-demand:NVIDIA H100 PCIe NVLink"]["form_factor"] == "PCIe"


def test_reserved_rows_without_spec_cells_are_read_by_header(crawl):
    body = source_exchanges("2026-10-29", "hyperstack")[0]["body"]
    # The trap is in the capture: reserved rows have 3 cells where on-demand rows have 6.
    assert b'<span class="gpu-variant">SXM</span></td><td class="price">$2.72</td>' in body
    offers = by_key(crawl("hyperstack", CAPTURE))
    reserved = offers["reserved:NVIDIA H100 SXM"]
    # PROVIDERS.md §9: reserved from H100 SXM $2.72; its VRAM comes from the catalog, not a shifted cell.
    assert (reserved["price_per_gpu_hour"], reserved["billing"], reserved["vram_gb"]) == (2.72, "reserved", 80)
    assert reserved["self_service"] is False  # "Contact us to reserve"
    assert offers["on-demand:NVIDIA H100 SXM"]["price_per_gpu_hour"] == 3.20


def test_spot_table_and_contact_us_rows(crawl):
    offers = by_key(crawl("hyperstack", CAPTURE))
    # PROVIDERS.md §9: spot H100 PCIe $2.00.
    spot = offers["spot:NVIDIA H100 PCIe"]
    assert (spot["price_per_gpu_hour"], spot["billing"], spot["tier"]) == (2.00, "spot", "spot")
    b200 = offers["reserved:NVIDIA B200 SXM"]
    assert (b200["is_priced"], b200["price_text"]) == (False, "Contact us")
    # The storage table is not a GPU offer.
    assert len(offers) == 9


def test_per_gpu_listing_is_one_gpu_and_never_an_8x_b200_below_the_cited_cheapest(crawl):
    result = crawl("hyperstack", CAPTURE)
    assert {i["gpu_count"] for i in result.items} == {1}
    # CLAIMS.md g-cite-massed-b200x8 ($43.46/h) stays the cheapest 8x B200: no 8x offer here.
    assert not [i for i in result.items if i["gpu_model"] == "B200" and i["gpu_count"] == 8]


def test_renamed_model_column_fails_naming_it(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "hyperstack")
    ex[0]["body"] = ex[0]["body"].replace(b"<th>GPU Model</th>", b"<th>GPU</th>")
    outcome = collect.judge_crawl(crawl("hyperstack", make_warc(ex)))
    assert outcome.status == "failed"
    assert "hyperstack" in outcome.error and "GPU Model" in outcome.error
    assert outcome.offers == []


def test_price_header_without_per_gpu_unit_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "hyperstack")
    ex[0]["body"] = ex[0]["body"].replace(b"On-Demand Price (per GPU/hour)", b"On-Demand Price (per VM/hour)")
    outcome = collect.judge_crawl(crawl("hyperstack", make_warc(ex)))
    assert outcome.status == "failed"
    assert "hyperstack" in outcome.error and "per GPU/hour" in outcome.error


def test_row_that_does_not_fit_its_header_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "hyperstack")
    # A spec cell dropped from one on-demand row: positions would now shift; refuse.
    ex[0]["body"] = ex[0]["body"].replace(b"<td>141</td>", b"", 1)
    outcome = collect.judge_crawl(crawl("hyperstack", make_warc(ex)))
    assert outcome.status == "failed"
    assert "hyperstack" in outcome.error and "cells for" in outcome.error

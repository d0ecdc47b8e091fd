"""Hyperstack spider on the REAL recorded GPU pricing page (captured 2026-08-22, whole document with
script/style/noscript/svg bodies and comments stripped by the origin; tests/real/hyperstack/SOURCE.md).

Expected values are read off the recorded document (snippets quoted) and SOURCE.md's asserted values.
The page has no <table>: prices sit in card/grid divs (issue #8 defect)."""

import re

from pricewatch.collect import judge
from spiders.hyperstack import parse_pricing_page
from tests.conftest import CAPTURES, CAPTURES_SRC
from tests.inprocess import by_key, run_parsed

URL = "https://www.hyperstack.cloud/gpu-pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "hyperstack" / "gpu-pricing.html").read_text(encoding="utf-8")
CAPTURE = CAPTURES / "2026-08-22" / "hyperstack.warc.gz"
RESERVED = "reserved (starting from)"


def run(body: str = BODY):
    result = run_parsed("hyperstack", parse_pricing_page(body, URL), url=URL)
    return result, judge.judge_crawl(result)


def offers_of(result, billing):
    return {i["gpu_label"]: i for i in result.items if i["billing"] == billing}


def test_real_page_has_no_table_and_parses_all_30_prices():
    assert "<table" not in BODY  # the defect: the old spider looked for <table> only
    result, outcome = run()
    assert outcome.status == "ok", outcome.error
    # SOURCE.md: "On-Demand GPU Pricing ... 13 rows; Reservation Pricing ... 12 rows; Spot VM Pricing 5 rows";
    # "30 prices in all".
    assert len(result.items) == 30
    assert {b: len(offers_of(result, b)) for b in ("on-demand", "reserved", "spot")} == \
        {"on-demand": 13, "reserved": 12, "spot": 5}
    assert {i["gpu_count"] for i in result.items} == {1}  # per-GPU rows, no count on the page
    assert {(i["price_unit"], i["currency"]) for i in result.items} == {("gpu_hour", "USD")}
    assert all(i["is_priced"] for i in result.items)


def test_on_demand_card_read_by_header():
    # Header: "GPU Model | VRAM (GB) | Max pCPUs per GPU | Max RAM (GB) per GPU | Pricing Per Hour";
    # first row: <span>NVIDIA H200 SXM</span> <span>141</span> <span>22</span> <span>225</span> <span>$3.99</span>
    assert re.search(r"<span>NVIDIA H200 SXM</span>\s*</div>\s*<div[^>]*col2\">\s*<span>141</span>\s*</div>\s*"
                     r"<div[^>]*col3\">\s*<span>22</span>\s*</div>\s*<div[^>]*col4\">\s*<span>225</span>\s*</div>\s*"
                     r"<div[^>]*col5\">\s*<span>\$3.99</span>", BODY)
    on_demand = offers_of(run()[0], "on-demand")
    h200 = on_demand["NVIDIA H200 SXM"]
    assert (h200["price_per_gpu_hour"], h200["price_per_hour"], h200["vram_gb"], h200["gpu_model"],
            h200["form_factor"], h200["tier"], h200["reserved_term"], h200["self_service"]) == \
        (3.99, 3.99, 141, "H200", "SXM", "on-demand", None, True)
    # SOURCE.md: NVIDIA B200 $6.00; NVIDIA A4000 $0.15 (16 GB); NVIDIA B300 $7.40 (288 GB)
    assert on_demand["NVIDIA B200"]["price_per_gpu_hour"] == 6.00
    assert on_demand["NVIDIA B200"]["gpu_model"] == "B200"
    a4000 = on_demand["NVIDIA A4000"]
    assert (a4000["price_per_gpu_hour"], a4000["vram_gb"], a4000["gpu_model"]) == (0.15, 16, "RTX A4000")
    b300 = on_demand["NVIDIA B300"]
    assert (b300["price_per_gpu_hour"], b300["vram_gb"], b300["gpu_model"]) == (7.40, 288, "B300")
    # Row "NVIDIA H100 SXM | 80 | 24 | 240 | $3.20"; "NVIDIA H100 | 80 | 28 | 180 | $2.50"
    assert (on_demand["NVIDIA H100 SXM"]["price_per_gpu_hour"], on_demand["NVIDIA H100 SXM"]["gpu_model"]) == (3.20, "H100")
    assert on_demand["NVIDIA H100"]["price_per_gpu_hour"] == 2.50


def test_b200_vram_is_read_as_printed():
    # Row "NVIDIA B200 | 192 | 31 | 256 | $6.00": the parser reads 192 GB (the catalog's B200 is 180 GB,
    # and the shared pipeline stores the catalog figure when the two are close).
    b200 = next(o for o in parse_pricing_page(BODY, URL).offers
                if o["gpu_label"] == "NVIDIA B200" and o["billing"] == "on-demand")
    assert b200["vram_gb"] == 192


def test_reservation_is_a_starting_from_floor_for_an_unstated_term():
    # Header "GPU Model | Starting from&nbsp; | Reserve"; row "<span>&nbsp;$2.79</span>" + "Reserve here" link.
    assert "<span>Starting from&nbsp;</span>" in BODY and "<span>&nbsp;$2.79</span>" in BODY
    reserved = offers_of(run()[0], "reserved")
    h200 = reserved["NVIDIA H200 SXM"]
    assert (h200["price_per_gpu_hour"], h200["tier"], h200["reserved_term"], h200["self_service"],
            h200["gpu_model"], h200["vram_gb"]) == (2.79, RESERVED, None, False, "H200", 141)
    # SOURCE.md: reserved B200 $5.10, A4000 $0.11 (no B300 reservation row)
    assert reserved["NVIDIA B200"]["price_per_gpu_hour"] == 5.10
    assert reserved["NVIDIA A4000"]["price_per_gpu_hour"] == 0.11
    assert "NVIDIA B300" not in reserved
    assert {(i["tier"], i["reserved_term"], i["self_service"]) for i in reserved.values()} == {(RESERVED, None, False)}
    # The key says it is the floor, and it never collides with the on-demand offer of the same GPU.
    result = run()[0]
    assert "1x NVIDIA H200 SXM 141GB reserved/reserved (starting from)" in by_key(result)
    assert "1x NVIDIA H200 SXM 141GB on-demand" in by_key(result)


def test_spot_card():
    # Header "GPU Model | Spot VM"; rows "NVIDIA H100 PCIe | $2.00" ... "NVIDIA A6000 | $0.40"
    spot = offers_of(run()[0], "spot")
    assert (spot["NVIDIA H100 PCIe"]["price_per_gpu_hour"], spot["NVIDIA H100 PCIe"]["gpu_model"],
            spot["NVIDIA H100 PCIe"]["form_factor"], spot["NVIDIA H100 PCIe"]["tier"]) == (2.00, "H100", "PCIe", "spot")
    a6000 = spot["NVIDIA A6000"]
    # the VRAM is the on-demand card's for the same label ("NVIDIA A6000 | 48 | 28 | 58 | $0.50")
    assert (a6000["price_per_gpu_hour"], a6000["gpu_model"], a6000["vram_gb"], a6000["self_service"]) == \
        (0.40, "RTX A6000", 48, True)
    assert set(spot) == {"NVIDIA H100 PCIe", "NVIDIA RTX Pro 6000 SE", "NVIDIA A100", "NVIDIA L40", "NVIDIA A6000"}


def test_nav_footer_banner_and_non_gpu_cards_are_not_offers():
    # Price-less labels outside the cards: nav "NVIDIA GB200 NVL72 ", "NVIDIA GB300 NVL72", "NVIDIA HGX B200",
    # banner "NVIDIA B300s are coming to Hyperstack"; after the fence: CPU flavors, storage, AI Studio tokens.
    for snippet in ("NVIDIA GB200 NVL72", "NVIDIA GB300 NVL72", "NVIDIA HGX B200", "B300s are coming",
                    "<span>n1-cpu-small&nbsp;</span>", "<span>Llama 3.3 70B</span>"):
        assert snippet in BODY
    labels = {i["gpu_label"] for i in run()[0].items}
    assert not {l for l in labels if re.search(r"GB[23]00|HGX|B300s|n1-cpu|Llama|SSV|Public IP", l)}
    assert [i["billing"] for i in run()[0].items if "B300" in i["gpu_label"]] == ["on-demand"]


# --- layout variants: each must fail, naming what is missing -------------------------------------------

def failed(body):
    result, outcome = run(body)
    assert outcome.status == "failed"
    assert outcome.offers == []
    assert outcome.error.startswith("hyperstack: layout changed")
    return outcome.error


def test_page_without_the_cards_fails():
    error = failed(BODY.replace("page-price_card", "pricing-grid"))
    assert "On-Demand CPU Pricing" in error


def test_renamed_model_column_fails_naming_it():
    error = failed(BODY.replace("<span>GPU Model </span>", "<span>GPU</span>", 1))
    assert "'On-Demand GPU Pricing'" in error and "GPU Model" in error


def test_unit_switch_in_on_demand_header_fails():
    assert BODY.count("<span>Pricing Per Hour</span>") == 1  # the CPU card's header ends in &nbsp;
    error = failed(BODY.replace("<span>Pricing Per Hour</span>", "<span>Pricing Per Month</span>"))
    assert "Pricing Per Hour" in error


def test_rows_no_longer_per_gpu_fail():
    error = failed(BODY.replace("<span>Max pCPUs per GPU</span>", "<span>Max pCPUs per VM</span>"))
    assert "Max pCPUs per GPU" in error


def test_reservation_header_with_a_term_fails():
    error = failed(BODY.replace("<span>Starting from&nbsp;</span>", "<span>1 Year</span>"))
    assert "'Reservation Pricing'" in error and "Starting from" in error


def test_missing_spot_card_fails():
    error = failed(BODY.replace("<h3><span>Spot VM</span> Pricing</h3>", "<h3><span>Spot</span> Offers</h3>"))
    assert "no 'Spot VM Pricing' card" in error and "unknown pricing card(s) ['Spot Offers']" in error


def test_missing_fence_fails():
    error = failed(BODY.replace("<h3><span>On-Demand CPU</span> Pricing</h3>", "<h3>CPU</h3>"))
    assert "no 'On-Demand CPU Pricing' card" in error


def test_row_with_a_dropped_cell_fails():
    body, n = re.subn(r'<div class="page-price_card_row_item_col page-price_card_row_item_col3">\s*<span>22</span>\s*</div>',
                      "", BODY, count=1)
    assert n == 1
    error = failed(body)
    assert "4 cells for 5 columns" in error and "NVIDIA H200 SXM" in error


def test_non_numeric_spec_cell_fails():
    error = failed(BODY.replace("<span>141</span>", "<span>141 GB HBM3e</span>", 1))
    assert "NVIDIA H200 SXM has non-numeric" in error


def test_price_that_is_not_a_dollar_amount_holds_that_offer_the_others_load():
    # Issue 20 item 2. On-demand, first row: <span>NVIDIA H200 SXM</span> <span>141</span> <span>22</span>
    # <span>225</span> <span>$3.99</span>, the price changed to "$3.99/month": that one offer is held
    # (unpriced, the text kept), the provider suspect, the 29 other prices load as on the page.
    real, _ = run()
    result, outcome = run(BODY.replace("<span>$3.99</span>", "<span>$3.99/month</span>", 1))
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 30 row(s) held" in outcome.error and "price cell unreadable: '$3.99/month'" in outcome.error
    held = offers_of(result, "on-demand")["NVIDIA H200 SXM"]
    assert (held["is_priced"], held["price_raw"], held["price_per_gpu_hour"], held["vram_gb"]) == (
        False, "$3.99/month", None, 141)
    others = sorted((i["offer_key"], i["price_per_gpu_hour"], i["vram_gb"]) for i in result.items if i is not held)
    assert others == sorted((i["offer_key"], i["price_per_gpu_hour"], i["vram_gb"]) for i in real.items
                            if i["offer_key"] != held["offer_key"])
    assert all(i["is_priced"] for i in result.items if i is not held)


def test_contact_us_is_unpriced_and_na_is_not_an_offer():
    body = BODY.replace("<span>$5.10</span>", "<span>Contact us</span>", 1) \
               .replace("<span>$0.11</span>", "<span>N/A</span>", 1)
    result, outcome = run(body)
    assert outcome.status == "ok", outcome.error
    reserved = offers_of(result, "reserved")
    assert (reserved["NVIDIA B200"]["is_priced"], reserved["NVIDIA B200"]["price_text"]) == (False, "Contact us")
    assert "NVIDIA A4000" not in reserved and len(result.items) == 29


# --- the one subprocess replay of the shipped (real) capture --------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("hyperstack", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 30
    offers = {(i["billing"], i["gpu_label"]): i for i in result.items}
    assert offers[("on-demand", "NVIDIA H200 SXM")]["price_per_gpu_hour"] == 3.99
    assert offers[("reserved", "NVIDIA B200")]["price_per_gpu_hour"] == 5.10
    assert offers[("spot", "NVIDIA H100 PCIe")]["price_per_gpu_hour"] == 2.00
    h200 = offers[("on-demand", "NVIDIA H200 SXM")]["capture"]
    assert h200["source_url"] == URL and h200["captured_at"].startswith("2026-08-22")

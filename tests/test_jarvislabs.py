"""Jarvislabs: parse_rendered on the rendered pricing page, in-process; one real browser replay.

There is no real recording of Jarvislabs (captures/src/2026-10-29/jarvislabs/exchanges.yaml says
what is composed). The parser reads the DOM after the page's script ran. That DOM is a fixture,
tests/rendered/jarvislabs.pricing.rendered.html, produced by a real Chromium render of the
shipped WARC (tests/rendered/render_jarvislabs.py; the -no-json twin is the same render with the
server_meta request aborted). Layout variants edit that DOM and run in milliseconds. The one
subprocess test replays the shipped WARC in Chromium through scrapy-playwright and checks that
its render parses to exactly what the fixture parses to.
"""

from __future__ import annotations

import os
from hashlib import sha256
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from pricewatch.collect import judge
from spiders.jarvislabs import JarvislabsSpider, parse_rendered
from tests.conftest import CAPTURES, CAPTURES_SRC
from tests.inprocess import by_key, capture_ref, run_parsed

RENDERED_DIR = Path(__file__).resolve().parent / "rendered"
RENDERED = (RENDERED_DIR / "jarvislabs.pricing.rendered.html").read_text(encoding="utf-8")
RENDERED_NO_JSON = (RENDERED_DIR / "jarvislabs.pricing.rendered-no-json.html").read_text(encoding="utf-8")
SRC = CAPTURES_SRC / "2026-10-29" / "jarvislabs"
AS_SERVED = (SRC / "pricing.html").read_text(encoding="utf-8")  # the page before its script ran
CAPTURE = CAPTURES / "2026-10-29" / "jarvislabs.warc.gz"
PAGE = "https://jarvislabs.ai/pricing"
DATA = "https://backendn.jarvislabs.net/misc/server_meta"
CHROMIUM = os.environ.get("PRICEWATCH_CHROMIUM", "/usr/bin/chromium")


def run(html: str = RENDERED):
    parsed = parse_rendered(html, PAGE)
    return parsed, run_parsed("jarvislabs", parsed, url=PAGE)


def offer(result, sku: str, billing: str, term: str | None = None) -> dict:
    [hit] = [i for i in result.items
             if (i["sku"], i["billing"], i["reserved_term"]) == (sku, billing, term)]
    return hit


def replace_once(html: str, old: str, new: str) -> str:
    assert html.count(old) >= 1, old
    return html.replace(old, new, 1)


# --- the rendered page ------------------------------------------------------------------------

def test_rendered_page_offers_by_tier_and_status_ok():
    parsed, result = run()
    assert parsed.errors == []
    # 5 rows; spot "—" for H200 and H100 (no spot offer); 3 terms per row, 12 months "Contact sales".
    tiers = [i["tier"] for i in result.items]
    assert (tiers.count("on-demand"), tiers.count("spot"), tiers.count("reserved"), len(tiers)) == (5, 3, 15, 23)
    assert judge.judge_crawl(result).status == "ok"
    assert all("offer_key" not in o for o in parsed.offers)  # the pipeline builds it


def test_on_demand_prices_are_the_dated_values_printed_in_the_page():
    _, result = run()
    # <tr data-gpu-type="H100" data-region="europe-01" data-free="25">
    #   <td class="gpu-name">H100 SXM</td><td class="vram">80GB</td> ... <td ...on-demand">$3.49/hr</td>
    h100 = offer(result, "H100", "on-demand")
    assert (h100["gpu_label"], h100["gpu_count"], h100["vram_gb"], h100["region"]) == ("H100 SXM", 1, 80, "europe-01")
    assert (h100["price_raw"], h100["price_unit"], h100["price_per_gpu_hour"]) == ("$3.49/hr", "gpu_hour", 3.49)
    assert (h100["gpu_model"], h100["form_factor"], h100["availability"]) == ("H100", "SXM", "25")
    # "H200 SXM" "141GB" "$4.59/hr" (europe-01); "A100 80GB" "80GB" "$1.49/hr" (india-noida-01)
    h200, a100 = offer(result, "H200", "on-demand"), offer(result, "A100-80GB", "on-demand")
    assert (h200["gpu_label"], h200["vram_gb"], h200["price_per_gpu_hour"]) == ("H200 SXM", 141, 4.59)
    assert (h200["gpu_model"], h200["form_factor"]) == ("H200", "SXM")
    assert (a100["gpu_label"], a100["region"], a100["price_per_gpu_hour"], a100["gpu_model"]) == (
        "A100 80GB", "india-noida-01", 1.49, "A100 80GB")
    # "RTX PRO 6000" "96GB" "$1.89/hr" (india-chennai-01); "L4" "24GB" "$0.44/hr" (india-noida-01)
    rtx, l4 = offer(result, "RTX-PRO6000", "on-demand"), offer(result, "L4", "on-demand")
    assert (rtx["gpu_label"], rtx["vram_gb"], rtx["region"], rtx["price_per_gpu_hour"]) == (
        "RTX PRO 6000", 96, "india-chennai-01", 1.89)
    assert (l4["gpu_label"], l4["vram_gb"], l4["price_per_gpu_hour"]) == ("L4", 24, 0.44)
    # Per GPU-hour ("Prices are per GPU per hour"), one GPU each: instance price = GPU price.
    assert all(i["price_per_hour"] == i["price_per_gpu_hour"] for i in result.items if i["is_priced"])


def test_spot_and_term_prices_as_the_script_filled_them_in():
    _, result = run()
    # A100 80GB row: spot "$0.89/hr" (data-free="1"), "1 month" "$1.34/hr", "6 months" "$1.19/hr",
    # "12 months" "Contact sales".
    spot = offer(result, "A100-80GB", "spot")
    assert (spot["price_per_gpu_hour"], spot["availability"], spot["tier"]) == (0.89, "1", "spot")
    assert offer(result, "A100-80GB", "reserved", "1 month")["price_per_gpu_hour"] == 1.34
    assert offer(result, "A100-80GB", "reserved", "6 months")["price_per_gpu_hour"] == 1.19
    # H100 SXM: "$3.14/hr", "$2.79/hr"; H200 SXM "$4.13/hr", "$3.67/hr"; RTX PRO 6000 spot "$1.19/hr",
    # "$1.70/hr", "$1.51/hr"; L4 spot "$0.29/hr" (the vm entry, not the container one), "$0.40/hr", "$0.35/hr".
    got = {(i["sku"], i["reserved_term"] or i["billing"]): i["price_per_gpu_hour"]
           for i in result.items if i["billing"] != "on-demand" and i["is_priced"]}
    assert got == {("A100-80GB", "spot"): 0.89, ("A100-80GB", "1 month"): 1.34, ("A100-80GB", "6 months"): 1.19,
                   ("H100", "1 month"): 3.14, ("H100", "6 months"): 2.79,
                   ("H200", "1 month"): 4.13, ("H200", "6 months"): 3.67,
                   ("RTX-PRO6000", "spot"): 1.19, ("RTX-PRO6000", "1 month"): 1.70,
                   ("RTX-PRO6000", "6 months"): 1.51,
                   ("L4", "spot"): 0.29, ("L4", "1 month"): 0.40, ("L4", "6 months"): 0.35}


def test_spot_dash_is_no_offer_and_contact_sales_is_an_unpriced_term():
    _, result = run()
    # H200 and H100: <td class="price spot" ... data-state="unavailable">—</td>: no spot, not a $0 one.
    assert not [i for i in result.items if i["billing"] == "spot" and i["sku"] in ("H100", "H200")]
    year = offer(result, "H100", "reserved", "12 months")
    assert (year["is_priced"], year["price_text"], year["self_service"]) == (False, "Contact sales", False)
    assert len([i for i in result.items if i["price_text"] == "Contact sales"]) == 5


def test_offer_keys_come_from_identity_fields():
    _, result = run()
    keys = by_key(result)
    assert len(keys) == 23
    assert "1x H100 80GB reserved 1 month @europe-01" in keys
    assert "1x A100-80GB spot @india-noida-01" in keys  # the sku names 80GB: not repeated


def test_same_gpu_in_another_region_is_another_offer():
    row = RENDERED[RENDERED.index('<tr data-gpu-type="H100"'):]
    row = row[:row.index("</tr>") + 5]
    other = row.replace('data-region="europe-01"', 'data-region="india-noida-01"').replace("$3.49/hr", "$2.99/hr")
    _, result = run(replace_once(RENDERED, row, row + other))
    prices = {i["region"]: i["price_per_gpu_hour"] for i in result.items if i["sku"] == "H100" and i["billing"] == "on-demand"}
    assert prices == {"europe-01": 3.49, "india-noida-01": 2.99}
    assert judge.judge_crawl(result).status == "ok"


# --- the script did not (fully) run -----------------------------------------------------------

def test_without_the_json_the_page_script_reports_an_error_and_the_run_fails():
    # Real render with the server_meta request aborted: data-live-prices="error",
    # data-live-error="Failed to fetch", every spot/term cell "Unavailable".
    parsed, result = run(RENDERED_NO_JSON)
    assert parsed.errors == [f"{PAGE}: spot and term prices were not filled in by the page's script "
                             "(data-live-prices='error': Failed to fetch); they load from /misc/server_meta"]
    assert {i["billing"] for i in result.items} == {"on-demand"}  # "Unavailable" is never a price
    assert judge.judge_crawl(result).status == "failed"


def test_the_page_as_served_has_no_script_prices_and_fails():
    # The recorded HTML: empty skeletons in every spot/term cell; only the script fills them.
    parsed, result = run(AS_SERVED)
    assert len(parsed.errors) == 1 and "data-live-prices=None: the page's script never finished" in parsed.errors[0]
    assert {i["billing"] for i in result.items} == {"on-demand"}
    assert judge.judge_crawl(result).status == "failed"


def test_cells_left_empty_by_the_script_are_one_error():
    html = RENDERED.replace('data-state="priced">$1.34/hr</td>', 'data-state="priced"></td>')
    html = html.replace('data-state="priced">$0.35/hr</td>', 'data-state="priced"><span class="skeleton"></span></td>')
    parsed, _ = run(html)
    assert parsed.errors == [f"{PAGE}: 2 spot/term cell(s) still empty after the page's script: "
                             "A100 80GB 1 month, L4 6 months"]


# --- layout variants --------------------------------------------------------------------------

def test_no_price_table_fails_naming_it():
    parsed, result = run(RENDERED.replace('id="gpu-pricing"', 'id="gpu-prices-v2"'))
    assert parsed.errors == [f"{PAGE}: no table#gpu-pricing (the GPU price table)"]
    assert judge.judge_crawl(result).status == "failed"


def test_renamed_on_demand_header_fails_naming_it():
    parsed, _ = run(RENDERED.replace('data-col="on-demand">On-demand</th>', 'data-col="on-demand">Pay as you go</th>'))
    assert len(parsed.errors) == 1 and parsed.offers == []
    assert "no 'On-demand' column" in parsed.errors[0] and "Pay as you go" in parsed.errors[0]


def test_removed_spot_column_fails_naming_it():
    html = RENDERED.replace('<th scope="col" data-col="spot">Spot</th>', "")
    parsed, result = run(html)
    # The rows still have the spot cell: the cells no longer line up with the header, one message.
    assert parsed.errors == [
        f"{PAGE}: table#gpu-pricing has no 'Spot' column (headers: GPU, vRAM, vCPU / RAM per GPU, Region, "
        "On-demand, 1 month, 6 months, 12 months)",
        f"{PAGE}: table#gpu-pricing rows have 9 cells for 8 column headers (rows not read)"]
    assert judge.judge_crawl(result).status == "failed"


def test_a_spot_column_gone_from_header_and_rows_still_fails():
    html = RENDERED.replace('<th scope="col" data-col="spot">Spot</th>', "")
    html = "\n".join(line for line in html.split("\n") if 'data-fill="spot"' not in line)
    parsed, result = run(html)
    assert len(parsed.errors) == 1 and "no 'Spot' column" in parsed.errors[0]
    # On-demand and term prices are still read (and the run still fails on the layout error).
    assert offer(result, "H100", "on-demand")["price_per_gpu_hour"] == 3.49
    assert offer(result, "L4", "reserved", "1 month")["price_per_gpu_hour"] == 0.40
    assert not [i for i in result.items if i["billing"] == "spot"]
    assert judge.judge_crawl(result).status == "failed"


def test_unit_statement_change_fails():
    html = RENDERED.replace("Prices are per GPU per hour.", "Prices are per node per hour.")
    parsed, result = run(html)
    assert parsed.errors == [f"{PAGE}: the page no longer says 'Prices are per GPU per hour' (price unit unknown)"]
    assert result.items == []


def test_price_cells_in_another_unit_hold_their_offers():
    # Issue 20 item 2: each unreadable cell holds its own offer (kept unpriced with the text
    # printed), the provider is suspect, every other cell loads.
    html = RENDERED.replace("$3.49/hr", "$2513/mo").replace("$1.34/hr", "€1.34/hr")
    parsed, result = run(html)
    assert parsed.layout_errors == []
    h100_held, a100_held = parsed.held
    assert "1x H100 SXM 80 GB on-demand" in h100_held and "On-demand price cell unreadable: '$2513/mo'" in h100_held
    assert "1x A100 80GB" in a100_held and "1 month price cell unreadable: '€1.34/hr'" in a100_held
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and "2 of" in outcome.error and "row(s) held" in outcome.error
    [h100] = [i for i in result.items if i["sku"] == "H100" and i["billing"] == "on-demand"]
    assert (h100["is_priced"], h100["price_raw"]) == (False, "$2513/mo")
    assert sum(not i["is_priced"] for i in result.items) == 2 + sum(
        i["price_raw"] == "Contact sales" for i in result.items)


def test_a_term_header_that_is_not_a_term_fails():
    parsed, _ = run(RENDERED.replace('data-term="6_months">6 months</th>', 'data-term="6_months">Save 20%</th>'))
    assert parsed.errors == [f"{PAGE}: term column(s) 'Save 20%' are not a commitment term"]
    assert not [o for o in parsed.offers if o.get("reserved_term") == "Save 20%"]


def test_an_unreadable_vram_is_reported():
    parsed, _ = run(RENDERED.replace('<td class="vram">24GB</td>', '<td class="vram">24 GiB (shared)</td>'))
    assert parsed.errors == [f"{PAGE}: 1 cell(s) not read as '$x.xx/hr', 'Contact sales' or '—': "
                             "L4 vRAM '24 GiB (shared)'"]


# --- the spider's own join (in-process, no browser) ------------------------------------------

def spider_items(browser_captures: dict):
    crawler = get_crawler(JarvislabsSpider)
    spider = JarvislabsSpider.from_crawler(crawler)
    request = Request(PAGE, meta={"browser_captures": browser_captures})
    response = HtmlResponse(PAGE, body=RENDERED.encode(), encoding="utf-8", request=request)
    return list(spider.parse(response)), crawler.stats.get_value("pricewatch/layout_errors", [])


def test_spot_and_term_offers_point_to_the_json_the_browser_loaded():
    data_ref = capture_ref(DATA)
    items, errors = spider_items({PAGE: capture_ref(PAGE), DATA: data_ref})
    assert errors == [] and len(items) == 23
    assert all(i.get("capture") == (None if i["billing"] == "on-demand" else data_ref) for i in items)
    assert all("offer_key" not in i for i in items)


def test_script_prices_without_the_json_in_the_browser_are_not_evidence():
    items, errors = spider_items({PAGE: capture_ref(PAGE)})
    assert errors == [f"{PAGE}: the page shows script-loaded prices but the browser loaded no /misc/server_meta"]
    assert {i["billing"] for i in items} == {"on-demand"}


# --- the one real browser replay --------------------------------------------------------------

@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")
def test_the_shipped_warc_replays_in_chromium(crawl):
    """Page, stylesheet, script and the JSON the script fetches all from the WARC; the spider's
    render parses to exactly the offers of the committed rendered-DOM fixture."""
    result = crawl("jarvislabs", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    report = result.report
    assert report["replay_missing"] == 0 and report["failed_urls"] == []
    # The page, its stylesheet, its script and the script's JSON; robots.txt is not recorded (404).
    assert report["http_status_counts"] == {"200": 4, "404": 1}
    offers = by_key(result)
    assert offers["1x H100 80GB on-demand @europe-01"]["price_per_gpu_hour"] == 3.49
    assert offers["1x A100-80GB spot @india-noida-01"]["price_per_gpu_hour"] == 0.89
    assert offers["1x L4 24GB reserved 1 month @india-noida-01"]["price_per_gpu_hour"] == 0.40

    def strip(items):
        return sorted((i["offer_key"], i["price_per_hour"], i["price_text"], i["availability"]) for i in items)
    assert strip(result.items) == strip(run()[1].items)
    # On-demand prices point to the page's record, spot and term prices to the JSON's.
    page_sha = sha256((SRC / "pricing.html").read_bytes()).hexdigest()
    data_sha = sha256((SRC / "server_meta.json").read_bytes()).hexdigest()
    for item in result.items:
        cap = item["capture"]
        want = (PAGE, page_sha) if item["billing"] == "on-demand" else (DATA, data_sha)
        assert (cap["source_url"], cap["body_sha256"]) == want, item["offer_key"]

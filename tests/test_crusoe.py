"""Crusoe on its REAL recorded pricing page (www.crusoe.ai/cloud/pricing, Webflow HTML, recorded
2026-08-22, an excerpt: the GPU-instances table and the look-alike product tables after it; see
tests/real/crusoe/SOURCE.md and captures/src/2026-08-22/crusoe/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted) or SOURCE.md's asserted
values, never off the parser's output. Prices are USD per GPU-hour ("<p>$3.90/GPU-hr</p>").
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.crusoe import parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://www.crusoe.ai/cloud/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "crusoe" / "pricing.html").read_text(encoding="utf-8")


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("crusoe", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def by_label(result) -> dict[str, dict]:
    return {o["gpu_label"]: o for o in result.items}


def test_real_page_is_ok_with_exactly_six_prices(result):
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: "NVIDIA H200 141GB HGX 4.29; NVIDIA H100 80GB HGX 3.90; NVIDIA A100 80GB SXM 2.30;
    # NVIDIA A100 80GB PCIe 2.00; NVIDIA L40S 48GB 1.50 (empty form-factor tag); AMD MI300X 192GB 3.45.
    # ... Exactly 6 prices."
    priced = {o["gpu_label"]: (o["price_per_gpu_hour"], o["vram_gb"]) for o in result.items if o["is_priced"]}
    assert priced == {"NVIDIA H200 HGX": (4.29, 141), "NVIDIA H100 HGX": (3.90, 80), "NVIDIA A100 SXM": (2.30, 80),
                      "NVIDIA A100 PCIe": (2.00, 80), "NVIDIA L40S": (1.50, 48), "AMD MI300X": (3.45, 192)}
    assert all((o["billing"], o["gpu_count"], o["currency"], o["price_unit"]) == ("on-demand", 1, "USD", "gpu_hour")
               for o in result.items)
    assert result.report["unknown_labels"] == []


def test_board_tags_tell_the_two_a100_rows_apart(result):
    # <h4 ...>NVIDIA A100</h4> ... <div class="pricing-tag is-dark">80GB</div><div class="pricing-tag">SXM</div>
    # and the same name with <div class="pricing-tag">PCIe</div>: two offers, two form factors.
    offers = by_label(result)
    assert (offers["NVIDIA A100 SXM"]["gpu_model"], offers["NVIDIA A100 SXM"]["form_factor"]) == ("A100 80GB", "SXM")
    assert (offers["NVIDIA A100 PCIe"]["gpu_model"], offers["NVIDIA A100 PCIe"]["form_factor"]) == ("A100 80GB", "PCIe")
    assert offers["NVIDIA A100 SXM"]["offer_key"] != offers["NVIDIA A100 PCIe"]["offer_key"]
    assert offers["NVIDIA H100 HGX"]["form_factor"] == "SXM"     # HGX boards are SXM


def test_contact_sales_on_demand_is_unpriced_not_self_service(result):
    # SOURCE.md: "Contact-sales rows with no price: NVIDIA GB200 186GB NVL72, NVIDIA B200 180GB HGX,
    # AMD MI355X 288GB." Cell: <p><a href="/contact-sales">Contact sales</a></p>.
    unpriced = {o["gpu_label"]: o for o in result.items if not o["is_priced"]}
    assert set(unpriced) == {"NVIDIA GB200 NVL72", "NVIDIA B200 HGX", "AMD MI355X"}
    assert all((o["price_text"], o["self_service"], o["price_per_hour"]) == ("Contact sales", False, None)
               for o in unpriced.values())
    assert (unpriced["NVIDIA GB200 NVL72"]["gpu_model"], unpriced["NVIDIA GB200 NVL72"]["vram_gb"]) == ("GB200", 186)


def test_contact_sales_spot_is_no_offer_but_a_fact(result):
    # SOURCE.md: 'every "Current spot" cell is "Contact sales" in this capture' (9 GPUs).
    assert not [o for o in result.items if o["billing"] == "spot"]
    [fact] = result.facts
    assert (fact["fact"], fact["value_num"]) == ("spot_contact_sales", 9)


def test_a_priced_spot_cell_is_a_spot_offer():
    # The H100 item's second cell (the "Current spot" column) given a price.
    at = BODY.index("<p>$3.90/GPU-hr</p>")
    spot_at = BODY.index("Contact sales</a></p>", at)
    cell = BODY.rindex("<p>", at + 1, spot_at)
    body = BODY[:cell] + "<p>$1.60/GPU-hr</p>" + BODY[spot_at + len("Contact sales</a></p>"):]
    spot = [o for o in run(body).items if o["billing"] == "spot"]
    assert [(o["gpu_label"], o["price_per_gpu_hour"]) for o in spot] == [("NVIDIA H100 HGX", 1.60)]


def test_look_alike_tables_are_not_read(result):
    # "Self-Serve Deployments pricing": NVIDIA H100 80GB HGX "<p>$5.50</p>", NVIDIA H200 "<p>$6.00</p>";
    # CPU "General-purpose" "$0.04/vCPU-hr".
    assert "Self-Serve Deployments pricing" in BODY and "<p>$5.50</p>" in BODY and "$0.04/vCPU-hr" in BODY
    assert not {o["price_per_gpu_hour"] for o in result.items} & {5.50, 6.00, 0.04, 0.09}
    assert len(result.items) == 9


# --- faults ----------------------------------------------------------------------------------

def test_a_unit_switch_to_per_hour_fails():
    outcome = judged(BODY.replace("<p>$4.29/GPU-hr</p>", "<p>$34.32/hr</p>"))
    assert outcome.status == "failed" and outcome.offers == []
    assert "$34.32/hr" in outcome.error and "NVIDIA H200" in outcome.error


def test_struck_through_old_price_is_not_read_and_alone_fails():
    body = BODY.replace("<p>$3.45/GPU-hr</p>", "<p><del>$3.95/GPU-hr</del> $3.45/GPU-hr</p>")
    assert by_label(run(body))["AMD MI300X"]["price_per_gpu_hour"] == 3.45
    # only the struck price: that offer is held by name (issue 20 item 2), the others load
    outcome = judged(BODY.replace("<p>$3.45/GPU-hr</p>", "<p><del>$3.45/GPU-hr</del></p>"))
    assert outcome.status == "suspect" and "struck through only" in outcome.error


def test_placeholders_are_never_prices():
    # A placeholder 0 in the right unit is stored unpriced with its text (README: "Unpriced is not zero").
    body = BODY.replace("<p>$1.50/GPU-hr</p>", "<p>$0.00/GPU-hr</p>")
    l40s = by_label(run(body))["NVIDIA L40S"]
    assert (l40s["is_priced"], l40s["price_per_hour"], l40s["price_text"]) == (False, None, "$0.00")
    # A word where a price was holds that offer, naming it (issue 20 item 2).
    outcome = judged(BODY.replace("<p>$1.50/GPU-hr</p>", "<p>TBD</p>"))
    assert outcome.status == "suspect" and "TBD" in outcome.error


def test_one_unreadable_price_cell_holds_that_offer_the_others_load(result):
    # Issue 20 item 2. <h4 class="pricing-item-heading">NVIDIA H100</h4> (80GB, HGX), On-demand
    # <p>$3.90/GPU-hr</p>, changed to "€3.90/GPU-hr" (the page is USD): that one offer is held
    # (unpriced, the text kept), the provider suspect, the five other prices load as on the page.
    assert BODY.count("<p>$3.90/GPU-hr</p>") == 1
    edited = run(BODY.replace("<p>$3.90/GPU-hr</p>", "<p>€3.90/GPU-hr</p>"))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted
    assert f"1 of {len(result.items)} row(s) held" in outcome.error
    assert "on-demand price cell unreadable: '€3.90/GPU-hr'" in outcome.error
    h100 = by_label(edited)["NVIDIA H100 HGX"]
    assert (h100["is_priced"], h100["price_raw"], h100["price_per_gpu_hour"], h100["vram_gb"]) == (
        False, "€3.90/GPU-hr", None, 80)
    assert {o["gpu_label"]: o["price_per_gpu_hour"] for o in edited.items if o["is_priced"]} == {
        "NVIDIA H200 HGX": 4.29, "NVIDIA A100 SXM": 2.30, "NVIDIA A100 PCIe": 2.00, "NVIDIA L40S": 1.50,
        "AMD MI300X": 3.45}
    assert sorted(o["offer_key"] for o in edited.items) == sorted(o["offer_key"] for o in result.items)


@pytest.mark.parametrize("old, new, named", [
    (">GPU instances pricing<", ">GPU pricing<", "GPU instances pricing"),
    ('<div class="pricing-heading is-d">Current spot</div>', '<div class="pricing-heading is-d">Reserved</div>',
     "column headings"),
    ('<div class="pricing-tag is-dark">80GB</div>', '<div class="pricing-tag is-dark">80 GiB</div>', "memory tag"),
    ("pricing_gpu-item", "pricing-gpu-row", "pricing_gpu-item"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert old in BODY
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert "crusoe" in outcome.error and named in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("crusoe", shipped("crusoe"))
    assert judge.judge_crawl(result).status == "ok"
    h100 = by_label(result)["NVIDIA H100 HGX"]
    assert (h100["price_per_gpu_hour"], h100["gpu_model"], h100["vram_gb"]) == (3.90, "H100", 80)
    assert h100["capture"]["source_url"] == URL and h100["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
    assert sum(o["is_priced"] for o in result.items) == 6

"""TensorPool on its REAL recorded pricing page (tensorpool.dev/pricing, Next.js, recorded WHOLE on
2026-08-22; see tests/real/tensorpool/SOURCE.md and captures/src/2026-08-22/tensorpool/exchanges.yaml).

Expected values are read off the recorded document (snippets quoted) or SOURCE.md's asserted
values, never off the parser's output. Prices are USD per GPU-hour ("$1.99/hr", "GPU COSTS / HR"),
in a grid that also prints two competitors' columns.
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.tensorpool import parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://tensorpool.dev/pricing"
BODY = (CAPTURES_SRC / "2026-08-22" / "tensorpool" / "pricing.html").read_text(encoding="utf-8")
CELL = '<div class="p-5 text-center text-base font-jetbrains font-medium bg-[#B8E7F5] border-t border-[#e0e0e0]">'


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("tensorpool", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return {o["gpu_label"]: o for o in run().items}


def test_real_page_is_ok_with_tensorpools_own_five_gpu_prices(offers):
    outcome = judge.judge_crawl(run())
    assert (outcome.status, outcome.error) == ("ok", None)
    # SOURCE.md: "TensorPool column, ON-DEMAND: B200 SXM $4.99; H200 SXM $2.99; B300 SXM $5.49;
    # H100 SXM $1.99; L40S $1.49; CPU $0.015/hr (not a GPU)."
    assert {label: o["price_per_gpu_hour"] for label, o in offers.items()} == {
        "B200 SXM": 4.99, "H200 SXM": 2.99, "B300 SXM": 5.49, "H100 SXM": 1.99, "L40S": 1.49}
    assert {label: o["gpu_model"] for label, o in offers.items()} == {
        "B200 SXM": "B200", "H200 SXM": "H200", "B300 SXM": "B300", "H100 SXM": "H100", "L40S": "L40S"}
    assert all((o["billing"], o["gpu_count"], o["currency"], o["price_unit"], o["self_service"])
               == ("on-demand", 1, "USD", "gpu_hour", True) for o in offers.values())
    assert offers["H100 SXM"]["form_factor"] == "SXM"


def test_competitor_columns_are_never_read(offers):
    # SOURCE.md: "Lambda Labs B200 $4.99, H100 $3.29, others N/A; Traditional Clouds B200 $18, H200 $10,
    # H100 $14, L40S $3, CPU $0.026."
    figures = {o["price_per_gpu_hour"] for o in offers.values()}
    assert not figures & {3.29, 18, 10, 14, 3, 0.026}
    assert len(offers) == 5 and "CPU" not in offers


def test_the_column_is_found_by_its_header_not_its_position():
    # Swap the Lambda Labs and TensorPool headers: the parser follows the header, so it now reads
    # the Lambda column, finds "N/A" for H200 (no offer) and "$3.29/hr" for H100, which the mobile
    # TensorPool card ("H100 SXM - <strong>$1.99</strong>") contradicts: a failure, not a false price.
    body = BODY.replace(">Lambda Labs</div>", ">@@</div>").replace(
        "bg-[#B8E7F5]\">TensorPool</div>", "bg-[#B8E7F5]\">Lambda Labs</div>").replace(">@@</div>", ">TensorPool</div>")
    outcome = judged(body)
    assert outcome.status == "failed" and "disagree" in outcome.error and "$3.29/hr" in outcome.error


# --- faults ----------------------------------------------------------------------------------

def test_a_unit_switch_fails():
    outcome = judged(BODY.replace(f"{CELL}$1.99/hr</div>", f"{CELL}$1.99/min</div>"))
    assert outcome.status == "failed" and outcome.offers == [] and "$1.99/min" in outcome.error


def test_a_struck_through_old_price_is_not_read():
    body = BODY.replace(f"{CELL}$2.99/hr</div>", f"{CELL}<s>$3.49/hr</s>$2.99/hr</div>")
    assert {o["gpu_label"]: o for o in run(body).items}["H200 SXM"]["price_per_gpu_hour"] == 2.99
    outcome = judged(BODY.replace(f"{CELL}$2.99/hr</div>", f"{CELL}<s>$2.99/hr</s></div>"))
    assert outcome.status == "failed" and "struck through only" in outcome.error


def test_one_unreadable_price_holds_that_row_the_others_load(offers):
    # Issue 20 item 2. The H100 SXM row: desktop TensorPool cell "$1.99/hr" and the mobile card's
    # "H100 SXM - <strong>$1.99</strong>" (SOURCE.md "H100 SXM $1.99"), both changed to "TBD": that one
    # offer is held (unpriced, the text kept), the provider suspect, the four other GPUs load.
    body = BODY.replace(f"{CELL}$1.99/hr</div>", f"{CELL}TBD</div>").replace(
        "H100 SXM - <strong>$1.99</strong>", "H100 SXM - <strong>TBD</strong>", 1)
    result = run(body)
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 5 row(s) held" in outcome.error and "TensorPool price cell unreadable: 'TBD'" in outcome.error
    edited = {o["gpu_label"]: o for o in result.items}
    held = edited["H100 SXM"]
    assert (held["is_priced"], held["price_raw"], held["price_per_gpu_hour"]) == (False, "TBD", None)
    assert held["offer_key"] == offers["H100 SXM"]["offer_key"]
    assert {label: o["price_per_gpu_hour"] for label, o in edited.items() if label != "H100 SXM"} == {
        "B200 SXM": 4.99, "H200 SXM": 2.99, "B300 SXM": 5.49, "L40S": 1.49}


def test_mobile_copy_that_disagrees_fails():
    outcome = judged(BODY.replace("B200 SXM - <strong>$4.99</strong>", "B200 SXM - <strong>$3.99</strong>", 1))
    assert outcome.status == "failed" and "disagree" in outcome.error and "B200 SXM" in outcome.error


@pytest.mark.parametrize("old, new, named", [
    (">ON-DEMAND</div>", ">RESERVED 1Y</div>", "unknown category"),
    (">GPU COSTS / HR</h4>", ">GPU COSTS / MONTH</h4>", "GPU COSTS / HR"),
    ("grid-cols-[200px_200px_1fr_1fr_1fr]", "grid-cols-[200px_1fr_1fr_1fr]", "grid-cols"),
    (">GPU Type</div>", ">Accelerator</div>", "GPU Type"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert old in BODY
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert "tensorpool" in outcome.error and named in outcome.error


# --- the one real replay through the engine ----------------------------------------------------

def test_replay_of_the_real_capture(crawl):
    result = crawl("tensorpool", shipped("tensorpool"))
    assert judge.judge_crawl(result).status == "ok"
    offers = {o["gpu_label"]: o for o in result.items}
    assert (offers["B300 SXM"]["price_per_gpu_hour"], offers["B300 SXM"]["gpu_model"]) == (5.49, "B300")
    assert offers["B300 SXM"]["capture"]["source_url"] == URL
    assert offers["B300 SXM"]["capture"]["captured_at"].startswith("2026-08-22T12:00:00")
    assert len(offers) == 5

"""Modal on its COMPOSED pricing page (modal.com/pricing; no real recording exists: the labels, the
"/ sec" unit and the "GPU Tasks" heading are the live page's as other readers found them, the
prices Modal's published rates checked 2026-06-04, the markup composed; see
captures/src/2026-06-04/modal/exchanges.yaml for where each value comes from).

Expected values are read off that document (snippets quoted), never off the parser's output.
Prices are USD per GPU per second ('<span class="price">$0.001097 / sec</span>'): the GPU-hour is
3600 seconds (0.001097 x 3600 = 3.9492, "$3.9492/hr from $0.001097/sec" in a stored review).
"""

import pytest

from pricewatch.collect import crawl_process, judge
from pricewatch.collect.sources import default_providers
from spiders.modal import ModalSpider, parse_pricing
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://modal.com/pricing"
BODY = (CAPTURES_SRC / "2026-06-04" / "modal" / "pricing.html").read_text(encoding="utf-8")
GPU_BLOCK = BODY[BODY.index('<div class="price-table">'):BODY.index("<h3>CPU</h3>")]
# Per GPU-hour, each "$<n> / sec" row times 3600.
PER_GPU_HOUR = {"Nvidia B200": 6.2496, "Nvidia H200": 4.5396, "Nvidia H100": 3.9492, "Nvidia RTX PRO 6000": 3.0312,
                "Nvidia A100, 80 GB": 2.4984, "Nvidia A100, 40 GB": 2.0988, "Nvidia L40S": 1.9512,
                "Nvidia A10": 1.1016, "Nvidia L4": 0.7992, "Nvidia T4": 0.5904}


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("modal", parse_pricing(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def offer(result, label: str) -> dict:
    [found] = [o for o in result.items if o["gpu_label"] == label]
    return found


def test_the_page_is_ok_with_ten_gpus_per_second_and_per_gpu_hour(result):
    assert judge.judge_crawl(result).status == "ok"
    # '<span class="name">Nvidia H100</span><span class="price">$0.001097 / sec</span>' ... ten rows
    assert {o["gpu_label"]: o["price_per_gpu_hour"] for o in result.items} == pytest.approx(PER_GPU_HOUR)
    h100 = offer(result, "Nvidia H100")
    assert (h100["price_raw"], h100["price_unit"], h100["gpu_model"], h100["gpu_count"]) == (
        "$0.001097", "gpu_second", "H100", 1)
    assert h100["price_per_hour"] == pytest.approx(3.9492)
    assert all((o["billing"], o["tier"], o["currency"], o["self_service"]) == ("on-demand", "serverless", "USD", True)
               for o in result.items)
    assert result.report["unknown_labels"] == []


def test_vram_is_read_only_where_the_name_prints_it(result):
    # "Nvidia A100, 80 GB" and "Nvidia A100, 40 GB": two models, apart
    a80, a40 = offer(result, "Nvidia A100, 80 GB"), offer(result, "Nvidia A100, 40 GB")
    assert (a80["gpu_model"], a80["vram_gb"], a40["gpu_model"], a40["vram_gb"]) == ("A100 80GB", 80, "A100 40GB", 40)
    assert offer(result, "Nvidia B200")["gpu_model"] == "B200"


def test_cpu_and_memory_rates_are_not_gpu_offers(result):
    # '<h3>CPU</h3>' ... '$0.0000131 / core / sec'; '<h3>Memory</h3>' ... '$0.00000222 / GiB / sec'
    assert "$0.0000131 / core / sec" in BODY and "$0.00000222 / GiB / sec" in BODY
    assert len(result.items) == 10
    assert all(o["gpu_label"].startswith("Nvidia ") for o in result.items)


def test_off_by_default_its_price_is_the_gpu_alone():
    assert ModalSpider.enabled_by_default is False
    assert default_providers(["modal", "fal"]) == ["fal"]
    assert "GPU alone" in ModalSpider.unit


def test_the_hourly_view_is_read_per_gpu_hour():
    # The page's per-hour view prints "$3.95 / h": the printed unit is the unit read.
    got = offer(run(BODY.replace("$0.001097 / sec", "$3.95 / h")), "Nvidia H100")
    assert (got["price_unit"], got["price_raw"], got["price_per_gpu_hour"]) == ("gpu_hour", "$3.95", 3.95)


# --- per-row judgement -----------------------------------------------------------------------------

def test_one_garbled_price_cell_holds_that_row_the_others_load(result):
    edited = run(BODY.replace("$0.001261 / sec", "€0.001261 / sec"))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 10 row(s) held" in outcome.error and "price cell unreadable: '€0.001261 / sec'" in outcome.error
    held = offer(edited, "Nvidia H200")
    assert (held["is_priced"], held["price_raw"], held["price_per_gpu_hour"]) == (False, "€0.001261 / sec", None)
    assert sum(o["is_priced"] for o in edited.items) == 9
    assert sorted(o["offer_key"] for o in edited.items) == sorted(o["offer_key"] for o in result.items)


@pytest.mark.parametrize("cell", ["TBD", "$0.00l097 / sec", "<s>$0.001097 / sec</s>", ""])
def test_unreadable_price_cells_are_held_never_priced(cell):
    edited = run(BODY.replace("$0.001097 / sec", cell))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and "1 of 10 row(s) held" in outcome.error and "Nvidia H100" in outcome.error
    assert offer(edited, "Nvidia H100")["is_priced"] is False
    assert offer(edited, "Nvidia H200")["price_per_gpu_hour"] == pytest.approx(4.5396)   # the next row still reads


def test_placeholders_are_never_prices():
    contact = offer(run(BODY.replace("$0.001736 / sec", "Contact sales")), "Nvidia B200")
    assert (contact["is_priced"], contact["price_text"], contact["self_service"]) == (False, "Contact sales", False)
    edited = run(BODY.replace("$0.000842 / sec", "—"))
    assert judge.judge_crawl(edited).status == "ok" and len(edited.items) == 9
    zero = offer(run(BODY.replace("$0.000164 / sec", "$0.000000 / sec")), "Nvidia T4")
    assert (zero["is_priced"], zero["price_per_hour"]) == (False, None)


# --- changed layouts -----------------------------------------------------------------------------

def test_a_unit_switch_fails_the_page():
    outcome = judged(BODY.replace("$0.001097 / sec", "$0.06582 / min"))
    assert outcome.status == "failed" and outcome.offers == []
    assert "$0.06582 / min" in outcome.error and "Nvidia H100" in outcome.error


@pytest.mark.parametrize("old, new, named", [
    ("<h3>GPU Tasks</h3>", "<h3>GPUs</h3>", "no 'GPU Tasks' price list"),
    ("<h3>CPU</h3>", "<h3>Processors</h3>", "not followed by the 'CPU' prices"),
    ('<span class="name">Nvidia L4</span>', '<span class="name">Google TPU v5e</span>', "neither a GPU name"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert BODY.count(old) == 1
    outcome = judged(BODY.replace(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert named in outcome.error


def test_a_second_copy_is_read_once_and_two_that_differ_fail():
    doubled = BODY.replace(GPU_BLOCK, GPU_BLOCK + "<h3>CPU</h3>" + GPU_BLOCK, 1)
    assert len(run(doubled).items) == 10
    differ = BODY.replace(GPU_BLOCK, GPU_BLOCK + "<h3>CPU</h3>" + GPU_BLOCK.replace("$0.001097", "$0.001200"), 1)
    outcome = judged(differ)
    assert outcome.status == "failed" and "differ" in outcome.error


def test_a_client_rendered_page_fails_closed():
    outcome = judged("<html><body><div id='app'>loading...</div></body></html>")
    assert outcome.status == "failed" and "no 'GPU Tasks' price list" in outcome.error


# --- the one replay through the engine -------------------------------------------------------------

def test_replay_of_the_composed_capture(crawl):
    result = crawl("modal", shipped("modal"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 10
    h100 = offer(result, "Nvidia H100")
    assert (h100["price_per_gpu_hour"], h100["price_unit"], h100["gpu_model"]) == (3.9492, "gpu_second", "H100")
    assert h100["capture"]["source_url"] == URL and h100["capture"]["captured_at"].startswith("2026-06-04T12:00:00")

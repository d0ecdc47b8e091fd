"""Koyeb on its instance reference (koyeb.com/docs/reference/instances): every cell's text is the
stored copy's (the search tool's pages corpus, read 2026-12-02), the HTML around it composed (see
captures/src/2026-12-02/koyeb/exchanges.yaml).

Expected values are read off that stored text (quoted), never off the parser's output. Prices are
USD per instance-hour (Price/hour: "gpu-nvidia-h100 80 GB 15 180 GB $0.000916 $3.30 $2454").
"""

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.koyeb import parse_instances
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

URL = "https://koyeb.com/docs/reference/instances"
BODY = (CAPTURES_SRC / "2026-12-02" / "koyeb" / "instances.html").read_text(encoding="utf-8")
GPU_TABLE = BODY[BODY.index("<table>"):BODY.index("</table>") + len("</table>")]
# Price/hour as stored: "gpu-nvidia-rtx-4000-sff-ada ... $0.5", "gpu-nvidia-l4 ... $0.70", "gpu-nvidia-rtx-a6000 ...
# $0.75", "gpu-nvidia-l40s ... $1.55", "gpu-nvidia-a100 ... $2", "2x-... $4", "4x-... $8", "8x-... $16",
# "gpu-nvidia-h100 ... $3.30", "2x-... $6.60", "4x-... $13.20", "8x-... $26.40".
HOURLY = {"gpu-nvidia-rtx-4000-sff-ada": 0.5, "gpu-nvidia-l4": 0.70, "gpu-nvidia-rtx-a6000": 0.75,
          "gpu-nvidia-l40s": 1.55, "gpu-nvidia-a100": 2, "2x-gpu-nvidia-a100": 4, "4x-gpu-nvidia-a100": 8,
          "8x-gpu-nvidia-a100": 16, "gpu-nvidia-h100": 3.30, "2x-gpu-nvidia-h100": 6.60,
          "4x-gpu-nvidia-h100": 13.20, "8x-gpu-nvidia-h100": 26.40}


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("koyeb", parse_instances(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


@pytest.fixture(scope="module")
def result() -> crawl_process.CrawlResult:
    return run()


def sku(result, name: str) -> dict:
    [found] = [o for o in result.items if o["sku"] == name]
    return found


def test_the_page_is_ok_with_twelve_instance_prices(result):
    assert judge.judge_crawl(result).status == "ok"
    assert {o["sku"]: o["price_per_hour"] for o in result.items} == HOURLY
    h100 = sku(result, "gpu-nvidia-h100")
    assert (h100["gpu_model"], h100["gpu_count"], h100["vram_gb"], h100["price_raw"], h100["price_unit"]) == (
        "H100", 1, 80, "$3.30", "instance_hour")
    assert all((o["billing"], o["tier"], o["currency"], o["self_service"]) == ("on-demand", "on-demand", "USD", True)
               for o in result.items)
    assert result.report["unknown_labels"] == []


def test_the_count_prefix_is_the_gpu_count_and_vram_is_shared(result):
    # "8x-gpu-nvidia-h100 640 GB 120 1.44 TB $0.007328 $26.40": eight H100s of 80 GB, $3.30 per GPU-hour
    h8 = sku(result, "8x-gpu-nvidia-h100")
    assert (h8["gpu_count"], h8["vram_gb"], h8["price_per_gpu_hour"]) == (8, 80, 3.30)
    # "2x-gpu-nvidia-a100 160 GB": A100 80GB, not 160
    assert (sku(result, "2x-gpu-nvidia-a100")["gpu_model"], sku(result, "2x-gpu-nvidia-a100")["vram_gb"]) == ("A100 80GB", 80)
    assert sku(result, "gpu-nvidia-rtx-4000-sff-ada")["gpu_model"] == "RTX 4000 SFF Ada"


def test_the_cpu_instance_table_is_not_read(result):
    # "Standard Instance types": nano ... 4xlarge, "$0.0036" ... "$0.9216" per hour
    assert "<td>nano</td>" in BODY and "<td>$0.9216</td>" in BODY
    assert len(result.items) == 12 and not [o for o in result.items if "xlarge" in o["sku"] or o["sku"] == "nano"]


# --- per-row judgement -----------------------------------------------------------------------------

def test_one_garbled_price_cell_holds_that_row_the_others_load(result):
    edited = run(BODY.replace("<td>$1.55</td>", "<td>€1.55</td>"))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 12 row(s) held" in outcome.error and "Price/hour cell unreadable: '€1.55'" in outcome.error
    held = sku(edited, "gpu-nvidia-l40s")
    assert (held["is_priced"], held["price_raw"], held["price_per_hour"]) == (False, "€1.55", None)
    assert sum(o["is_priced"] for o in edited.items) == 11
    assert sorted(o["offer_key"] for o in edited.items) == sorted(o["offer_key"] for o in result.items)


@pytest.mark.parametrize("cell", ["TBD", "<s>$2</s>", "", "$2.0.0"])
def test_unreadable_price_cells_are_held_never_priced(cell):
    edited = run(BODY.replace("<td>$2</td>", f"<td>{cell}</td>"))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and "1 of 12 row(s) held" in outcome.error
    assert sku(edited, "gpu-nvidia-a100")["is_priced"] is False


def test_a_per_second_price_that_disagrees_holds_the_row():
    # "$0.000916" x 3600 = $3.2976 agrees with "$3.30" (the page rounds); "$0.001916" would be $6.90.
    edited = run(BODY.replace("<td>$0.000916</td>", "<td>$0.001916</td>"))
    outcome = judge.judge_crawl(edited)
    assert outcome.status == "suspect" and "Price/second '$0.001916' x 3600 disagrees" in outcome.error
    assert sku(edited, "gpu-nvidia-h100")["is_priced"] is False


def test_placeholders_are_never_prices():
    contact = sku(run(BODY.replace("<td>$26.40</td>", "<td>Contact sales</td>")), "8x-gpu-nvidia-h100")
    assert (contact["is_priced"], contact["price_text"], contact["self_service"]) == (False, "Contact sales", False)
    edited = run(BODY.replace("<td>$0.75</td>", "<td>—</td>"))
    assert judge.judge_crawl(edited).status == "ok" and len(edited.items) == 11
    zero = sku(run(BODY.replace("<td>$0.5</td>", "<td>$0.00</td>")), "gpu-nvidia-rtx-4000-sff-ada")
    assert (zero["is_priced"], zero["price_per_hour"]) == (False, None)


# --- changed layouts -----------------------------------------------------------------------------

def test_a_unit_switch_fails_the_page():
    outcome = judged(BODY.replace("<td>$3.30</td>", "<td>$3.30/mo</td>"))
    assert outcome.status == "failed" and outcome.offers == []
    assert "$3.30/mo" in outcome.error and "gpu-nvidia-h100" in outcome.error


@pytest.mark.parametrize("old, new, named", [
    ("<th>Price/hour</th>", "<th>Price</th>", "column headings"),
    ("<th>VRAM</th>", "<th>GPU memory</th>", "no table with a VRAM column"),
    ("<td>gpu-nvidia-l4</td>", "<td>nvidia-l4-gpu</td>", "not like '[<n>x-]gpu-<gpu>'"),
    ("<td>24 GB</td>", "<td>24GiB</td>", "VRAM cell(s) not like"),
    ("<td>2x-gpu-nvidia-a100</td><td>160 GB</td>", "<td>2x-gpu-nvidia-a100</td><td>155 GB</td>", "whole share"),
])
def test_layout_change_fails_naming_what_is_missing(old, new, named):
    assert GPU_TABLE.count(old) == 1     # edited in the GPU table only (the CPU table has a Price/hour too)
    outcome = judged(BODY.replace(GPU_TABLE, GPU_TABLE.replace(old, new)))
    assert outcome.status == "failed" and outcome.offers == []
    assert named in outcome.error


def test_a_second_copy_is_read_once_and_two_that_differ_fail():
    assert len(run(BODY.replace(GPU_TABLE, GPU_TABLE + GPU_TABLE, 1)).items) == 12
    outcome = judged(BODY.replace(GPU_TABLE, GPU_TABLE + GPU_TABLE.replace("<td>$3.30</td>", "<td>$3.50</td>"), 1))
    assert outcome.status == "failed" and "differ" in outcome.error


# --- the one replay through the engine -------------------------------------------------------------

def test_replay_of_the_shipped_capture(crawl):
    result = crawl("koyeb", shipped("koyeb"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 12
    h100 = sku(result, "gpu-nvidia-h100")
    assert (h100["price_per_hour"], h100["gpu_model"]) == (3.30, "H100")
    assert h100["capture"]["source_url"] == URL and h100["capture"]["captured_at"].startswith("2026-12-02T12:00:00")

"""GPUwithCrypto (our own site) on the Markdown twin of its GPU price page, 2026-10-29.

There is no third-party recording: the capture is COMPOSED by us from page 1
(rules/published/gpuwithcrypto-llama-70b-finetuning.ja.txt); see the header of
captures/src/2026-10-29/gpuwithcrypto/exchanges.yaml. Expected values are read by hand off the
Markdown capture and page 1 (snippets quoted), never off the parser's output. Layout variants
run in-process (parse_page on modified Markdown through the real pipelines); one subprocess
replay crawls the shipped WARC.
"""

import re

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.gpuwithcrypto import parse_page
from tests.conftest import CAPTURES, CAPTURES_SRC, ROOT
from tests.inprocess import by_key, run_parsed

URL = "https://gpuwithcrypto.com/ja/gpus.html.md"
BODY = (CAPTURES_SRC / "2026-10-29" / "gpuwithcrypto" / "gpus.html.md").read_text(encoding="utf-8")
PAGE1 = (ROOT / "rules" / "published" / "gpuwithcrypto-llama-70b-finetuning.ja.txt").read_text(encoding="utf-8")
CAPTURE = CAPTURES / "2026-10-29" / "gpuwithcrypto.warc.gz"

# Read off the capture: "## A100 80GB" / "VRAM：80 GB" / "| 10 時間 | 10 | $9.20 | $0.92 |", ...
# key = "<count>x <sku = slug of the ## name> [<VRAM>GB unless the name states it] on-demand".
EXPECTED = {
    "1x l40s 48GB on-demand": ("L40S", 48, 0.82),      # "## L40S" "VRAM：48 GB" "| 10 時間 | 10 | $8.20 | $0.82 |"
    "1x a100-80gb on-demand": ("A100 80GB", 80, 0.92),  # "## A100 80GB" "VRAM：80 GB" "| $9.20 | $0.92 |"
    "1x h100 80GB on-demand": ("H100", 80, 2.32),      # "## H100" "VRAM：80 GB" "| $23.20 | $2.32 |"
    "1x h200 141GB on-demand": ("H200", 141, 3.07),    # "## H200" "VRAM：141 GB" "| $30.70 | $3.07 |"
    "1x b200 180GB on-demand": ("B200", 180, 4.61),    # "## B200" "VRAM：180 GB" "| $46.10 | $4.61 |"
}


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("gpuwithcrypto", parse_page(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


def variant(old: str, new: str, body: str = BODY, count: int = 1) -> str:
    assert body.count(old) >= count, old
    return body.replace(old, new, count)


def test_own_price_list_per_gpu_hour_on_demand():
    result = run()
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error, outcome.warnings) == ("ok", None, [])
    offers = by_key(result)
    assert set(offers) == set(EXPECTED)
    for key, (label, vram, price) in EXPECTED.items():
        o = offers[key]
        assert (o["gpu_label"], o["gpu_model"], o["vram_gb"], o["price_per_gpu_hour"]) == (label, label, vram, price)
        # "GPUwithCrypto の GPU はすべてオンデマンドで、GPU 1 時間あたりの料金です。"
        assert (o["gpu_count"], o["billing"], o["tier"], o["price_unit"]) == (1, "on-demand", "on-demand", "gpu_hour")
        assert (o["price_per_hour"], o["self_service"], o["currency"], o["sku"]) == (price, True, "USD", key.split()[1])


def test_capture_agrees_with_page_1():
    # Page 1's one-GPU rows: "| A100 80GBを1台 | 80 GB | ✓ | ✗ | ✗ | ✗ | $0.92/時間 |", ...
    rows = dict((gpu, (int(vram), float(p))) for gpu, vram, p in
                re.findall(r"^\| ([^|]+?)を1台 \| (\d+) GB \|.*\| \$(\d+\.\d+)/時間 \|$", PAGE1, re.M))
    assert rows == {"L40S": (48, 0.82), "A100 80GB": (80, 0.92), "H100": (80, 2.32), "H200": (141, 3.07),
                    "B200": (180, 4.61)}
    offers = {o["gpu_label"]: (o["vram_gb"], o["price_per_gpu_hour"]) for o in run().items}
    assert offers == rows


def test_blocks_top_up_and_date_are_facts():
    facts = {f["fact"]: f for f in run().facts}
    # Page 1: "10、24、168、720時間のブロック単位で、同じ時間単価で販売されます";
    # capture: "チャージは $25 から：BTC, USDT, USDC, ETH, SOL, LTC", "価格更新日：2026-10-29".
    assert facts["block_hours"]["value_text"] == "10, 24, 168, 720"
    assert facts["blocks_same_rate"]["value_num"] == 1.0
    assert facts["topup_min_usd"]["value_num"] == 25
    assert facts["payment_currencies"]["value_text"] == "BTC, USDT, USDC, ETH, SOL, LTC"
    assert facts["prices_dated"]["value_text"] == "2026-10-29"
    # "インスタンスの GPU 数はホストにより 1〜8 基で、何基でも同じ GPU 単価です。"
    assert (facts["gpus_per_host_min"]["value_num"], facts["gpus_per_host_max"]["value_num"]) == (1, 8)
    assert len(run().facts) == 7


@pytest.mark.parametrize("old,new,count,expected", [
    # A renamed column: the parser must not guess which one is the price.
    ("| ブロック | GPU 時間 | 価格 | GPU 1 時間あたり |", "| 期間 | GPU 時間 | 価格 | GPU 1 時間あたり |", 1,
     "table header ['期間', 'GPU 時間', '価格', 'GPU 1 時間あたり'] is not"),
    # The unit statement changes (per GPU-hour -> per hour of the instance?): no guessing.
    ("| GPU 1 時間あたり |", "| 1 時間あたり |", 1, "table header: price column '1 時間あたり' is not 'GPU 1 時間あたり'"),
    # A row with a column missing.
    ("| 24 時間 | 24 | $22.08 | $0.92 |", "| 24 時間 | 24 | $0.92 |", 1,
     "price table rows with a missing or extra column: section 'A100 80GB' (line 29: 3 cells, header has 4)"),
    # A block that is not '<n> 時間'.
    ("| 10 時間 | 10 | $46.10 | $4.61 |", "| 10 日 | 10 | $46.10 | $4.61 |", 1, "unreadable row"),
    # Two rates in one GPU's table: which one is the offer?
    ("| 720 時間 | 720 | $590.40 | $0.82 |", "| 720 時間 | 720 | $568.80 | $0.79 |", 1,
     "blocks carry different prices per GPU-hour (which one is the offer?): section 'L40S' ['0.79', '0.82']"),
    # A section without its table.
    ("| ブロック | GPU 時間 | 価格 | GPU 1 時間あたり |\n|---|---:|---:|---:|\n| 10 時間 | 10 | $23.20 | $2.32 |\n"
     "| 24 時間 | 24 | $55.68 | $2.32 |\n| 168 時間 | 168 | $389.76 | $2.32 |\n| 720 時間 | 720 | $1,670.40 | $2.32 |\n",
     "", 1, "0 tables in a GPU section, expected one price table: section 'H100'"),
    # Two VRAM figures for one GPU.
    ("VRAM：141 GB\n", "VRAM：141 GB\n\nVRAM：143 GB\n", 1, "several different 'VRAM：<n> GB' lines: section 'H200'"),
])
def test_layout_changes_fail_naming_what_is_wrong(old, new, count, expected):
    outcome = judged(variant(old, new, count=count))
    assert outcome.status == "failed" and outcome.offers == []
    assert outcome.error.startswith("gpuwithcrypto: layout changed: ") and expected in outcome.error


def test_one_unreadable_price_cell_holds_that_gpu_the_others_load():
    # Issue 20 item 2. "## B200" "VRAM：180 GB" "| 10 時間 | 10 | $46.10 | $4.61 |": the per-GPU-hour
    # cell changed to "お問い合わせ" (not a price): the B200 offer is held (unpriced, the text kept),
    # the provider suspect, the four other GPUs load at the prices of the page (EXPECTED).
    result = run(variant("| 10 時間 | 10 | $46.10 | $4.61 |", "| 10 時間 | 10 | $46.10 | お問い合わせ |"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 5 row(s) held" in outcome.error and "price cell unreadable: 'お問い合わせ'" in outcome.error
    offers = by_key(result)
    assert set(offers) == set(EXPECTED)
    b200 = offers["1x b200 180GB on-demand"]
    assert (b200["is_priced"], b200["price_raw"], b200["price_per_gpu_hour"]) == (False, "お問い合わせ", None)
    for key, (label, vram, price) in EXPECTED.items():
        if key != "1x b200 180GB on-demand":
            assert (offers[key]["is_priced"], offers[key]["price_per_gpu_hour"]) == (True, price)
    # the B200's blocks cannot be checked: whether every block is hours × rate is not recorded
    facts = {f["fact"] for f in result.facts}
    assert "blocks_same_rate" not in facts and "block_hours" in facts


def test_one_problem_in_every_section_is_one_message():
    parsed = parse_page(BODY.replace("| GPU 1 時間あたり |", "| 単価 |"), URL)
    assert parsed.errors == ["table header: price column '単価' is not 'GPU 1 時間あたり' (per GPU-hour): "
                             "unit unknown: section 'L40S' (+4 more)"]
    assert parsed.offers == []


def test_a_page_without_gpu_sections_fails():
    outcome = judged("# GPU 料金\n\nただいまメンテナンス中です。\n")
    assert outcome.status == "failed" and f"{URL}: no '## <GPU>' sections" in outcome.error


def test_block_priced_off_rate_is_a_fact_not_an_error():
    # The per-hour column still says $0.82; only the block total disagrees: prices stay, the
    # "same hourly rate" fact turns false (the g-blocks.same-rate claim then drifts).
    result = run(variant("| 720 時間 | 720 | $590.40 |", "| 720 時間 | 720 | $560.00 |"))
    assert judge.judge_crawl(result).status == "ok"
    assert by_key(result)["1x l40s 48GB on-demand"]["price_per_gpu_hour"] == 0.82
    facts = {f["fact"]: f for f in result.facts}
    assert facts["blocks_same_rate"]["value_num"] == 0.0


def test_a_gpu_without_some_block_makes_blocks_not_uniform():
    result = run(variant("| 720 時間 | 720 | $3,319.20 | $4.61 |\n", ""))  # B200 loses its 720 h block
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 5
    facts = {f["fact"]: f for f in result.facts}
    assert (facts["block_hours"]["value_text"], facts["blocks_same_rate"]["value_num"]) == ("10, 24, 168, 720", 0.0)


def test_missing_fact_lines_keep_prices_and_record_no_such_facts():
    body = variant("チャージは $25 から：BTC, USDT, USDC, ETH, SOL, LTC\n\n", "")
    body = variant("価格更新日：2026-10-29\n\n", "", body)
    result = run(body)
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 5
    assert {f["fact"] for f in result.facts} == {"block_hours", "blocks_same_rate", "gpus_per_host_min", "gpus_per_host_max"}


def test_a_section_without_vram_line_takes_the_catalog_size():
    result = run(variant("VRAM：48 GB\n\n", ""))
    assert judge.judge_crawl(result).status == "ok"
    # No VRAM stated: the key has no size, the catalog gives L40S its 48 GB.
    assert by_key(result)["1x l40s on-demand"]["vram_gb"] == 48


def test_replay_of_the_shipped_capture(crawl):
    result = crawl("gpuwithcrypto", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    offers = by_key(result)
    assert {k: (o["gpu_label"], o["vram_gb"], o["price_per_gpu_hour"]) for k, o in offers.items()} == EXPECTED
    facts = {f["fact"]: f for f in result.facts}
    assert facts["block_hours"]["value_text"] == "10, 24, 168, 720"
    assert facts["topup_min_usd"]["capture"]["source_url"] == URL
    assert offers["1x a100-80gb on-demand"]["capture"]["captured_at"].startswith("2026-10-29T02:00:06")

"""Arrakis (our own site) on the Markdown twin of its GPU price page, 2026-10-31 17:40 UTC.

There is no third-party recording: the capture is COMPOSED by us from page 2
(rules/published/arrakis-gpu-memory.ja.md), some rows illustrative; see the header of
captures/src/2026-10-31/arrakis/exchanges.yaml. Expected values are read by hand off the
Markdown capture and page 2 / CLAIMS.md (snippets quoted), never off the parser's output.
Layout variants run in-process (parse_page on modified Markdown through the real pipelines);
one subprocess replay crawls the shipped WARC.
"""

import re

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.arrakis import parse_page
from tests.conftest import CAPTURES, CAPTURES_SRC, ROOT
from tests.inprocess import by_key, run_parsed

URL = "https://arrakis.cloud/ja/gpus.html.md"
BODY = (CAPTURES_SRC / "2026-10-31" / "arrakis" / "gpus.html.md").read_text(encoding="utf-8")
PUBLISHED = ROOT / "rules" / "published"
CAPTURE = CAPTURES / "2026-10-31" / "arrakis.warc.gz"
TIER = "marketplace/cheapest listing"

# Read off the capture's table "| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |":
# key = "1x <sku = link slug> <VRAM>GB marketplace/cheapest listing"; (label, VRAM, GPUs listed, $/GPU-hour).
EXPECTED = {
    f"1x rtx-3090 24GB {TIER}": ("RTX 3090", 24, 122, 0.19),
    f"1x rtx-4090 24GB {TIER}": ("RTX 4090", 24, 184, 0.41),
    f"1x rtx-5090 32GB {TIER}": ("RTX 5090", 32, 56, 0.62),
    f"1x rtx-a6000 48GB {TIER}": ("RTX A6000", 48, 38, 0.47),
    f"1x rtx-6000-ada 48GB {TIER}": ("RTX 6000 Ada", 48, 24, 0.69),
    f"1x l40s 48GB {TIER}": ("L40S", 48, 40, 0.44),
    f"1x rtx-pro-6000 96GB {TIER}": ("RTX PRO 6000", 96, 32, 1.90),
    f"1x a100 80GB {TIER}": ("A100", 80, 48, 1.72),
    f"1x h100 80GB {TIER}": ("H100", 80, 72, 1.65),
    f"1x h200 141GB {TIER}": ("H200", 141, 32, 4.03),
    f"1x b200 180GB {TIER}": ("B200", 180, 24, 6.79),
    f"1x b300 288GB {TIER}": ("B300", 288, 16, 4.60),
}  # "| [RTX A5000](/ja/gpus/rtx-a5000.html.md) | 24 GB | 0 | — |": no listing, no offer


def run(body: str = BODY) -> crawl_process.CrawlResult:
    return run_parsed("arrakis", parse_page(body, URL), url=URL)


def judged(body: str) -> judge.ProviderOutcome:
    return judge.judge_crawl(run(body))


def variant(old: str, new: str, body: str = BODY) -> str:
    assert body.count(old) == 1, old
    return body.replace(old, new)


def test_cheapest_listing_per_gpu_hour():
    result = run()
    outcome = judge.judge_crawl(result)
    assert (outcome.status, outcome.error, outcome.warnings) == ("ok", None, [])
    offers = by_key(result)
    assert set(offers) == set(EXPECTED)
    for key, (label, vram, listed, price) in EXPECTED.items():
        o = offers[key]
        assert (o["gpu_label"], o["vram_gb"], o["price_per_gpu_hour"], o["price_per_hour"]) == (label, vram, price, price)
        # "ホストがマシンごとに GPU 1 時間あたりの単価を決め" / header "最安値（GPU 1 時間あたり）"
        assert (o["gpu_count"], o["billing"], o["tier"], o["price_unit"]) == (1, "marketplace", "cheapest listing",
                                                                              "gpu_hour")
        assert o["availability"] == f"{listed} GPUs listed" and o["sku"] == key.split()[1]
    # Labels the catalog resolves by name; "A100" with "80 GB" is the 80 GB part.
    assert offers[f"1x a100 80GB {TIER}"]["gpu_model"] == "A100 80GB"
    assert {o["gpu_model"] for o in offers.values()} >= {"RTX 3090", "RTX 4090", "L40S", "H100", "H200", "B200", "B300"}


def test_capture_agrees_with_page_2():
    # CLAIMS.md, page 2: "... when it listed 688 GPUs on 201 machines: RTX 3090 $0.19 · ... · B200 $6.79."
    text = (PUBLISHED / "CLAIMS.md").read_text(encoding="utf-8")
    block = text[text.index("when it listed 688 GPUs"):text.index("Memory rules of this page")]
    cited = {n.strip(): float(p) for n, p in re.findall(r"([A-Z][\w ]*?) \$(\d+\.\d+)", block.split(":", 1)[1])}
    assert cited == {"RTX 3090": 0.19, "RTX 4090": 0.41, "L40S": 0.44, "H100": 1.65, "RTX PRO 6000": 1.90,
                     "H200": 4.03, "B300": 4.60, "B200": 6.79}
    offers = {o["gpu_label"]: o for o in run().items}
    assert {n: offers[n]["price_per_gpu_hour"] for n in cited} == cited
    # Page 2 names RTX 6000 Ada / RTX A6000 beside "L40S は ... $0.44 から" and A100 beside "H100 は ... $1.65 から".
    assert min(offers[n]["price_per_gpu_hour"] for n in ("RTX 6000 Ada", "RTX A6000")) >= 0.44
    assert offers["A100"]["price_per_gpu_hour"] >= 1.65
    # Page 2 links each GPU as the capture does: "[RTX PRO 6000](/ja/gpus/rtx-pro-6000.html.md)".
    page = (PUBLISHED / "arrakis-gpu-memory.ja.md").read_text(encoding="utf-8")
    links = dict(re.findall(r"\[([^\]]+)\]\(/ja/gpus/([a-z0-9-]+)\.html\.md\)", page))
    assert all(offers[n]["sku"] == slug for n, slug in links.items())
    assert len(links) == 11  # the 8 priced ones + RTX 6000 Ada, RTX A6000, A100


def test_listing_counts_are_facts():
    result = run()
    facts = {f["fact"]: f for f in result.facts}
    # Page 2: "2026年10月31日 17:40 UTC 時点で、Arrakis には 201 台のマシンに 688 基の GPU が掲載されています"
    assert facts["listed_machines"]["value_num"] == 201 and facts["listed_gpus"]["value_num"] == 688
    assert facts["listed_at"]["value_text"] == "2026-10-31T17:40:00Z"
    assert len(result.facts) == 3
    # The table's illustrative counts add up to the page's total.
    assert sum(int(o["availability"].split()[0]) for o in result.items) == 688


@pytest.mark.parametrize("old,new,expected", [
    ("| GPU | VRAM | 掲載数 | 最安値（GPU 1 時間あたり） |", "| GPU | メモリ | 掲載数 | 最安値（GPU 1 時間あたり） |",
     "table header ['GPU', 'メモリ', '掲載数', '最安値（GPU 1 時間あたり）'] is not"),
    # The unit statement changes (an average? per machine?): no guessing.
    ("| 最安値（GPU 1 時間あたり） |", "| 最安値（1 時間あたり） |",
     "table header: price column '最安値（1 時間あたり）' is not '最安値（GPU 1 時間あたり）'"),
    ("| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |", "| [H100](/ja/gpus/h100.html.md) | 80 GB | $1.65 |",
     "rows with a missing or extra column: line 17: 3 cells, header has 4"),
    ("| 24 GB | 0 | — |", "| 24 GB | 0 | 要問合せ |", "unparseable price (expected '$<amount>' or '—'): row RTX A5000 '要問合せ'"),
    # A dash means "no listing": with GPUs listed it is a contradiction, not a free GPU.
    ("| 288 GB | 16 | $4.60 |", "| 288 GB | 16 | — |", "no price ('—') with GPUs listed: row B300 (16)"),
    ("| 24 GB | 0 | — |", "| 24 GB | 0 | $0.30 |", "a price with 0 GPUs listed: row RTX A5000 '$0.30'"),
    # The GPU cell must link the GPU's page (its slug is the sku).
    ("| [L40S](/ja/gpus/l40s.html.md) |", "| L40S |", "GPU cell is not '[<GPU>](/ja/gpus/<slug>.html.md)': row L40S"),
    ("| [B200](/ja/gpus/b200.html.md) | 180 GB |", "| [B200](/ja/gpus/b200.html.md) | 180 GiB |",
     "VRAM cell '180 GiB' is not '<n> GB': row B200"),
    ("| 184 | $0.41 |", "| 約 180 | $0.41 |", "listing count '約 180' is not a number: row RTX 4090"),
])
def test_layout_changes_fail_naming_what_is_wrong(old, new, expected):
    outcome = judged(variant(old, new))
    assert outcome.status == "failed" and outcome.offers == []
    assert outcome.error.startswith("arrakis: layout changed: ") and expected in outcome.error


def test_one_unreadable_price_cell_holds_that_row_the_others_load():
    # Issue 20 item 2. "| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |", the price changed to
    # "要問合せ" (not '$<amount>' or '—'): the H100 offer is held (unpriced, the text kept), the
    # provider suspect, the 11 other GPUs load at the prices of the page (EXPECTED).
    result = run(variant("| 72 | $1.65 |", "| 72 | 要問合せ |"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 12 row(s) held" in outcome.error and "price cell unreadable: '要問合せ'" in outcome.error
    offers = by_key(result)
    assert set(offers) == set(EXPECTED)
    h100 = offers[f"1x h100 80GB {TIER}"]
    assert (h100["is_priced"], h100["price_raw"], h100["price_per_gpu_hour"], h100["availability"]) == (
        False, "要問合せ", None, "72 GPUs listed")
    for key, (label, vram, listed, price) in EXPECTED.items():
        if label != "H100":
            assert (offers[key]["is_priced"], offers[key]["price_per_gpu_hour"]) == (True, price)


def test_one_problem_in_many_rows_is_one_message():
    body = re.sub(r"\| \[([^\]]+)\]\(/ja/gpus/[a-z0-9-]+\.html\.md\) \|", r"| \1 |", BODY)
    assert parse_page(body, URL).errors == ["GPU cell is not '[<GPU>](/ja/gpus/<slug>.html.md)': row RTX 3090 (+12 more)"]


def test_no_table_or_no_listing_fails():
    table = BODY[BODY.index("| GPU |"):BODY.index("\n\n", BODY.index("| GPU |"))]
    outcome = judged(BODY.replace(table, ""))
    assert outcome.status == "failed" and f"{URL}: 0 tables, expected one GPU price table" in outcome.error
    header = "\n".join(table.splitlines()[:2])
    outcome = judged(BODY.replace(table, header + "\n| [RTX A5000](/ja/gpus/rtx-a5000.html.md) | 24 GB | 0 | — |"))
    assert outcome.status == "failed" and "the price table lists no GPU with a listing" in outcome.error


def test_missing_count_line_keeps_prices_but_records_no_listing_facts():
    result = run(variant("2026年10月31日 17:40 UTC 時点で、201 台のマシンに 688 基の GPU が掲載されています。\n", ""))
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 12 and result.facts == []


def test_thousands_separators_in_counts():
    body = variant("| 184 | $0.41 |", "| 1,184 | $0.41 |")
    body = variant("201 台のマシンに 688 基", "1,201 台のマシンに 1,688 基", body)
    result = run(body)
    assert by_key(result)[f"1x rtx-4090 24GB {TIER}"]["availability"] == "1184 GPUs listed"
    facts = {f["fact"]: f["value_num"] for f in result.facts if f.get("value_num") is not None}
    assert facts == {"listed_machines": 1201, "listed_gpus": 1688}


def test_replay_of_the_shipped_capture(crawl):
    result = crawl("arrakis", CAPTURE)
    assert judge.judge_crawl(result).status == "ok"
    offers = by_key(result)
    assert {k: (o["gpu_label"], o["vram_gb"], int(o["availability"].split()[0]), o["price_per_gpu_hour"])
            for k, o in offers.items()} == EXPECTED
    facts = {f["fact"]: f for f in result.facts}
    assert (facts["listed_gpus"]["value_num"], facts["listed_machines"]["value_num"]) == (688, 201)
    assert facts["listed_at"]["capture"]["source_url"] == URL
    assert offers[f"1x h100 80GB {TIER}"]["capture"]["captured_at"].startswith("2026-10-31T17:40:00")

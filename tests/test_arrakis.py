"""Arrakis spider on the recorded 2026-10-31 17:40 UTC Markdown twin of its GPU price page."""

import re

import pytest

from pricewatch import collect
from tests.conftest import CAPTURES, ROOT, source_exchanges

CAPTURE = CAPTURES / "2026-10-31" / "arrakis.warc.gz"
PUBLISHED = ROOT / "rules" / "published"


def arrakis_prices() -> dict[str, float]:
    """CLAIMS.md, page 2: '... when it listed 688 GPUs on 201 machines: RTX 3090 $0.19 · ... · B200 $6.79.'"""
    text = (PUBLISHED / "CLAIMS.md").read_text(encoding="utf-8")
    block = text[text.index("when it listed 688 GPUs"):text.index("Memory rules of this page")]
    return {name.strip(): float(p) for name, p in re.findall(r"([A-Z][\w ]*?) \$(\d+\.\d+)", block.split(":", 1)[1])}


def test_cheapest_listing_per_gpu_matches_page_2(crawl):
    result = crawl("arrakis", CAPTURE)
    expected = arrakis_prices()
    assert len(expected) == 8 and expected["B200"] == 6.79
    offers = {i["gpu_model"]: i for i in result.items}
    assert {m: offers[m]["price_per_gpu_hour"] for m in expected} == expected
    for o in offers.values():
        assert (o["billing"], o["gpu_count"], o["price_unit"]) == ("marketplace", 1, "gpu_hour")
    assert collect.judge_crawl(result).status == "ok"


def test_gpus_page_2_names_without_a_price_are_listed_at_or_above_the_named_cheapest(crawl):
    # Page 2: "L40S、RTX 6000 Ada または RTX A6000 1 枚、L40S は ... $0.44 から" and
    # "H100 または A100 1 枚、H100 は ... $1.65 から": the others cost at least that much.
    offers = {i["gpu_label"]: i for i in crawl("arrakis", CAPTURE).items}
    assert offers["RTX 6000 Ada"]["price_per_gpu_hour"] >= 0.44
    assert offers["RTX A6000"]["price_per_gpu_hour"] >= 0.44
    # "A100" on page 2 holds 77 GB: the 80 GB part (the catalog resolves the label by its VRAM).
    assert offers["A100"]["gpu_model"] == "A100 80GB" and offers["A100"]["price_per_gpu_hour"] >= 1.65
    # A GPU with no listing ("0 | —") is no offer at all.
    assert "RTX A5000" not in offers


def test_listing_counts_are_facts(crawl):
    result = crawl("arrakis", CAPTURE)
    facts = {f["fact"]: f for f in result.facts}
    page = (PUBLISHED / "arrakis-gpu-memory.ja.md").read_text(encoding="utf-8")
    machines, gpus = map(int, re.search(r"(\d+) 台のマシンに (\d+) 基の GPU", page).groups())
    assert (facts["listed_machines"]["value_num"], facts["listed_gpus"]["value_num"]) == (machines, gpus) == (201, 688)
    assert facts["listed_at"]["value_text"] == "2026-10-31T17:40:00Z"
    # The per-GPU counts of the table add up to the page's total.
    assert sum(int(o["availability"].split()[0]) for o in result.items) == gpus


@pytest.mark.parametrize("old,new,expected", [
    ("| GPU | VRAM | 掲載数 | 最安値（GPU 1 時間あたり） |", "| GPU | VRAM | 掲載数 | 平均価格 |", "table header"),
    ("| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |", "| [H100](/ja/gpus/h100.html.md) | 80 GB | $1.65 |",
     "missing or extra column"),
    ("| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |", "| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | 要問合せ |",
     "unparseable price"),
    # A dash means "no listing": with GPUs listed it is a contradiction, not a free GPU.
    ("| [B300](/ja/gpus/b300.html.md) | 288 GB | 16 | $4.60 |", "| [B300](/ja/gpus/b300.html.md) | 288 GB | 16 | — |",
     "no price"),
    # The GPU cell must link the GPU's page (its slug is the offer key).
    ("| [L40S](/ja/gpus/l40s.html.md) |", "| L40S |", "unreadable row"),
])
def test_layout_changes_fail_the_provider_naming_what_is_wrong(crawl, make_warc, old, new, expected):
    ex = source_exchanges("2026-10-31", "arrakis")
    assert old.encode() in ex[0]["body"]
    ex[0]["body"] = ex[0]["body"].replace(old.encode(), new.encode())
    outcome = collect.judge_crawl(crawl("arrakis", make_warc(ex)))
    assert outcome.status == "failed"
    assert "arrakis" in outcome.error and expected in outcome.error
    assert outcome.offers == []


def test_missing_count_line_keeps_prices_but_records_no_listing_facts(crawl, make_warc):
    ex = source_exchanges("2026-10-31", "arrakis")
    ex[0]["body"] = re.sub("2026年10月31日 17:40 UTC 時点で、201 台のマシンに 688 基の GPU が掲載されています。\n".encode(),
                           b"", ex[0]["body"])
    result = crawl("arrakis", make_warc(ex))
    assert collect.judge_crawl(result).status == "ok"
    assert len(result.items) == 12 and result.facts == []

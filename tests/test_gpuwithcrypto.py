"""GPUwithCrypto spider on the recorded 2026-10-29 Markdown twin of its own price page."""

import re

import pytest

from pricewatch import collect
from tests.conftest import CAPTURES, ROOT, source_exchanges

CAPTURE = CAPTURES / "2026-10-29" / "gpuwithcrypto.warc.gz"
CLAIMS_MD = (ROOT / "rules" / "published" / "CLAIMS.md").read_text(encoding="utf-8")


def own_price_list() -> dict[str, float]:
    """CLAIMS.md: 'Own price list (per GPU-hour, on demand): L40S $0.82 · A100 80GB $0.92 · ...'"""
    block = CLAIMS_MD[CLAIMS_MD.index("Own price list"):CLAIMS_MD.index("GPU VRAM used by the page")]
    return {name.strip(): float(p) for name, p in re.findall(r"([A-Z][\w ]*?) \$(\d+\.\d+)", block.split(":", 1)[1])}


def test_reads_the_own_price_list_per_gpu_hour_on_demand(crawl):
    result = crawl("gpuwithcrypto", CAPTURE)
    expected = own_price_list()
    assert expected == {"L40S": 0.82, "A100 80GB": 0.92, "H100": 2.32, "H200": 3.07, "B200": 4.61}
    offers = {i["gpu_model"]: i for i in result.items}
    assert {m: o["price_per_gpu_hour"] for m, o in offers.items()} == expected
    for o in offers.values():
        assert (o["billing"], o["gpu_count"], o["price_unit"], o["self_service"]) == ("on-demand", 1, "gpu_hour", True)
    # VRAM as page 1 uses it: "L40S 48 GB, A100 80GB 80, H100 80, H200 141, B200 180".
    assert {m: o["vram_gb"] for m, o in offers.items()} == {"L40S": 48, "A100 80GB": 80, "H100": 80, "H200": 141, "B200": 180}
    assert collect.judge_crawl(result).status == "ok"


def test_blocks_and_top_up_are_recorded_as_facts(crawl):
    facts = {f["fact"]: f for f in crawl("gpuwithcrypto", CAPTURE).facts}
    # Page 1: "10、24、168、720時間のブロック単位で、同じ時間単価" and "$25のチャージからBTC, USDT, USDC, ETH, SOL, LTC".
    assert facts["block_hours"]["value_text"] == "10, 24, 168, 720"
    assert facts["blocks_same_rate"]["value_num"] == 1.0
    assert facts["topup_min_usd"]["value_num"] == 25
    assert facts["payment_currencies"]["value_text"] == "BTC, USDT, USDC, ETH, SOL, LTC"
    assert facts["prices_dated"]["value_text"] == "2026-10-29"
    assert facts["block_hours"]["capture"]["source_url"] == "https://gpuwithcrypto.com/ja/gpus.html.md"


def _variant(crawl, make_warc, old: bytes, new: bytes):
    ex = source_exchanges("2026-10-29", "gpuwithcrypto")
    assert old in ex[0]["body"]
    ex[0]["body"] = ex[0]["body"].replace(old, new)
    return collect.judge_crawl(crawl("gpuwithcrypto", make_warc(ex)))


@pytest.mark.parametrize("old,new,expected", [
    # A renamed column: the parser must not guess which one is the price.
    ("| ブロック | GPU 時間 | 価格 | GPU 1 時間あたり |", "| ブロック | GPU 時間 | 価格 | 単価 |", "table header"),
    # A row with a column missing.
    ("| 24 時間 | 24 | $22.08 | $0.92 |", "| 24 時間 | 24 | $0.92 |", "missing or extra column"),
    # A price that is not a number.
    ("| 10 時間 | 10 | $46.10 | $4.61 |", "| 10 時間 | 10 | $46.10 | お問い合わせ |", "unreadable row"),
    # Two rates in one GPU's table: which one is the offer?
    ("| 720 時間 | 720 | $590.40 | $0.82 |", "| 720 時間 | 720 | $568.80 | $0.79 |", "different prices per GPU-hour"),
])
def test_layout_changes_fail_the_provider_naming_what_is_wrong(crawl, make_warc, old, new, expected):
    outcome = _variant(crawl, make_warc, old.encode(), new.encode())
    assert outcome.status == "failed"
    assert "gpuwithcrypto" in outcome.error and expected in outcome.error
    assert outcome.offers == []


def test_a_page_without_gpu_sections_fails(crawl, make_warc):
    ex = source_exchanges("2026-10-29", "gpuwithcrypto")
    ex[0]["body"] = "# GPU 料金\n\nただいまメンテナンス中です。\n".encode()
    outcome = collect.judge_crawl(crawl("gpuwithcrypto", make_warc(ex)))
    assert outcome.status == "failed" and "no '## <GPU>' sections" in outcome.error


def test_block_priced_off_rate_is_a_fact_not_an_error(crawl, make_warc):
    # The per-hour column still says $0.82; only the block total disagrees: prices stay, the
    # "same hourly rate" fact turns false (the g-blocks.same-rate claim then drifts).
    ex = source_exchanges("2026-10-29", "gpuwithcrypto")
    ex[0]["body"] = ex[0]["body"].replace(b"| 720 \xe6\x99\x82\xe9\x96\x93 | 720 | $590.40 |", b"| 720 \xe6\x99\x82\xe9\x96\x93 | 720 | $560.00 |")
    result = crawl("gpuwithcrypto", make_warc(ex))
    assert collect.judge_crawl(result).status == "ok"
    facts = {f["fact"]: f for f in result.facts}
    assert facts["blocks_same_rate"]["value_num"] == 0.0

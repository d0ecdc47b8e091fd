"""Lium on its REAL recorded executors answer (lium.io/api/executors, 2026-08-22, an excerpt of 17 of
86 rows with ``specs`` pruned; see tests/real/lium/SOURCE.md and captures/src/2026-08-22/lium/exchanges.yaml).

Expected values are read off the recorded JSON (quoted) or SOURCE.md. Unit: ``price_per_gpu`` =
USD per GPU-hour; a listing is ``gpu_count`` GPUs.
"""

import json

import pytest

from pricewatch.collect import crawl_process, judge
from spiders.lium import EXECUTORS, parse_executors
from tests.conftest import CAPTURES_SRC, shipped
from tests.inprocess import run_parsed

TEXT = (CAPTURES_SRC / "2026-08-22" / "lium" / "executors.json").read_text(encoding="utf-8")


def run(text: str = TEXT) -> crawl_process.CrawlResult:
    return run_parsed("lium", parse_executors(text, EXECUTORS), url=EXECUTORS)


def changed(prefix: str, **fields) -> str:
    rows = json.loads(TEXT)
    row = next(r for r in rows if r["id"].startswith(prefix))
    row.update(fields)
    return json.dumps(rows)


@pytest.fixture(scope="module")
def offers() -> dict[str, dict]:
    return {o["sku"][:8]: o for o in run().items}


def test_the_real_book_is_17_listings_per_gpu_hour(offers):
    result = run()
    assert judge.judge_crawl(result).status == "ok"
    assert len(result.items) == 17 and result.report["unknown_labels"] == []
    assert all((o["currency"], o["price_unit"]) == ("USD", "gpu_hour") for o in result.items)
    # SOURCE.md: "Tiers: secure 16, spot 1."
    assert sorted((o["billing"], o["tier"]) for o in result.items).count(("marketplace", "secure")) == 16
    # "id": "42ef8a0b-…", "machine_name": "NVIDIA B300 SXM6 AC", "price_per_gpu": 7.97, "gpu_count": 8,
    # "location": {"country_code": "US", ...}, "tier": "secure"
    b300 = offers["42ef8a0b"]
    assert (b300["gpu_model"], b300["gpu_count"], b300["region"], b300["price_per_gpu_hour"], b300["price_per_hour"]) == \
        ("B300", 8, "US", 7.97, 63.76)
    # "NVIDIA RTX PRO 6000 Blackwell Server Edition" 1.01, 8 GPUs, "available_gpu_count": 4,
    # "min_gpu_count_for_rental": 1
    assert offers["b1f168d5"]["availability"] == "4 of 8 GPUs free; rentable from 1 GPU"
    assert offers["b1f168d5"]["price_per_gpu_hour"] == 1.01


def test_the_one_spot_row_is_spot_and_the_secure_h200_is_not(offers):
    # "id": "b37a337d-…", "machine_name": "NVIDIA H200", "price_per_gpu": 3.1, "gpu_count": 8,
    # "specs": {"is_spot": true}, "tier": "spot"   vs   "1c05e9a9-…" NVIDIA H200, 4.2262, "tier": "secure"
    spot, secure = offers["b37a337d"], offers["1c05e9a9"]
    assert (spot["billing"], spot["tier"], spot["price_per_gpu_hour"]) == ("spot", "spot", 3.1)
    assert (secure["billing"], secure["tier"], secure["price_per_gpu_hour"]) == ("marketplace", "secure", 4.2262)


def test_two_machines_at_one_price_are_two_offers(offers):
    # Two "NVIDIA H100 80GB HBM3" rows at 1.75: d4093d0c (8 GPUs, RU) and d7fe144f (2 GPUs, US).
    assert [(offers[i]["gpu_count"], offers[i]["region"], offers[i]["price_per_gpu_hour"]) for i in ("d4093d0c", "d7fe144f")] \
        == [(8, "RU", 1.75), (2, "US", 1.75)]


def test_a_miner_set_float_residue_is_kept_as_printed(offers):
    # "id": "8b121617-…", "price_per_gpu": 8.000300000000001
    assert offers["8b121617"]["price_raw"] == 8.000300000000001
    assert round(offers["8b121617"]["price_per_gpu_hour"], 4) == 8.0003


def test_a_pending_price_is_not_the_current_price():
    result = run(changed("42ef8a0b", pending_price_per_hour=5.0, price_change_effective_date="2026-09-01T00:00:00"))
    [b300] = [o for o in result.items if o["sku"].startswith("42ef8a0b")]
    assert b300["price_per_gpu_hour"] == 7.97


def test_a_zero_price_is_unpriced_not_free():
    [row] = [o for o in run(changed("e1b995fb", price_per_gpu=0)).items if o["sku"].startswith("e1b995fb")]
    assert (row["is_priced"], row["price_text"]) == (False, "price_per_gpu 0")


def test_a_price_as_text_holds_that_row_the_others_load(offers):
    # Issue 20 item 2. Executor e1b995fb's price_per_gpu changed to the text "$0.33/hr": that one
    # listing is held (unpriced, the text kept), the provider suspect, the 16 other listings load as
    # recorded (e.g. "42ef8a0b-…" "NVIDIA B300 SXM6 AC" "price_per_gpu": 7.97, 8 GPUs).
    result = run(changed("e1b995fb", price_per_gpu="$0.33/hr"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "suspect" and outcome.trusted
    assert "1 of 17 row(s) held" in outcome.error and "price_per_gpu unreadable: '$0.33/hr'" in outcome.error
    edited = {o["sku"][:8]: o for o in result.items}
    held = edited["e1b995fb"]
    assert (held["is_priced"], held["price_raw"], held["price_per_gpu_hour"]) == (False, "$0.33/hr", None)
    assert held["offer_key"] == offers["e1b995fb"]["offer_key"]
    assert edited["42ef8a0b"]["price_per_gpu_hour"] == 7.97
    assert {k: o["price_per_gpu_hour"] for k, o in edited.items() if k != "e1b995fb"} == \
        {k: o["price_per_gpu_hour"] for k, o in offers.items() if k != "e1b995fb"}


def test_spot_flag_and_tier_that_disagree_fail():
    parsed = parse_executors(changed("1c05e9a9", specs={"is_spot": True}), EXECUTORS)
    assert parsed.errors == [f"{EXECUTORS}: 1 tier and specs.is_spot disagree: 1c05e9a9 tier='secure' is_spot=True"]


def test_a_renamed_price_field_fails_for_every_row():
    parsed = parse_executors(TEXT.replace('"price_per_gpu":', '"price_per_gpu_hour":'), EXECUTORS)
    assert parsed.offers == [] and parsed.errors[0].startswith(f"{EXECUTORS}: 17 executor(s) lack price_per_gpu")


@pytest.mark.parametrize("text, message", [
    ("[]", "the list of executors is empty"),
    ('{"detail": "rate limited"}', "expected a JSON list of executors, found dict"),
])
def test_an_answer_without_executors_fails(text, message):
    outcome = judge.judge_crawl(run(text))
    assert outcome.status == "failed" and message in outcome.error


def test_replay_of_the_real_capture(crawl):
    result = crawl("lium", shipped("lium"))
    assert judge.judge_crawl(result).status == "ok" and len(result.items) == 17

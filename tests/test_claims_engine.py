"""How claims behave when prices move, sources fail and offers disappear: real crawls of altered
captures loaded into a real DuckDB, evaluated run by run.

Runs of the scenario (all replays):
  R1 2026-08-22  shipped captures of massed_compute, thunder_compute, gpuwithcrypto, lambda_cloud
                 (each provider dated by its own capture: the real pages of 2026-08-22, our
                 composed ones of 2026-10-29)
  R2 2026-10-31  shipped Arrakis capture (17:40 UTC)
  R3 2026-11-05  Lambda's 8x B200 SXM6 at $5.24 per GPU = $41.92 (undercuts Massed Compute's cited $43.46),
                 Thunder's A100 80GB at $1.19 (cited at $1.09), GPUwithCrypto's page with a
                 renamed column (its crawl fails), Arrakis without any RTX 3090 listing and
                 B200 at $5.99
  R4 2026-11-06  GPUwithCrypto still failing
"""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from flows.nightly import parse_as_of
from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.claims.rules import RULES_DIR, RulesError, load_rules
from pricewatch.collect import judge, store
from pricewatch.evidence.archive import write_exchanges
from tests.conftest import CAPTURES, shipped, shipped_date, source_exchanges
from warehouse import db, migrate

SHIPPED = {p: shipped(p) for p in ("massed_compute", "thunder_compute", "gpuwithcrypto", "lambda_cloud")}
ARRAKIS = CAPTURES / "2026-10-31" / "arrakis.warc.gz"


def _variant(base: Path, provider: str, *replacements: tuple[bytes, bytes]) -> Path:
    ex = source_exchanges(shipped_date(provider), provider)
    for old, new in replacements:
        hit = [e for e in ex if old in e["body"]]
        assert hit, f"{provider}: {old!r} not in the capture"
        for e in hit:
            e["body"] = e["body"].replace(old, new)
    return write_exchanges(base / f"{provider}-{len(list(base.glob('*')))}.warc.gz", ex)


@pytest.fixture(scope="module")
def scenario(tmp_path_factory, crawl):
    base = tmp_path_factory.mktemp("claims-scenario")
    con = db.connect(base / "w.duckdb")
    migrate.migrate(con)
    # Real captures of 2026-08-22..10-31 replayed up to 2026-11-06: the claims here test values,
    # so the staleness limit is 100 days (tests/test_claims_published.py tests staleness).
    con.execute("UPDATE mart_settings SET stale_after_hours = 2400")

    def load(warcs: dict[str, Path], as_of: str | None) -> str:
        # The session's crawl cache: shipped captures are replayed once for the whole suite.
        outcomes = [judge.judge_crawl(crawl(p, w)) for p, w in warcs.items()]
        run, prs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc),
                                                    parse_as_of(as_of), base)
        assert store.load_run(con, run, prs, offers, facts)
        return run["run_id"]

    runs = {}
    runs["R1"] = load(SHIPPED, None)
    evaluate_claims(con, runs["R1"])
    runs["R2"] = load({"arrakis": ARRAKIS}, None)
    broken_page = _variant(base, "gpuwithcrypto",
                           ("| GPU 1 時間あたり |".encode(), "| 単価 |".encode()))
    runs["R3"] = load({
        "lambda_cloud": _variant(base, "lambda_cloud", (b"$6.69", b"$5.24")),
        "thunder_compute": _variant(base, "thunder_compute",
                                    (b'"a100xl_x1_prototyping": 1.09', b'"a100xl_x1_prototyping": 1.19')),
        "gpuwithcrypto": broken_page,
        "arrakis": _variant(base, "arrakis",
                            ("| 24 GB | 122 | $0.19 |".encode(), "| 24 GB | 0 | — |".encode()),
                            ("| 180 GB | 24 | $6.79 |".encode(), "| 180 GB | 24 | $5.99 |".encode())),
    }, "2026-11-05T02:00:00Z")
    evaluate_claims(con, runs["R3"])
    # R2 is evaluated only now, after R3 is in the warehouse: its snapshot must not see R3.
    evaluate_claims(con, runs["R2"])
    runs["R4"] = load({"gpuwithcrypto": broken_page}, "2026-11-06T02:00:00Z")
    evaluate_claims(con, runs["R4"])
    yield {"con": con, "runs": runs, "base": base}
    con.close()


def ev(scenario, run: str, claim_id: str) -> dict:
    con = scenario["con"]
    cur = con.execute("SELECT * FROM claim_evaluations WHERE run_id = ? AND claim_id = ?",
                      [scenario["runs"][run], claim_id])
    row = dict(zip([d[0] for d in cur.description], cur.fetchone()))
    cur = con.execute("SELECT * FROM claim_inputs WHERE run_id = ? AND claim_id = ? ORDER BY input_name",
                      [scenario["runs"][run], claim_id])
    row["inputs"] = [dict(zip([d[0] for d in cur.description], r)) for r in cur.fetchall()]
    return row


def test_the_sources_list_follows_the_cheapest_pick(scenario):
    """issue 21 item 3: page 1's 出典 line of the cheapest 8x B200 ("Massed Computeの料金
    vm.massedcompute.com/pricing — Massed Compute (read 2026-10-29)" as published) names the
    provider picked now, with its read date: in R3 (2026-11-05 02:00) Lambda's 8x B200 at
    8 x $5.24 is the cheapest, so the line is Lambda's and the sentence drifts."""
    line = ev(scenario, "R3", "g-sources.massed-pricing")
    assert line["status"] == "drifted"
    assert line["current_text"] == "Lambdaの料金 lambda.ai/pricing — Lambda (read 2026-11-05)"
    assert "names Massed Compute, but g-cite-massed-b200x8 now cites or picks Lambda" in line["reason"]
    # the Thunder line: same provider, a new price read: it holds (the page shows the new date)
    thunder = ev(scenario, "R3", "g-sources.thunder-pricing")
    assert thunder["status"] == "holds"
    assert thunder["current_text"] == "Thunder Computeの料金 thundercompute.com/pricing — Thunder Compute (read 2026-11-05)"


def test_a_run_evaluated_late_uses_no_later_data(scenario):
    statuses = scenario["con"].execute("SELECT status, count(*) FROM claim_evaluations WHERE run_id = ? GROUP BY 1",
                                       [scenario["runs"]["R2"]]).fetchall()
    assert statuses == [("holds", len(load_rules().claims))]
    assert ev(scenario, "R2", "g-cite-massed-b200x8")["current_value"] == Decimal("43.46")
    assert ev(scenario, "R2", "a-inference-table.8b.16bit.from")["current_value"] == Decimal("0.19")


def test_a_cheaper_competitor_drifts_the_cheapest_claim_and_both_offers_are_recorded(scenario):
    row = ev(scenario, "R3", "g-cite-massed-b200x8")
    assert row["status"] == "drifted"
    assert (row["published_value"], row["current_value"], row["difference"]) == (Decimal("43.46"), Decimal("41.92"), Decimal("-1.54"))
    assert row["pick"] == "Lambda" and "Lambda" in row["reason"] and "Massed Compute" in row["reason"]
    inputs = {i["role"]: i for i in row["inputs"]}
    assert (inputs["cited"]["provider"], inputs["cited"]["price_per_hour"], inputs["cited"]["used"]) == \
        ("massed_compute", Decimal("43.46"), False)
    assert (inputs["cheapest"]["provider"], inputs["cheapest"]["price_per_hour"], inputs["cheapest"]["used"]) == \
        ("lambda_cloud", Decimal("41.92"), True)
    assert inputs["cheapest"]["source_url"] == "https://lambda.ai/pricing"
    # Massed Compute was not crawled in R3: its offer is the one R1 observed.
    assert inputs["cited"]["observed_at"] < inputs["cheapest"]["observed_at"]


def test_a_cited_price_change_drifts_the_citation_and_the_ratio_built_on_it(scenario):
    thunder = ev(scenario, "R3", "g-cite-thunder-a100")
    assert (thunder["status"], thunder["current_value"], thunder["difference"]) == ("drifted", Decimal("1.19"), Decimal("0.10"))
    ratio = ev(scenario, "R3", "g-ratio-full-vs-qlora")
    # 41.92 / 1.19 = 35.2: no longer "about 40×".
    assert ratio["status"] == "drifted" and round(ratio["current_value"], 2) == Decimal("35.23")
    assert "published 40×, now 35×" in ratio["reason"]
    names = {i["input_name"]: i for i in ratio["inputs"]}
    assert names["g-cite-thunder-a100: cited offer"]["price_per_hour"] == Decimal("1.19")
    assert names["g-cite-massed-b200x8: cheapest pick"]["provider"] == "lambda_cloud"


def test_a_failing_own_source_makes_its_claims_unverifiable_since_the_first_failure(scenario):
    for run in ("R3", "R4"):
        row = ev(scenario, run, "g-own-a100")
        assert row["status"] == "unverifiable" and row["current_value"] is None
        assert "gpuwithcrypto failing since 2026-11-05 02:00 UTC" in row["reason"] and "table header" in row["reason"]
        assert row["unverifiable_since"] == datetime(2026, 11, 5, 2, 0, tzinfo=timezone.utc)
        assert row["inputs"][0]["input_status"] == "failed"
    # Claims built on it say which input: the ratio at own prices, the run costs, the block facts.
    own_ratio = ev(scenario, "R3", "g-ratio-full-vs-qlora.own")
    assert own_ratio["status"] == "unverifiable" and own_ratio["reason"].startswith("needs g-cfg-prices.b200-x8:")
    assert ev(scenario, "R3", "g-blocks")["status"] == "unverifiable"
    # Arithmetic that needs no price still holds.
    assert ev(scenario, "R3", "g-fit-table.h200-x8.full-adamw")["status"] == "holds"
    assert ev(scenario, "R3", "g-mem-qlora")["status"] == "holds"


def test_a_named_gpu_without_listing_moves_the_from_price_to_the_next_named_gpu(scenario):
    row = ev(scenario, "R3", "a-inference-table.8b.16bit.from")
    assert (row["status"], row["current_value"], row["pick"]) == ("drifted", Decimal("0.41"), "RTX 4090")
    assert "the cheapest named GPU is now RTX 4090 (the page names RTX 3090)" in row["reason"]
    inputs = {i["input_name"]: i for i in row["inputs"]}
    assert inputs["own price RTX 3090"]["input_status"] == "missing"
    assert "gone since 2026-11-05 02:00 UTC" in row["note"]
    assert inputs["own price RTX 4090"]["used"] is True
    assert ev(scenario, "R3", "a-cheapest-4090")["status"] == "holds"


def test_a_price_move_of_the_pick_drifts_while_the_cheaper_fit_stays_a_note(scenario):
    row = ev(scenario, "R3", "a-inference-table.70b.16bit.from")
    assert (row["status"], row["current_value"], row["pick"]) == ("drifted", Decimal("5.99"), "B200")
    assert "cheaper fitting configuration: 1× B300" in row["note"]
    held = ev(scenario, "R2", "a-finetune-table.405b.qlora.from")
    assert held["status"] == "holds" and "1× B300" in held["note"]


def test_latest_claim_status_is_the_newest_snapshot_with_the_previous_status(scenario):
    rows = scenario["con"].execute(
        "SELECT claim_id, run_id, status, previous_status FROM latest_claim_status").fetchall()
    by_id = {r[0]: r for r in rows}
    assert len(by_id) == len(load_rules().claims)
    assert {r[1] for r in rows} == {scenario["runs"]["R4"]}
    # R4 re-read only GPUwithCrypto (still failing); the rest of its snapshot is R3's data.
    assert by_id["g-cite-massed-b200x8"][2:] == ("drifted", "drifted")
    assert by_id["g-own-a100"][2:] == ("unverifiable", "unverifiable")


def test_evaluating_again_adds_nothing(scenario):
    con = scenario["con"]
    before = con.execute("SELECT count(*), max(evaluated_at) FROM claim_evaluations").fetchone()
    for run_id in scenario["runs"].values():
        assert evaluate_claims(con, run_id)["evaluated"] == 0
    assert con.execute("SELECT count(*), max(evaluated_at) FROM claim_evaluations").fetchone() == before


# ---------------------------------------------------------------- rules are data
def _copy_rules(tmp_path) -> Path:
    root = tmp_path / "rules"
    shutil.copytree(RULES_DIR, root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def test_a_new_claim_of_an_existing_kind_needs_only_yaml(scenario, tmp_path):
    root = _copy_rules(tmp_path)
    (root / "gpuwithcrypto-llama-70b-finetuning" / "extra.yaml").write_text(yaml.safe_dump({"claims": [
        {"id": "g-extra.h100-x2", "says": {"ja": "H100を2台 $4.64/時間", "en": "2× H100 $4.64/h"},
         "published": 4.64, "unit": "usd", "compute": {"kind": "config_price", "gpu": "H100", "count": 2}},
        {"id": "g-extra.cheapest-h100x8", "says": {"ja": "8× H100 の最安値", "en": "cheapest 8× H100 on demand"},
         "published": 23.36, "unit": "usd",
         "compute": {"kind": "cheapest_offer", "gpu": "H100", "count": 8, "exclude_providers": ["gpuwithcrypto"],
                     "cites": {"provider": "massed_compute", "offer": "8x H100 NVL (94GB) on-demand #NVLink"}}},
    ]}, allow_unicode=True), encoding="utf-8")
    rules = load_rules(root)
    copy = tmp_path / "copy.duckdb"
    scenario["con"].execute("CHECKPOINT")
    shutil.copy(scenario["base"] / "w.duckdb", copy)
    con = db.connect(copy)
    try:
        result = evaluate_claims(con, scenario["runs"]["R1"], rules, trigger="rules")
        # New rules are a new version: every claim is evaluated again for R1, once.
        assert result["evaluated"] == len(rules.claims) == len(load_rules().claims) + 2
        assert evaluate_claims(con, scenario["runs"]["R1"], rules, trigger="rules")["evaluated"] == 0
        got = dict(con.execute("SELECT claim_id, status FROM claim_evaluations WHERE run_id = ? AND claim_id LIKE 'g-extra%'",
                               [scenario["runs"]["R1"]]).fetchall())
        # Massed Compute's real 2026-08-22 page: "H100 NVL (94GB) NVLink" x8 $23.36 is the cheapest
        # 8x H100 of R1 (Lambda 8x H100 SXM 8 x $3.99, Thunder h100_x8 $27.92); GPUwithCrypto H100 2 x $2.32.
        assert got == {"g-extra.h100-x2": "holds", "g-extra.cheapest-h100x8": "holds"}
    finally:
        con.close()


@pytest.mark.parametrize("claim,expected", [
    ({"compute": {"kind": "ratio", "of": {"claim": "g-no-such-claim"}, "to": 2}}, "unknown claim 'g-no-such-claim'"),
    ({"compute": {"kind": "config_price", "gpu": "MI300X", "count": 2}}, "GPU 'MI300X' is not in"),
    ({"compute": {"kind": "memory", "method": "qlora-8bit", "params_b": 70}}, "memory method 'qlora-8bit'"),
    ({"compute": {"kind": "averge", "of": [1, 2]}}, "compute"),
    ({"unit": "mark", "compute": {"kind": "total_vram", "gpu": "H100", "count": 2}}, "publishes true or false"),
])
def test_a_broken_rule_fails_loudly_naming_the_file_and_the_claim(tmp_path, claim, expected):
    root = _copy_rules(tmp_path)
    entry = {"id": "g-broken", "says": {"ja": "…", "en": "…"}, "published": 1, "unit": "count", **claim}
    (root / "gpuwithcrypto-llama-70b-finetuning" / "broken.yaml").write_text(
        yaml.safe_dump({"claims": [entry]}), encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_rules(root)
    assert expected in str(info.value)
    assert "g-broken" in str(info.value) and "broken.yaml" in str(info.value)


def test_a_rule_change_reevaluates_the_latest_snapshot_and_says_what_the_rules_changed(scenario, tmp_path):
    """rules/ edited (page 2's 16-bit inference margin 1.2 -> 1.3), then evaluated again: the
    latest snapshot (R4) is evaluated under the new version with trigger 'rules', and the changes
    are the claims the edit moved, not a price event. Expected values by hand: 32B x 2 bytes x 1.3
    = 83.2 -> 83 GB (was 76.8 -> 77), which one H100 or A100 (80 GB) no longer holds; 8B: 20.8 -> 21."""
    root = _copy_rules(tmp_path)
    page = root / "arrakis-gpu-memory" / "page.yaml"
    text = page.read_text(encoding="utf-8")
    assert "inference-16bit: {bytes_per_param: 2, margin: 1.2}" in text
    page.write_text(text.replace("inference-16bit: {bytes_per_param: 2, margin: 1.2}",
                                 "inference-16bit: {bytes_per_param: 2, margin: 1.3}"), encoding="utf-8")
    rules = load_rules(root)
    assert rules.version != load_rules().version
    copy = tmp_path / "copy.duckdb"
    scenario["con"].execute("CHECKPOINT")
    shutil.copy(scenario["base"] / "w.duckdb", copy)
    con = db.connect(copy)
    try:
        from pricewatch.claims.evaluate import reevaluate_latest
        result = reevaluate_latest(con, rules)
        assert result["run_id"] == scenario["runs"]["R4"] and result["evaluated"] == len(rules.claims)
        changed = {c["claim_id"]: c for c in result["changed"]}
        assert (changed["a-inference-table.32b.16bit.gb"]["old_text"], changed["a-inference-table.32b.16bit.gb"]["new_text"]) == ("77 GB", "83 GB")
        assert changed["a-inference-table.32b.16bit.gb"]["new_status"] == "drifted"
        assert changed["a-inference-table.32b.16bit.fits"]["new_status"] == "drifted"
        assert changed["a-inference-table.8b.16bit.gb"]["new_text"] == "21 GB"
        assert all(c["page"] == "arrakis-gpu-memory" for c in changed.values())
        assert not any(k.startswith("g-") for k in changed)      # page 1 has its own rules
        triggers = con.execute("SELECT DISTINCT trigger FROM claim_evaluations WHERE rules_version = ?",
                               [rules.version]).fetchall()
        assert triggers == [("rules",)]
        # latest_claim_status shows the new evaluation, with the old-rules one as previous.
        row = con.execute("SELECT status, current_text, previous_status, rules_version FROM latest_claim_status "
                          "WHERE claim_id = 'a-inference-table.32b.16bit.fits'").fetchone()
        assert row == ("drifted", "✗", "holds", rules.version)
        assert reevaluate_latest(con, rules) is None           # the same rules again: nothing
        # The regenerated page rewrites the number and marks the cell whose GPU no longer fits
        # ("77 GB：H100 または A100 1 枚" became 83 GB, which neither 80 GB GPU holds).
        from pricewatch.claims import pages
        from pricewatch.reports.claims_report import latest
        rows = {r["claim_id"]: r for r in latest(con)}
        text = pages.render_page(rules, rules.pages["arrakis-gpu-memory"], rows).text
        cell = next(c for c in text.split("|") if c.strip().startswith("83 GB："))
        assert "【要編集: a-inference-table.32b.16bit.fits:" in cell and "[H100](/ja/gpus/h100.html.md) または [A100]" in cell
    finally:
        con.close()

"""A cited offer that reads as a placeholder never re-picks its claim (issue 20, item 3): real
crawls of the shipped captures, the judged offers altered by the test before the real load
(quality gate included), evaluated run by run.

Runs (all replays):
  R1 shipped captures of massed_compute, thunder_compute, gpuwithcrypto, lambda_cloud
  R2 11-02  Massed Compute's cited 8x B200 prints "$0.00" where $43.46 stood
  R3 11-03  ... "N/A"        R4 11-04  ... "-"        R5 11-05  ... "Contact sales"
  R6 11-06  ... $43.46 again (a real price)
  R7 11-07  Lambda's 8x B200 at $5.24 per GPU ($41.92): the cheapest pick moves to Lambda
  R8 11-08  Lambda's 8x B200 prints "N/A": the claim's current pick reads a placeholder
  R9 11-09  Lambda's 8x B200 is gone from its page: the pick moves on
"""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from decimal import Decimal

import pytest

from flows.nightly import parse_as_of
from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.collect import judge, store
from tests.conftest import shipped
from warehouse import db, migrate

MASSED = ("massed_compute", "8x B200 SXM6 on-demand")
CLAIM = "g-cite-massed-b200x8"
PROVIDERS = ("massed_compute", "thunder_compute", "gpuwithcrypto", "lambda_cloud")


def _lambda_b200(offers):
    rows = offers[(offers["provider"] == "lambda_cloud") & (offers["gpu_model"] == "B200")
                  & (offers["gpu_count"] == 8) & (offers["billing"] == "on-demand")]
    assert len(rows) == 1, rows
    return rows.index[0]


def _placeholder(offers, index, text: str) -> None:
    offers.loc[index, ["price_per_hour", "price_per_gpu_hour"]] = None
    offers.loc[index, "is_priced"] = False
    offers.loc[index, ["price_text", "price_raw"]] = text


@pytest.fixture(scope="module")
def chain(tmp_path_factory, crawl):
    base = tmp_path_factory.mktemp("placeholder-claims")
    con = db.connect(base / "w.duckdb")
    migrate.migrate(con)
    con.execute("UPDATE mart_settings SET stale_after_hours = 2400")

    def load(providers, as_of, alter=None) -> str:
        outcomes = [judge.judge_crawl(crawl(p, shipped(p))) for p in providers]
        run, prs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc),
                                                    parse_as_of(as_of) if as_of else None, base)
        if alter:
            alter(offers)
        assert store.load_run(con, run, prs, offers, facts)
        evaluate_claims(con, run["run_id"])
        return run["run_id"]

    def massed(text):
        def alter(offers):
            hit = offers.index[(offers["provider"] == MASSED[0]) & (offers["offer_key"] == MASSED[1])]
            assert len(hit) == 1
            _placeholder(offers, hit[0], text)
        return alter

    def lambda_at(per_gpu):
        def alter(offers):
            i = _lambda_b200(offers)
            offers.loc[i, "price_per_gpu_hour"] = per_gpu
            offers.loc[i, "price_per_hour"] = round(per_gpu * 8, 6)
            offers.loc[i, ["price_text", "price_raw"]] = f"${per_gpu}"
        return alter

    def lambda_placeholder(offers):
        _placeholder(offers, _lambda_b200(offers), "N/A")

    def lambda_gone(offers):
        offers.drop(index=_lambda_b200(offers), inplace=True)

    runs = {"R1": load(PROVIDERS, None)}
    for name, day, text in (("R2", "02", "$0.00"), ("R3", "03", "N/A"), ("R4", "04", "-"), ("R5", "05", "Contact sales")):
        runs[name] = load(["massed_compute"], f"2026-11-{day}T02:00:00Z", massed(text))
    runs["R6"] = load(["massed_compute"], "2026-11-06T02:00:00Z")
    runs["R7"] = load(["lambda_cloud"], "2026-11-07T02:00:00Z", lambda_at(5.24))
    runs["R8"] = load(["lambda_cloud"], "2026-11-08T02:00:00Z", lambda_placeholder)
    runs["R9"] = load(["lambda_cloud"], "2026-11-09T02:00:00Z", lambda_gone)
    yield {"con": con, "runs": runs, "base": base}
    con.close()


def ev(chain, run: str, claim_id: str = CLAIM) -> dict:
    cur = chain["con"].execute("SELECT * FROM latest_claim_status WHERE run_id = ? AND claim_id = ?",
                               [chain["runs"][run], claim_id])
    cols = [d[0] for d in cur.description]
    row = cur.fetchone()
    assert row is not None, (run, claim_id)
    out = dict(zip(cols, row))
    cur = chain["con"].execute("SELECT * FROM claim_inputs WHERE run_id = ? AND claim_id = ? AND rules_version = ?",
                               [chain["runs"][run], claim_id, out["rules_version"]])
    out["inputs"] = {r[2]: dict(zip([d[0] for d in cur.description], r)) for r in cur.fetchall()}
    return out


def _at(chain, run: str, claim_id: str = CLAIM) -> dict:
    cur = chain["con"].execute("SELECT * FROM claim_evaluations WHERE run_id = ? AND claim_id = ? "
                               "ORDER BY evaluated_at DESC LIMIT 1", [chain["runs"][run], claim_id])
    return dict(zip([d[0] for d in cur.description], cur.fetchone()))


@pytest.mark.fault
def test_a_cited_offer_printing_a_placeholder_makes_the_cheapest_claim_unverifiable_not_re_picked(chain, fault):
    assert _at(chain, "R1")["status"] == "holds"
    since = datetime(2026, 11, 2, 2, 0, tzinfo=timezone.utc)
    seen = {}
    for run, text in (("R2", "$0.00"), ("R3", "N/A"), ("R4", "-"), ("R5", "Contact sales")):
        row = _at(chain, run)
        seen[text] = row["status"]
        # Not "cheapest is now Lambda at $53.52; the page cites Massed Compute": the pick stays put.
        assert row["status"] == "unverifiable" and row["pick"] is None and row["current_value"] is None, (run, row)
        assert f"cited offer massed_compute '8x B200 SXM6 on-demand' reads {text!r} since 2026-11-02 02:00 UTC" \
            in row["reason"], row["reason"]
        assert "unverifiable until a price reads again" in row["reason"]
        assert row["unverifiable_since"] == since
        assert "not re-picked" in row["note"] and "Lambda" in row["note"]
        per_gpu = _at(chain, run, "g-cite-massed-b200x8.per-gpu")
        assert per_gpu["status"] == "unverifiable" and text in per_gpu["reason"]
        # The ratio built on it says which claim it needs.
        ratio = _at(chain, run, "g-ratio-full-vs-qlora")
        assert ratio["status"] == "unverifiable" and ratio["reason"].startswith(f"needs {CLAIM}: cited offer")
    inputs = {r[0]: r[1:] for r in chain["con"].execute(
        "SELECT input_name, role, input_status, used, price_text FROM claim_inputs WHERE run_id = ? AND claim_id = ?",
        [chain["runs"]["R3"], CLAIM]).fetchall()}
    assert inputs == {"cited offer": ("cited", "unpriced", False, "N/A")}
    # A real price again: holds again.
    back = _at(chain, "R6")
    assert (back["status"], back["current_value"], back["pick"]) == ("holds", Decimal("43.46"), "Massed Compute")
    fault("a cited offer prints a placeholder ($0.00, N/A, -, Contact sales) where its price stood",
          expected="its claims unverifiable with the text printed, since the first such night; never re-picked; "
                   "holds again when the real price reads",
          observed=f"{seen}; reason {_at(chain, 'R3')['reason'][:90]!r}...; R6 {back['status']}")


def test_a_cited_offer_claim_names_the_placeholder(chain):
    """A cited_offer claim (Thunder's A100) is unverifiable on an unpriced reading as before, now
    with the placeholder wording (checked on a copy, Thunder's offer set to 'N/A' by hand)."""
    con = chain["con"]
    con.execute("CHECKPOINT")
    copy = chain["base"] / "copy-thunder.duckdb"
    shutil.copy(chain["base"] / "w.duckdb", copy)
    c2 = db.connect(copy)
    try:
        run = chain["runs"]["R1"]
        key = "1x a100xl 80GB on-demand/prototyping"
        c2.execute("UPDATE offers SET price_per_hour = NULL, price_per_gpu_hour = NULL, is_priced = false, "
                   "price_text = 'N/A' WHERE provider = 'thunder_compute' AND offer_key = ? AND run_id = ?", [key, run])
        c2.execute("DELETE FROM claim_inputs WHERE run_id = ?", [run])
        c2.execute("DELETE FROM claim_evaluations WHERE run_id = ?", [run])
        evaluate_claims(c2, run, trigger="rules")
        status, reason = c2.execute("SELECT status, reason FROM claim_evaluations WHERE run_id = ? AND claim_id = "
                                    "'g-cite-thunder-a100'", [run]).fetchone()
        assert status == "unverifiable"
        assert f"cited offer thunder_compute {key!r} reads 'N/A' since" in reason and "a placeholder" in reason
    finally:
        c2.close()


@pytest.mark.fault
def test_the_current_pick_printing_a_placeholder_keeps_the_claim_unverifiable_until_it_is_gone(chain, fault):
    moved = _at(chain, "R7")
    assert (moved["status"], moved["pick"], moved["current_value"]) == ("drifted", "Lambda", Decimal("41.92"))
    held = _at(chain, "R8")
    # Without the pick's history, Massed Compute's $43.46 would be "the cheapest" again: holds, silently.
    assert held["status"] == "unverifiable", held
    assert "the current pick lambda_cloud" in held["reason"] and "reads 'N/A' since 2026-11-08 02:00 UTC" in held["reason"]
    assert "not re-picked" in held["note"] and "Massed Compute" in held["note"]
    pick = chain["con"].execute("SELECT role, input_status, used, price_text FROM claim_inputs WHERE run_id = ? "
                                "AND claim_id = ? AND input_name = 'cheapest pick'",
                                [chain["runs"]["R8"], CLAIM]).fetchone()
    assert pick == ("cheapest", "unpriced", False, "N/A")
    gone = _at(chain, "R9")
    # Gone from Lambda's page (not a placeholder): the cheapest is Massed Compute again.
    assert (gone["status"], gone["pick"]) == ("holds", "Massed Compute")
    fault("a 'cheapest' claim's current pick (another provider than the cited one) prints 'N/A'",
          expected="unverifiable with the pick and its text, not re-picked to the cited provider; the pick moves "
                   "on only when the offer is gone",
          observed=f"R7 {moved['status']} (Lambda) -> R8 {held['status']} -> R9 (gone) {gone['status']} ({gone['pick']})")


@pytest.mark.fault
def test_a_held_reading_without_a_price_on_a_cited_offer_is_a_placeholder(chain, fault):
    """A cell the parser could not read is stored unpriced and held (its text kept): on a cited
    offer the claim is unverifiable with that text, not evaluated at the last trusted price."""
    con = chain["con"]
    con.execute("CHECKPOINT")
    copy = chain["base"] / "copy-held.duckdb"
    shutil.copy(chain["base"] / "w.duckdb", copy)
    c2 = db.connect(copy)
    try:
        run = chain["runs"]["R2"]
        for table in ("offers", "current_offers"):
            c2.execute(f"UPDATE {table} SET held_reason = 'row held: price cell ''$4 3.46'' is not a price', "
                       "price_text = '$4 3.46' WHERE provider = ? AND offer_key = ? AND run_id = ?", [*MASSED, run])
        c2.execute("DELETE FROM claim_inputs WHERE run_id = ?", [run])
        c2.execute("DELETE FROM claim_evaluations WHERE run_id = ?", [run])
        evaluate_claims(c2, run, trigger="rules")
        status, reason, pick = c2.execute("SELECT status, reason, pick FROM claim_evaluations WHERE run_id = ? "
                                          "AND claim_id = ?", [run, CLAIM]).fetchone()
        assert status == "unverifiable" and pick is None
        assert "reads '$4 3.46' since 2026-11-02 02:00 UTC (held by the quality gate)" in reason
    finally:
        c2.close()
    fault("a cited offer's price cell cannot be read (held unpriced, raw text kept)",
          expected="its claims unverifiable with the text, not the last trusted price, not re-picked",
          observed=f"{status}: {reason[:100]}")

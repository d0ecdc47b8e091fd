"""A page whose claims go unchecked because a source is stale is told once, and once more when
it is checked again (issue 21 item 2): real crawls of the shipped Arrakis and Lambda captures
loaded into a real DuckDB, evaluated and derived night by night.

  N1 2026-10-31 17:40  Arrakis read (page 2's every price fresh)
  N2 2026-11-03 02:00  only Lambda read: Arrakis's last good data is 56 h old, over the 48 h limit
  N3 2026-11-04 02:00  only Lambda again: Arrakis still stale (no second message)
  N4 2026-11-05 02:00  Arrakis read again: page 2 is checked again
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from flows.nightly import parse_as_of
from pricewatch.alerts.derive import derive_alerts
from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.collect import judge, store
from tests.conftest import CAPTURES, shipped
from warehouse import db, migrate

ARRAKIS = CAPTURES / "2026-10-31" / "arrakis.warc.gz"
PAGE2 = "arrakis-gpu-memory"


@pytest.fixture(scope="module")
def nights(tmp_path_factory, crawl):
    base = tmp_path_factory.mktemp("stale-pages")
    con = db.connect(base / "w.duckdb")
    migrate.migrate(con)
    con.execute("UPDATE mart_settings SET stale_after_hours = 48")

    def night(warcs: dict, as_of: str | None) -> str:
        outcomes = [judge.judge_crawl(crawl(p, w)) for p, w in warcs.items()]
        run, prs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc),
                                                    parse_as_of(as_of), base)
        assert store.load_run(con, run, prs, offers, facts)
        evaluate_claims(con, run["run_id"])
        derive_alerts(con, run["run_id"])
        return run["run_id"]

    lam = shipped("lambda_cloud")
    runs = {"N1": night({"arrakis": ARRAKIS}, "2026-10-31T17:40:00Z"),
            "N2": night({"lambda_cloud": lam}, "2026-11-03T02:00:00Z"),
            "N3": night({"lambda_cloud": lam}, "2026-11-04T02:00:00Z"),
            "N4": night({"arrakis": ARRAKIS}, "2026-11-05T02:00:00Z")}
    yield con, runs
    con.close()


def _events(con, run_id, kind=None):
    rows = con.execute("SELECT kind, subject, details FROM alerts WHERE run_id = ?" +
                       (" AND kind = ?" if kind else ""), [run_id] + ([kind] if kind else [])).fetchall()
    return [(k, s, json.loads(d)) for k, s, d in rows]


def _messages(con, run_id, kind):
    return con.execute("SELECT title, body_text FROM alert_messages WHERE run_id = ? AND kind = ?",
                       [run_id, kind]).fetchall()


def _stale_claims(con, run_id):
    return {cid for cid, reason in con.execute(
        "SELECT claim_id, reason FROM claim_evaluations WHERE run_id = ? AND page = ? AND status = 'unverifiable'",
        [run_id, PAGE2]).fetchall() if reason.startswith("arrakis is stale")}


def test_a_page_going_unchecked_for_staleness_is_one_message_grouped_by_source(nights):
    con, runs = nights
    stale = _stale_claims(con, runs["N2"])
    # Every price of page 2 is Arrakis's: its cheapest prices, the from-$X cells, the listing counts.
    assert {"a-cheapest-h100", "a-cheapest-4090", "a-inference-table.8b.16bit.from", "a-listing-count"} <= stale
    [(kind, subject, d)] = _events(con, runs["N2"], "page_unchecked")
    assert subject == PAGE2 and [s["provider"] for s in d["sources"]] == ["arrakis"]
    assert set(d["claims"]) == stale and d["sources"][0]["claims"] == len(stale)
    # 2026-10-31 17:40 to 2026-11-03 02:00 is 56 h 20 min.
    assert d["sources"][0]["age_hours"] == 56.3 and d["limit_hours"] == 48
    [(title, body)] = _messages(con, runs["N2"], "page_unchecked")
    assert title == f"How much GPU memory does a model need?: {len(stale)} claim(s) no longer checked (1 source(s) stale)"
    assert f"1 source(s) stale → {len(stale)} claim(s)" in body
    assert "arrakis): last good data 56 h old (from 2026-10-31 17:40 UTC)" in body
    # Those claims are not listed one by one in a page digest as status changes.
    for _, _, d in _events(con, runs["N2"], "claim_status"):
        assert not (set(c["claim_id"] for c in d["claims"]) & stale), d["claims"]


def test_still_stale_the_next_night_is_no_new_message(nights):
    con, runs = nights
    assert _stale_claims(con, runs["N3"]) == _stale_claims(con, runs["N2"])
    assert _events(con, runs["N3"], "page_unchecked") == [] and _events(con, runs["N3"], "page_checked_again") == []


def test_the_page_checked_again_is_one_message(nights):
    con, runs = nights
    assert _stale_claims(con, runs["N4"]) == set()
    stale = _stale_claims(con, runs["N3"])
    [(kind, subject, d)] = _events(con, runs["N4"], "page_checked_again")
    assert subject == PAGE2 and set(d["claims"]) == stale
    # The same capture read again: every one of them holds as published.
    assert d["counts"] == {"holds": len(stale), "drifted": 0, "unverifiable": 0}
    [(title, body)] = _messages(con, runs["N4"], "page_checked_again")
    assert title == "How much GPU memory does a model need?: checked again (1 source(s) fresh)"
    assert f"{len(stale)} hold as published, 0 changed" in body
    for _, _, d in _events(con, runs["N4"], "claim_status"):
        assert not (set(c["claim_id"] for c in d["claims"]) & stale), d["claims"]

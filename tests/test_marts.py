"""The marts (warehouse/migrations/040-046) on a small real history, and the rule that keeps the
warehouse readable without the README: every table, view and column carries a comment.

The history is three runs loaded through the real pipelines, loader and claims engine, with
prices written below so each expected figure can be read off them:

  run   observed (UTC)     massed_compute                     thunder_compute (1x H100 SXM)   shadeform
  day1  2026-10-27 02:00   1x H100 SXM $2.00 /GPU-h, ok       prototyping $3.00, production $4.00   $1.00 (aggregator)
        (and 8x B200 SXM6 $43.46 /h, the offer the published page cites at $43.46)
  day2  2026-10-28 02:00   failed (layout error)              prototyping $2.50, production $4.00   -
  day3  2026-10-30 02:00   1x H100 SXM $1.80, 8x B200 $43.46  not attempted                         -
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.collect import judge, store
from spiders.base import Parsed
from tests.inprocess import run_parsed
from warehouse import db, marts
from warehouse.sql_files import query_sql

DAY1 = datetime(2026, 10, 27, 2, 0, tzinfo=timezone.utc)
DAY2 = datetime(2026, 10, 28, 2, 0, tzinfo=timezone.utc)
DAY3 = datetime(2026, 10, 30, 2, 0, tzinfo=timezone.utc)
B200_KEY = "8x B200 SXM6 on-demand"


def _massed(h100: str) -> Parsed:
    page = Parsed()
    page.offer(gpu_label="H100 SXM", gpu_count=1, vram_gb=80, billing="on-demand", price_raw=h100, price_unit="gpu_hour")
    page.offer(gpu_label="B200 SXM6", gpu_count=8, billing="on-demand", price_raw="$43.46", price_unit="instance_hour")
    return page


def _thunder(prototyping: str, production: str) -> Parsed:
    page = Parsed()
    for tier, price in (("prototyping", prototyping), ("production", production)):
        page.offer(gpu_label="H100 SXM", gpu_count=1, vram_gb=80, billing="on-demand", tier=tier,
                   price_raw=price, price_unit="gpu_hour")
    return page


def _load(con, results) -> str:
    outcomes = [judge.judge_crawl(r) for r in results]
    run, provider_runs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), None, None,
                                                          known_providers=["massed_compute", "thunder_compute",
                                                                           "shadeform"])
    assert store.load_run(con, run, provider_runs, offers, facts)
    evaluate_claims(con, run["run_id"])
    return run["run_id"]


def build_history(path) -> tuple:
    """The three runs of the module docstring, loaded into a new warehouse at `path` through the
    real pipelines, loader and claims engine. Returns (open connection, run ids oldest first)."""
    con = db.connect(path)
    aggregator = Parsed()
    aggregator.offer(gpu_label="H100 SXM", gpu_count=1, vram_gb=80, billing="on-demand", price_raw="$1.00",
                     price_unit="gpu_hour")
    broken = Parsed()
    broken.error("no price table")
    runs = [
        _load(con, [run_parsed("massed_compute", _massed("$2.00"), captured_at=DAY1),
                    run_parsed("thunder_compute", _thunder("$3.00", "$4.00"), captured_at=DAY1),
                    run_parsed("shadeform", aggregator, captured_at=DAY1, is_aggregator=True)]),
        _load(con, [run_parsed("massed_compute", broken, captured_at=DAY2),
                    run_parsed("thunder_compute", _thunder("$2.50", "$4.00"), captured_at=DAY2)]),
        _load(con, [run_parsed("massed_compute", _massed("$1.80"), captured_at=DAY3)]),
    ]
    return con, runs


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    con, runs = build_history(tmp_path_factory.mktemp("marts") / "pw.duckdb")
    yield con, runs
    con.close()


def rows(con, sql, params=()):
    cur = con.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def test_cheapest_offer_daily_is_the_market_at_the_end_of_each_day(wh):
    con, _ = wh
    got = rows(con, """SELECT day, min_price_per_hour, median_price_per_hour, min_provider, offers, providers
                       FROM cheapest_offer_daily WHERE gpu_model = 'H100' AND gpu_count = 1 AND billing = 'on-demand'
                       ORDER BY day""")
    assert got == [
        # day1: 2.00 (massed), 3.00, 4.00 (thunder); shadeform's $1.00 is an aggregator's, left out
        {"day": date(2026, 10, 27), "min_price_per_hour": Decimal("2"), "median_price_per_hour": Decimal("3"),
         "min_provider": "massed_compute", "offers": 3, "providers": 2},
        # day2: massed failed, its $2.00 stays in force; thunder 2.50, 4.00
        {"day": date(2026, 10, 28), "min_price_per_hour": Decimal("2"), "median_price_per_hour": Decimal("2.5"),
         "min_provider": "massed_compute", "offers": 3, "providers": 2},
        # day3: massed 1.80; thunder not attempted, its day2 prices stay in force
        {"day": date(2026, 10, 30), "min_price_per_hour": Decimal("1.8"), "median_price_per_hour": Decimal("2.5"),
         "min_provider": "massed_compute", "offers": 3, "providers": 2},
    ]


def test_the_latest_day_agrees_with_cheapest_offer(wh):
    con, _ = wh
    latest = rows(con, """SELECT gpu_model, gpu_count, billing, min_provider AS provider, min_offer_key AS offer_key,
                                 min_price_per_hour AS price_per_hour, offers AS offers_compared
                          FROM cheapest_offer_daily WHERE day = (SELECT max(day) FROM cheapest_offer_daily)
                          ORDER BY ALL""")
    now = rows(con, """SELECT gpu_model, gpu_count, billing, provider, offer_key, price_per_hour, offers_compared
                       FROM cheapest_offer ORDER BY ALL""")
    assert latest == now and len(now) == 2   # H100 x1 and B200 x8


def test_provider_price_index_against_the_market_median(wh):
    con, _ = wh
    got = rows(con, """SELECT day, provider, provider_median_per_gpu_hour, market_median_per_gpu_hour, price_index,
                              market_providers
                       FROM provider_price_index WHERE gpu_model = 'H100' AND billing = 'on-demand' ORDER BY day, provider""")
    assert [(r["day"].isoformat(), r["provider"], float(r["provider_median_per_gpu_hour"]),
             float(r["market_median_per_gpu_hour"]), r["price_index"], r["market_providers"]) for r in got] == [
        # market median day1 = 3.00: massed 2.00 -> 66.7, thunder median(3, 4) = 3.50 -> 116.7
        ("2026-10-27", "massed_compute", 2.0, 3.0, 66.7, 2),
        ("2026-10-27", "thunder_compute", 3.5, 3.0, 116.7, 2),
        # day2: market median of 2.00, 2.50, 4.00 = 2.50; massed 80.0, thunder median(2.5, 4) = 3.25 -> 130.0
        ("2026-10-28", "massed_compute", 2.0, 2.5, 80.0, 2),
        ("2026-10-28", "thunder_compute", 3.25, 2.5, 130.0, 2),
        # day3: 1.80, 2.50, 4.00 -> 2.50; massed 72.0, thunder 130.0
        ("2026-10-30", "massed_compute", 1.8, 2.5, 72.0, 2),
        ("2026-10-30", "thunder_compute", 3.25, 2.5, 130.0, 2),
    ]


def test_claim_history_has_each_claims_status_per_run_in_snapshot_order(wh):
    con, runs = wh
    got = rows(con, """SELECT run_id, status, current_value, previous_status, previous_run_id, status_changed
                       FROM claim_history WHERE claim_id = 'g-cite-massed-b200x8' ORDER BY snapshot_at""")
    assert [r["run_id"] for r in got] == runs
    # day1: the page cites $43.46 and massed_compute prints $43.46
    assert got[0]["status"] == "holds" and got[0]["current_value"] == Decimal("43.46")
    assert got[0]["previous_status"] is None and got[0]["status_changed"] is False
    assert got[2]["status"] == "holds" and got[2]["current_value"] == Decimal("43.46")
    for before, after in zip(got, got[1:]):
        assert after["previous_run_id"] == before["run_id"] and after["previous_status"] == before["status"]
        assert after["status_changed"] == (after["status"] != before["status"])
    stored = dict(con.execute("SELECT run_id, status FROM claim_evaluations WHERE claim_id = 'g-cite-massed-b200x8'").fetchall())
    assert {r["run_id"]: r["status"] for r in got} == stored
    # one row per run and claim, whatever else was evaluated
    assert con.execute("SELECT count(*) - count(DISTINCT (run_id, claim_id)) FROM claim_history").fetchone()[0] == 0


def test_cited_offer_history_has_the_cited_price_and_the_published_one(wh):
    con, runs = wh
    got = rows(con, """SELECT run_id, provider, offer_key, input_status, price_per_hour, published_value, current_value,
                              warc_record_id
                       FROM cited_offer_history WHERE claim_id = 'g-cite-massed-b200x8' ORDER BY snapshot_at""")
    assert [r["run_id"] for r in got] == runs
    for r in (got[0], got[2]):
        assert (r["provider"], r["offer_key"], r["input_status"]) == ("massed_compute", B200_KEY, "ok")
        # the page publishes $43.46 (rules/gpuwithcrypto-llama-70b-finetuning/citations.yaml); massed prints $43.46
        assert r["price_per_hour"] == r["published_value"] == r["current_value"] == Decimal("43.46")
        assert r["warc_record_id"] == "<urn:uuid:in-process>"   # the evidence of tests/inprocess.py
    assert got[1]["input_status"] != "ok"   # massed_compute failed on day2: not a price


def test_source_freshness_as_of_a_snapshot_with_the_default_and_a_given_limit(wh):
    con, _ = wh
    sql = query_sql("source_freshness_at")

    def at(when, limit=None):
        return {r["provider"]: r for r in rows(con, sql, [when, limit])}

    day2 = at(DAY2)
    # massed_compute failed on day2: its good data is day1's, 24 h old, one failed attempt since
    assert (day2["massed_compute"]["last_ok_at"], day2["massed_compute"]["age_hours"],
            day2["massed_compute"]["last_attempt_status"], day2["massed_compute"]["failed_attempts_since_ok"],
            day2["massed_compute"]["is_stale"]) == (DAY1, 24.0, "failed", 1, False)
    day3 = at(DAY3)
    # thunder_compute's last good data (day2) is exactly 48 h old at day3: not beyond the default limit
    assert (day3["thunder_compute"]["age_hours"], day3["thunder_compute"]["stale_after_hours"],
            day3["thunder_compute"]["is_stale"]) == (48.0, 48.0, False)
    assert day3["massed_compute"]["age_hours"] == 0.0 and day3["massed_compute"]["failed_attempts_since_ok"] == 0
    # shadeform was last good on day1: 72 h
    assert (day3["shadeform"]["age_hours"], day3["shadeform"]["is_stale"]) == (72.0, True)
    assert at(DAY3, 47.0)["thunder_compute"]["is_stale"] is True
    assert at(datetime(2026, 10, 30, 3, 0, tzinfo=timezone.utc))["thunder_compute"]["is_stale"] is True   # 49 h
    # before any run: nothing is known
    assert at(datetime(2026, 10, 1, tzinfo=timezone.utc)) == {}


def test_the_stale_limit_is_a_setting_and_the_view_measures_now(wh):
    con, _ = wh
    view = {r["provider"]: r for r in rows(con, "SELECT * FROM source_freshness")}
    assert set(view) == {"massed_compute", "thunder_compute", "shadeform"}
    # today is later than 2026-10-30 + 48 h: every source of this history is stale now
    assert all(r["is_stale"] and r["stale_after_hours"] == 48.0 for r in view.values())
    con.execute("BEGIN")
    con.execute("UPDATE mart_settings SET stale_after_hours = 1e9")
    assert not any(r[0] for r in con.execute("SELECT is_stale FROM source_freshness").fetchall())
    assert con.execute(query_sql("source_freshness_at"), [DAY3, None]).df()["stale_after_hours"].eq(1e9).all()
    con.execute("ROLLBACK")


def test_every_table_view_and_column_has_a_comment(wh):
    """A later migration that recreates a view (CREATE OR REPLACE drops its comments) or adds a
    column must comment it: `COMMENT ON VIEW v IS '...'; COMMENT ON COLUMN v.c IS '...'`."""
    con, _ = wh
    missing = [f"{kind} {name}" for kind, name in con.execute("""
        SELECT 'table', table_name FROM duckdb_tables()
        WHERE NOT internal AND NOT temporary AND database_name = current_database() AND coalesce(comment, '') = ''
        UNION ALL
        SELECT 'view', view_name FROM duckdb_views()
        WHERE NOT internal AND NOT temporary AND database_name = current_database() AND coalesce(comment, '') = ''
        ORDER BY ALL""").fetchall()]
    missing += [f"column {t}.{c}" for t, c in con.execute("""
        SELECT table_name, column_name FROM duckdb_columns()
        WHERE NOT internal AND database_name = current_database() AND schema_name = 'main'
          AND coalesce(comment, '') = ''
          AND table_name NOT IN (SELECT table_name FROM duckdb_tables() WHERE temporary)
        ORDER BY ALL""").fetchall()]
    assert not missing, "no comment on: " + ", ".join(missing)
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0] >= 15


def test_the_daily_marts_store_each_complete_day_at_load_and_compute_the_rest(wh):
    """Each load stores the days before its own (warehouse/sql/refresh_daily_marts.sql, in the
    load's transaction); the latest day is computed on read from latest_offers."""
    con, _ = wh
    sql = "SELECT * FROM {} ORDER BY ALL"
    marts = ("cheapest_offer_daily", "provider_price_index")
    read = {v: con.execute(sql.format(v)).fetchall() for v in marts}
    computed = {v: con.execute(sql.format(f"{v}_after(DATE '0001-01-01')")).fetchall() for v in marts}
    assert read == computed
    # day3's load stored day1 and day2 (one run each); day3 (2026-10-30) is the latest day
    assert con.execute("SELECT day, runs FROM daily_marts_days ORDER BY day").fetchall() == [
        (date(2026, 10, 27), 1), (date(2026, 10, 28), 1)]
    assert con.execute("SELECT daily_marts_valid_through()").fetchone()[0] == date(2026, 10, 28)
    assert {d for (d,) in con.execute("SELECT DISTINCT day FROM cheapest_offer_daily_stored").fetchall()} == {
        date(2026, 10, 27), date(2026, 10, 28)}
    # the marts less their reading ages (measured at the day's end, which a late run moves)
    ageless = {"cheapest_offer_daily": "SELECT * EXCLUDE (min_reading_age_days) FROM cheapest_offer_daily ORDER BY ALL",
               "provider_price_index": "SELECT * EXCLUDE (reading_age_days) FROM provider_price_index ORDER BY ALL"}
    read_ageless = {v: con.execute(ageless[v]).fetchall() for v in marts}
    ages = ("SELECT reading_age_days, provider FROM provider_price_index "
            "ORDER BY day, provider, gpu_model, comparable_class, billing")
    read_ages = con.execute(ages).fetchall()
    age_days = [d for (d,) in con.execute("SELECT day FROM provider_price_index "
                                          "ORDER BY day, provider, gpu_model, comparable_class, billing").fetchall()]
    con.execute("BEGIN")
    try:
        con.execute(query_sql("refresh_daily_marts"))   # idempotent
        assert con.execute("SELECT daily_marts_valid_through()").fetchone()[0] == date(2026, 10, 28)
        assert {v: con.execute(sql.format(v)).fetchall() for v in marts} == read
        # a late (failed) run for 2026-10-28 invalidates that day and every later one: computed on read, same answers
        con.execute("""INSERT INTO runs (run_id, mode, observed_at, snapshot_date, started_at, finished_at, status)
                       VALUES ('late', 'replay', TIMESTAMPTZ '2026-10-28 05:00:00+00', DATE '2026-10-28', now(), now(), 'failed')""")
        assert con.execute("SELECT daily_marts_valid_through()").fetchone()[0] == date(2026, 10, 27)
        # the same prices; only the ages of 2026-10-28 move: they are measured at the day's end, now the late run's
        assert {v: con.execute(ageless[v]).fetchall() for v in marts} == read_ageless
        late_ages = con.execute(ages).fetchall()
        # 3 hours later (05:00 instead of 02:00): 0.125 days more, each age rounded to 2 places
        assert [b for _, b in late_ages] == [b for _, b in read_ages]
        assert all(abs(late - (early + (0.125 if day == date(2026, 10, 28) else 0))) <= 0.0051
                   for (late, _), (early, _), day in zip(late_ages, read_ages, age_days))
        con.execute(query_sql("refresh_daily_marts"))
        assert con.execute("SELECT runs FROM daily_marts_days WHERE day = DATE '2026-10-28'").fetchone()[0] == 2
        assert con.execute("SELECT daily_marts_valid_through()").fetchone()[0] == date(2026, 10, 28)
        assert {v: con.execute(ageless[v]).fetchall() for v in marts} == read_ageless
        assert con.execute(ages).fetchall() == late_ages
        # a late run for 2026-10-29, a day without runs until now: that day appears (prices in force then)
        con.execute("""INSERT INTO runs (run_id, mode, observed_at, snapshot_date, started_at, finished_at, status)
                       VALUES ('late2', 'replay', TIMESTAMPTZ '2026-10-29 02:00:00+00', DATE '2026-10-29', now(), now(), 'failed')""")
        got = con.execute(sql.format("cheapest_offer_daily")).fetchall()
        assert got != read["cheapest_offer_daily"]
        assert got == con.execute(sql.format("cheapest_offer_daily_after(DATE '0001-01-01')")).fetchall()
    finally:
        con.execute("ROLLBACK")


def _oracle_view(con, migration: str, view: str) -> None:
    """The view as a landed migration defined it (landed migrations are never edited), as the
    temp view oracle_<view>: what a newer definition must still answer."""
    sql = next(Path(db.MIGRATIONS_DIR).glob(f"{migration}_*.sql")).read_text()
    start = sql.index(f"CREATE OR REPLACE VIEW {view} AS")
    body = sql[start:sql.index("COMMENT ON", start)]
    con.execute(body.replace(f"CREATE OR REPLACE VIEW {view} AS", f"CREATE OR REPLACE TEMP VIEW oracle_{view} AS"))


def test_claim_history_stored_at_load_answers_as_the_view_of_migration_044(wh):
    con, runs = wh
    _oracle_view(con, "044", "claim_history")
    _oracle_view(con, "045", "cited_offer_history")
    order = {"claim_history": "claim_id, snapshot_at, run_id", "cited_offer_history": "claim_id, snapshot_at, input_name"}

    def same() -> None:
        for view, keys in order.items():
            sql = f"SELECT * FROM {{}} ORDER BY {keys}"
            assert con.execute(sql.format(view)).fetchall() == con.execute(sql.format(f"oracle_{view}")).fetchall(), view

    # day1's and day2's evaluations were stored by the next loads; day3's are computed on read
    assert [r for (r,) in con.execute("SELECT DISTINCT run_id FROM claim_history_stored ORDER BY 1").fetchall()] == sorted(runs[:2])
    assert con.execute("SELECT claim_history_valid()").fetchone()[0] is True
    same()
    refresh = query_sql("refresh_claim_history")
    con.execute("BEGIN")
    try:
        con.execute(refresh)
        con.execute(refresh)   # idempotent
        assert con.execute("SELECT count(*) FROM claim_history_stored").fetchone()[0] == con.execute(
            "SELECT count(DISTINCT (run_id, claim_id)) FROM claim_evaluations").fetchone()[0]
        # the nightly case: a later snapshot evaluated after the refresh is computed on read, linked to the stored rows
        con.execute("""INSERT INTO claim_evaluations SELECT * REPLACE ('day4' AS run_id, snapshot_at + INTERVAL 1 DAY AS snapshot_at,
                                                                       now() + INTERVAL 1 SECOND AS evaluated_at)
                       FROM claim_evaluations WHERE run_id = ?""", [runs[2]])
        assert con.execute("SELECT claim_history_valid()").fetchone()[0] is True
        same()
        # day1 evaluated again under other rules, another status for the cited B200 claim: a stored
        # snapshot changed, so every row is computed on read (day2's previous_status follows) until the refresh
        con.execute("""INSERT INTO claim_evaluations SELECT * REPLACE ('other rules' AS rules_version, 'rules' AS trigger,
                                                                       'drifted' AS status, now() + INTERVAL 2 SECOND AS evaluated_at)
                       FROM claim_evaluations WHERE run_id = ? AND claim_id = 'g-cite-massed-b200x8'""", [runs[0]])
        assert con.execute("SELECT claim_history_valid()").fetchone()[0] is False
        same()
        got = con.execute("""SELECT previous_status FROM claim_history WHERE claim_id = 'g-cite-massed-b200x8' AND run_id = ?""",
                          [runs[1]]).fetchone()
        assert got == ("drifted",)
        con.execute(refresh)   # every row again, and each claim's last one (day4's) for the next
        assert con.execute("SELECT claim_history_valid()").fetchone()[0] is True
        con.execute("""INSERT INTO claim_evaluations SELECT * REPLACE ('day5' AS run_id, snapshot_at + INTERVAL 1 DAY AS snapshot_at,
                                                                       now() + INTERVAL 3 SECOND AS evaluated_at)
                       FROM claim_evaluations WHERE run_id = 'day4'""")
        same()
        # an evaluation removed: the stored rows are no longer the answer
        con.execute("DELETE FROM claim_evaluations WHERE run_id = 'day4' AND claim_id = 'g-cite-massed-b200x8'")
        assert con.execute("SELECT claim_history_valid()").fetchone()[0] is False
        same()
    finally:
        con.execute("ROLLBACK")


def test_a_source_never_good_has_no_age_and_is_stale(wh):
    con, runs = wh
    con.execute("BEGIN")
    try:
        con.execute("""INSERT INTO provider_runs (run_id, provider, status, observed_at, item_count, priced_count,
                                                  unpriced_count, duplicates_dropped, http_error_count, retries, attempts,
                                                  duration_s, unknown_labels, warnings, monitors, error, trusted)
                       VALUES (?, 'never_good', 'failed', ?, 0, 0, 0, 0, 0, 0, 1, 1.0, [], [], [], 'HTTP 503', false)""",
                    [runs[1], DAY2])
        got = {r["provider"]: r for r in rows(con, query_sql("source_freshness_at"), [DAY3, None])}["never_good"]
        # no ok provider run at all: no last good data, so no age (not 0 h), and stale
        assert (got["last_ok_at"], got["age_hours"], got["is_stale"], got["failed_attempts_since_ok"]) == (None, None, True, 1)
        assert rows(con, "SELECT age_hours FROM source_freshness WHERE provider = 'never_good'") == [{"age_hours": None}]
    finally:
        con.execute("ROLLBACK")


def test_a_load_refreshes_the_stored_marts_only_when_a_day_is_complete(wh):
    """warehouse/marts.py refresh (called in each load's transaction) stores a day once, when a
    later day begins: at a 15-minute cadence, once a day."""
    con, runs = wh
    due = "SELECT daily_marts, claim_history FROM (" + query_sql("marts_due") + ")"
    # after day3's load: day1 and day2 stored; day3 (the latest day) and its evaluations are read live
    assert con.execute(due).fetchone() == (False, False)
    assert marts.refresh(con) == []
    con.execute("BEGIN")
    try:
        con.execute("""INSERT INTO runs (run_id, mode, observed_at, snapshot_date, started_at, finished_at, status)
                       VALUES ('day4', 'replay', TIMESTAMPTZ '2026-10-31 02:00:00+00', DATE '2026-10-31', now(), now(), 'failed')""")
        assert con.execute(due).fetchone() == (True, True)   # day3 is complete now
        assert marts.refresh(con) == ["refresh_daily_marts", "refresh_claim_history"]
        assert con.execute(due).fetchone() == (False, False)
        assert con.execute("SELECT max(day) FROM daily_marts_days").fetchone()[0] == date(2026, 10, 30)
        assert con.execute("SELECT count(DISTINCT run_id) FROM claim_history_stored").fetchone()[0] == 3
    finally:
        con.execute("ROLLBACK")

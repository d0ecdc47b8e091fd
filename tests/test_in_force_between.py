"""offers_in_force_between(from_day, to_day) (warehouse/macros/offers_in_force_between.sql, issue
24 item 2): the offers in force at the end of each snapshot day of a range, read off the price
spells by position (ASOF joins on the days' ends) instead of a range join of every spell with
every day. A hand-made warehouse: three snapshot days and a late archive, two spells."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from tests.conftest import migrated_warehouse
from warehouse import db


def at(day: int, hour: int, month: int = 1, year: int = 2026) -> datetime:
    return datetime(year, month, day, hour, tzinfo=timezone.utc)


# (run_id, snapshot_date, observed_at): r0 is a late archive: its snapshot day is the earliest,
# but its run was observed after day 1's end (an archive replayed late, as a backfill loads it).
RUNS = [("r0", date(2025, 12, 31), at(2, 9)), ("r1", date(2026, 1, 1), at(1, 10)),
        ("r2", date(2026, 1, 2), at(2, 10)), ("r3", date(2026, 1, 3), at(3, 10))]
# spell A: $2.00 from 01-01 10:00 to 01-02 10:00 (ends exactly at day 2's end: not in force then);
# spell B: $1.50 from 01-01 11:00, still open.
SPELLS = [("A", 1, 2.0, at(1, 10), at(2, 10), "r1"), ("B", 1, 1.5, at(1, 11), None, "r1")]


@pytest.fixture
def con(tmp_path):
    c = db.connect(migrated_warehouse(tmp_path / "w.duckdb"))
    for run_id, day, observed in RUNS:
        c.execute("""INSERT INTO runs (run_id, mode, observed_at, snapshot_date, started_at, finished_at, status, summary)
                     VALUES (?, 'replay', ?, ?, ?, ?, 'ok', 'test')""", [run_id, observed, day, observed, observed])
    for key, no, price, start, end, first in SPELLS:
        c.execute("""INSERT INTO price_spells BY NAME
                     SELECT 'p' AS provider, ? AS offer_key, ? AS spell_no, 'first seen' AS started_by,
                            'H100' AS gpu_model, 1 AS gpu_count, 'on-demand' AS billing, 'on-demand' AS tier,
                            ? AS price_per_hour, ? AS price_per_gpu_hour, ?::TIMESTAMPTZ AS valid_from,
                            ?::TIMESTAMPTZ AS valid_to, ?::TIMESTAMPTZ AS last_seen_at, 1 AS observations,
                            ? AS first_run_id, ? AS last_run_id, ? AS is_latest, 'USD' AS currency,
                            true AS self_service, false AS is_aggregator, 'SXM' AS form_factor""",
                  [key, no, price, price, start, end, start, first, first, end is None])
    yield c
    c.close()


def days(con, since: str, until: str) -> list[tuple]:
    return con.execute(f"""SELECT day, offer_key, price_per_hour::DOUBLE FROM offers_in_force_between(DATE '{since}', DATE '{until}')
                           ORDER BY day, offer_key""").fetchall()


def test_each_day_has_the_spells_in_force_at_its_end(con):
    # 2025-12-31 ends 01-02 09:00: A (until 10:00) and B; 01-01 ends 10:00: A only (B from 11:00);
    # 01-02 ends 10:00: B only (A ended then); 01-03 is the latest day: read from latest_offers
    # (current_offers, empty here), not from the spells.
    assert days(con, "2025-12-01", "2026-12-31") == [
        (date(2025, 12, 31), "A", 2.0), (date(2025, 12, 31), "B", 1.5),
        (date(2026, 1, 1), "A", 2.0), (date(2026, 1, 2), "B", 1.5)]
    assert days(con, "2026-01-02", "2026-01-02") == [(date(2026, 1, 2), "B", 1.5)]
    assert days(con, "2026-01-01", "2026-01-01") == [(date(2026, 1, 1), "A", 2.0)]
    assert days(con, "2026-01-03", "2026-01-05") == []


def test_the_view_is_the_macro_over_every_day_and_agrees_with_the_landed_definition(con):
    landed = con.execute("SELECT * FROM offers_in_force_after(DATE '0001-01-01') ORDER BY ALL").fetchall()
    assert con.execute("SELECT * FROM offers_in_force_daily ORDER BY ALL").fetchall() == landed
    assert len(landed) == 4


def test_the_daily_marts_rows_are_the_spells_in_force_at_each_days_end(con):
    """daily_marts_in_force (warehouse/macros/daily_marts_in_force.sql), which both stored marts
    aggregate: the same days and offers as above, read by hand, for every since_day (the late
    archive's day included), and the same as offers_in_force_after. (This warehouse's catalog is
    empty: the comparable class is the model.)"""
    def marts_rows(since: str) -> list[tuple]:
        return con.execute(f"""SELECT day, offer_key, price_per_hour::DOUBLE, comparable_class
                               FROM daily_marts_in_force(DATE '{since}') ORDER BY day, offer_key""").fetchall()
    assert marts_rows("2025-01-01") == [
        (date(2025, 12, 31), "A", 2.0, "H100"), (date(2025, 12, 31), "B", 1.5, "H100"),
        (date(2026, 1, 1), "A", 2.0, "H100"), (date(2026, 1, 2), "B", 1.5, "H100")]
    assert marts_rows("2025-12-31") == [(date(2026, 1, 1), "A", 2.0, "H100"), (date(2026, 1, 2), "B", 1.5, "H100")]
    assert marts_rows("2026-01-01") == [(date(2026, 1, 2), "B", 1.5, "H100")]
    assert marts_rows("2026-01-02") == []
    for since in ("2025-01-01", "2025-12-31", "2026-01-01", "2026-01-02"):
        assert [r[:3] for r in marts_rows(since)] == con.execute(f"""
            SELECT day, offer_key, price_per_hour::DOUBLE FROM offers_in_force_after(DATE '{since}')
            ORDER BY day, offer_key""").fetchall()

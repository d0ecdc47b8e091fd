"""The daily marts stored by the nightly load (issue 24 item 3): the first run of a new snapshot
day stores the day before it from the open price spells (warehouse/sql/store_latest_day.sql,
warehouse/macros/daily_marts_in_force.sql), so no load joins a day with every spell; the rows
stored are those the spells give for that day once later runs are in (the marts' results do not
change), and the refresh from the spells is left for late arrivals."""

from __future__ import annotations

from pricewatch.collect import store
from tests.conftest import migrated_warehouse
from tests.test_spells import synthetic_runs
from warehouse import db, marts
from warehouse.sql_files import query_sql

MARTS = ("cheapest_offer_daily", "provider_price_index")


def test_each_day_is_stored_by_the_first_run_of_the_next_and_is_the_day_the_spells_give(tmp_path, monkeypatch):
    con = db.connect(migrated_warehouse(tmp_path / "w.duckdb"))
    refreshed: list[list[str]] = []
    refresh = marts.refresh
    monkeypatch.setattr(marts, "refresh", lambda c, force=False: refreshed.append(refresh(c, force)) or refreshed[-1])
    # 3 providers x 12 offers every 6 hours (4 runs a day): absences, reappearances, held readings
    # (one reappears held: latest_offers shows its last trusted price, the spells have it closed),
    # unpriced text, failed / suspect / not-attempted runs (tests/test_spells.py synthetic_runs)
    runs = synthetic_runs(24, seed=11)
    for run, pr, offers, facts in runs:
        assert store.load_run(con, run, pr, offers, facts)
        # after every load every complete day is stored, and the refresh from the spells had nothing to do
        assert con.execute("SELECT list(day ORDER BY day) FROM daily_marts_days").fetchone()[0] == con.execute(
            "SELECT list(DISTINCT snapshot_date ORDER BY snapshot_date) FILTER (WHERE snapshot_date < "
            "(SELECT max(snapshot_date) FROM runs)) FROM runs").fetchone()[0]
        assert con.execute(query_sql("marts_due")).fetchone()[0] is False
    assert "refresh_daily_marts" not in {name for names in refreshed for name in names}
    days = con.execute("SELECT count(*) FROM daily_marts_days").fetchone()[0]
    # T0 2026-01-01 02:00 + 23 x 6 h = 2026-01-06 20:00: six days, the latest (01-06) computed on read
    assert days == 5
    for mart in MARTS:
        stored = con.execute(f"SELECT * FROM {mart}_stored ORDER BY ALL").fetchall()
        spells = con.execute(f"SELECT * FROM {mart}_after(DATE '0001-01-01') "
                             f"WHERE day < (SELECT max(snapshot_date) FROM runs) ORDER BY ALL").fetchall()
        assert stored == spells and len(stored) > 0, mart
    # the refresh from the spells, forced, stores the same rows
    con.execute("BEGIN")
    before = {m: con.execute(f"SELECT * FROM {m}_stored ORDER BY ALL").fetchall() for m in MARTS}
    con.execute("DELETE FROM daily_marts_days")
    marts.refresh(con, force=True)
    for m in MARTS:
        assert con.execute(f"SELECT * FROM {m}_stored ORDER BY ALL").fetchall() == before[m], m
    con.execute("ROLLBACK")
    con.close()


def test_a_late_run_leaves_the_stored_days_to_the_refresh(tmp_path):
    con = db.connect(migrated_warehouse(tmp_path / "w.duckdb"))
    runs = synthetic_runs(16, seed=5)
    late = runs.pop(5)          # a run of 2026-01-02, loaded after the others
    for run, pr, offers, facts in runs:
        assert store.load_run(con, run, pr, offers, facts)
    assert store.load_run(con, *late)
    for mart in MARTS:
        assert (con.execute(f"SELECT * FROM {mart} ORDER BY ALL").fetchall()
                == con.execute(f"SELECT * FROM {mart}_after(DATE '0001-01-01') ORDER BY ALL").fetchall()), mart
        assert (con.execute(f"SELECT * FROM {mart}_stored ORDER BY ALL").fetchall()
                == con.execute(f"SELECT * FROM {mart}_after(DATE '0001-01-01') WHERE day < "
                               "(SELECT max(snapshot_date) FROM runs) ORDER BY ALL").fetchall()), mart
    con.close()

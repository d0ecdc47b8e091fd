"""The nightly spell steps that find the latest spells by row id (warehouse/spells.py advance):
the extends moved to the end of price_spells (spells_advance_2_relocate.sql, taken when the
latest spells lie in many row groups) give the same rows as the in-place UPDATEs, and both the
same as a rebuild from the raw observations (the oracle of tests/test_spells.py: migration 015's
window views)."""

from __future__ import annotations

import shutil

import pytest

from pricewatch.collect import store
from tests.test_spells import same_history, synthetic_runs
from warehouse import db, migrate, spells


@pytest.fixture(scope="module")
def runs():
    return synthetic_runs(5, seed=7)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """An empty migrated warehouse, migrated once and copied for each load."""
    path = tmp_path_factory.mktemp("relocate") / "empty.duckdb"
    con = db.connect(path)
    migrate.migrate(con)
    con.close()
    return path


def load_all(empty, path, runs, relocate_above):
    shutil.copyfile(empty, path)
    old = spells.RELOCATE_ROW_GROUPS
    spells.RELOCATE_ROW_GROUPS = relocate_above
    try:
        con = db.connect(path)
        migrate.migrate(con)
        assert store.load_run(con, *runs[0])
        # three unscreened runs in one transaction: the later ones move rows the earlier ones wrote
        assert len(store.load_runs(con, runs[1:4])) == 3
        for run, pr, offers, facts in runs[4:]:
            assert store.load_run(con, run, pr, offers, facts)
    finally:
        spells.RELOCATE_ROW_GROUPS = old
    return con


def test_extends_moved_to_the_end_give_the_same_spells_as_updated_in_place(tmp_path, runs, migrated):
    moved = load_all(migrated, tmp_path / "moved.duckdb", runs, -1)      # every load moves its extends
    in_place = load_all(migrated, tmp_path / "in_place.duckdb", runs, 10**9)
    rows = "SELECT * FROM price_spells ORDER BY ALL"
    assert moved.execute(rows).fetchall() == in_place.execute(rows).fetchall()
    same_history(moved)
    moved.execute("BEGIN")
    spells.rebuild(moved)   # from the raw observations: the same rows
    assert moved.execute(rows).fetchall() == in_place.execute(rows).fetchall()
    moved.execute("ROLLBACK")
    # moved rows are new rows: the latest spells of the last load sit at the end of the table
    last = runs[-1][0]["run_id"]
    tail = moved.execute("SELECT min(rowid) FROM price_spells WHERE last_run_id = ? AND observations > 1", [last]).fetchone()[0]
    assert tail >= moved.execute("SELECT count(*) FROM price_spells").fetchone()[0] - len(runs[-1][2])
    in_place.close()
    moved.close()

"""latest_claim_status (migration 029) gives the rows of its first definition (migration 008,
which ranked every evaluation ever stored), read here as the oracle: on a history of claims
evaluated run after run, re-evaluated at the same snapshot after a rules change, and evaluated
late for an older snapshot (which must not count as newer)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from warehouse import db, migrate

T0 = datetime(2026, 11, 1, 2, tzinfo=timezone.utc)


def evaluation(con, run_id, claim_id, status, value, snapshot_at, evaluated_at, rules_version="v1", trigger="run"):
    con.execute("""INSERT INTO claim_evaluations (run_id, claim_id, claim_group, page, kind, status, current_value,
                       tolerance, snapshot_at, evaluated_at, published_text, rules_version, trigger)
                   VALUES (?, ?, 'g', 'page', 'cited_offer', ?, ?, 'cents', ?, ?, '$1.00', ?, ?)""",
                [run_id, claim_id, status, value, snapshot_at, evaluated_at, rules_version, trigger])


def test_latest_claim_status_matches_its_first_definition(tmp_path):
    con = db.connect(tmp_path / "w.duckdb")
    migrate.migrate(con)
    oracle = (Path(db.MIGRATIONS_DIR) / "008_view_latest_claim_status.sql").read_text()
    con.execute(oracle.replace("CREATE OR REPLACE VIEW latest_claim_status", "CREATE TEMP VIEW oracle_latest_claim_status"))
    columns = [r[0] for r in con.execute("DESCRIBE latest_claim_status").fetchall()]

    def same():
        rows = con.execute("SELECT * FROM latest_claim_status ORDER BY claim_id").fetchall()
        assert rows == con.execute(f"SELECT {', '.join(columns)} FROM oracle_latest_claim_status ORDER BY claim_id").fetchall()
        return rows

    for day in range(3):                                   # three nightly runs, claims a, b (c only on day 0)
        at = T0 + timedelta(days=day)
        for claim, status in (("a", "holds"), ("b", "drifted" if day == 2 else "holds")):
            evaluation(con, f"run-{day}", claim, status, 1 + day, at, at + timedelta(minutes=5))
        if day == 0:
            evaluation(con, "run-0", "c", "holds", 1, at, at + timedelta(minutes=5))
    rows = same()
    # b drifted on day 2; its previous evaluation is day 1's; c was not evaluated at the latest snapshot.
    by_claim = {r[columns.index("claim_id")]: r for r in rows}
    assert sorted(by_claim) == ["a", "b"]
    b = by_claim["b"]
    assert (b[columns.index("status")], b[columns.index("previous_status")], b[columns.index("previous_run_id")]) == \
        ("drifted", "holds", "run-1")
    # The rules changed: day 2 evaluated again; the previous evaluation is now the first one of day 2.
    at2 = T0 + timedelta(days=2)
    evaluation(con, "run-2", "a", "drifted", 9, at2, at2 + timedelta(hours=1), rules_version="v2", trigger="rules")
    a = {r[columns.index("claim_id")]: r for r in same()}["a"]
    assert (a[columns.index("status")], a[columns.index("previous_status")], a[columns.index("previous_run_id")]) == \
        ("drifted", "holds", "run-2")
    # An older snapshot evaluated late changes nothing.
    evaluation(con, "run-old", "a", "unverifiable", None, T0 - timedelta(days=5), at2 + timedelta(hours=2))
    same()
    assert {r[columns.index("claim_id")]: r for r in same()}["a"][columns.index("previous_run_id")] == "run-2"
    con.close()

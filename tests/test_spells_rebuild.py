"""The set-based rebuild of the spells (warehouse/sql/spells_rebuild.sql, run by a backfill and by
a run loaded out of snapshot order) on the histories its shortcuts must get right: long runs of
held readings around absences (an absence is an ok_seq gap not filled by held readings), and
readings whose observed_at is not in their runs' order (a spell's valid_from / last_seen_at are
then the min / max over its readings, not its first / last). The oracle is migration 015's
window views, recomputing the history from every observation (tests/test_spells.py).

Only offer_price_history is compared for the provider whose times are out of order: its
price_changes orders the spells by valid_from, the stored spells by their number, and out of
order times make the two differ (the stored spells did so before this rebuild too)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from pricewatch.collect import store
from tests.test_spells import (
    CHANGE_COLUMNS,
    HISTORY_COLUMNS,
    install_oracle,
    synthetic_runs,
)
from warehouse import db, migrate


def hard_history():
    """synthetic_runs' history with a third of the readings held (so runs of held readings meet
    absences) and provider b's readings observed up to 9 h either side of their run (runs are
    6 h apart: some come before the reading of the run before)."""
    rng = random.Random(17)
    runs = synthetic_runs(20, seed=23)
    for _, _, offers, _ in runs:
        if not len(offers):
            continue
        held = [rng.random() < 0.33 for _ in range(len(offers))]
        offers["held_reason"] = [("moved +30.0% from the last trusted price" if h else r)
                                 for h, r in zip(held, offers["held_reason"])]
        b = offers["provider"] == "b"
        offers.loc[b, "observed_at"] = [t + timedelta(minutes=rng.randint(-540, 540))
                                        for t in offers.loc[b, "observed_at"]]
    return runs


@pytest.mark.slow   # 1.3 s, of which migrate() 0.8 s: over the fast suite's per-test budget
def test_a_backfill_rebuilds_held_streaks_and_unordered_times_as_the_window_views(tmp_path):
    con = db.connect(tmp_path / "w.duckdb")
    migrate.migrate(con)
    runs = hard_history()
    assert store.load_runs(con, runs) == [r[0]["run_id"] for r in runs]   # one bulk load: spells.rebuild
    install_oracle(con)
    for view, cols, where in (("offer_price_history", HISTORY_COLUMNS, "true"),
                              ("price_changes", CHANGE_COLUMNS, "provider <> 'b'")):
        stored = con.execute(f"SELECT {cols} FROM {view} WHERE {where} ORDER BY ALL").fetchall()
        assert stored == con.execute(f"SELECT {cols} FROM oracle_{view} WHERE {where} ORDER BY ALL").fetchall(), view
    n_changes = len(stored)
    # The history has what the shortcuts must handle: a held reading right before an absence
    # and right after one, and an offer whose readings are observed out of their runs' order.
    shape = con.execute("""
        WITH ok AS (SELECT provider, run_id, row_number() OVER (PARTITION BY provider ORDER BY observed_at, run_id) AS seq
                    FROM provider_runs WHERE status = 'ok'),
        r AS (SELECT o.provider, o.offer_key, ok.seq, o.held_reason IS NOT NULL AS held, o.observed_at,
                     lead(ok.seq) OVER w AS next_seq, lag(ok.seq) OVER w AS prev_seq,
                     lag(o.observed_at) OVER w AS prev_at
              FROM offers o JOIN ok USING (provider, run_id)
              WINDOW w AS (PARTITION BY o.provider, o.offer_key ORDER BY ok.seq))
        SELECT count(*) FILTER (held AND next_seq > seq + 1), count(*) FILTER (held AND prev_seq < seq - 1),
               count(*) FILTER (prev_at > observed_at)
        FROM r""").fetchone()
    assert min(shape) > 0, shape
    assert n_changes > 20
    # the min / max over a spell differ from its first / last reading's times somewhere
    assert con.execute("""
        SELECT count(*) FROM price_spells s JOIN offers f ON f.run_id = s.first_run_id
            AND f.provider = s.provider AND f.offer_key = s.offer_key
        WHERE f.observed_at <> s.valid_from""").fetchone()[0] > 0
    con.close()

"""State kept at load, as a dbt snapshot keeps it, so reads cost O(changes) or O(latest), never
O(history): the price spells (price_spells, migration 025: one row per offer per price spell,
read by offer_price_history and price_changes) and the latest offers (current_offers: each
provider's latest successful run; trusted_offers: each offer's latest trusted reading; migration
027, read by latest_offers, held_offers, cheapest_offer and the quality gate). Advanced by each
run inside the load's transaction.

A run advances the spells of each provider whose successful provider run is the newest of
theirs: each trusted reading extends its offer's current spell, or ends it and opens a new one
(another price: 'changed'; back after an absence: 'reappeared'; new offer: 'first seen'), and an
offer missing from the run ends its spell. Set-based, a few statements per run whatever the
history: the run's offers, staged by the load in a temp table (spell_incoming_offers), are
joined once with the providers' latest spells into moves, applied by two UPDATEs (each finds its
spells by the row ids the moves read, and runs only when it has rows to touch) and one INSERT
(warehouse/sql/spells_advance_*.sql, spells_step_6_open.sql), and the latest offers replaced
(current_step_*.sql). A provider whose run arrives out of snapshot order
(an older archive replayed late) has its spells rebuilt from the raw observations
(warehouse/sql/spells_rebuild.sql), which stay in offers as evidence.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from warehouse.sql_files import query_sql, run_statements, statements

COUNTS = ("extends", "row_groups", "closes", "reattributed", "opens")   # spells_advance_counts.sql
# Extends whose spells lie in more row groups than this are moved to the end of price_spells
# (spells_advance_2_relocate.sql) instead of updated in place: the checkpoint after an UPDATE
# rewrites the updated columns of each row group touched (measured at 10M offers, 3 row groups of
# latest spells: one load 181-187 ms with its checkpoint, 92 ms once they sit together).
RELOCATE_ROW_GROUPS = 2
CURRENT_STEPS = ("current_step_1_trusted", "current_step_2_replace")


def rebuild(con: duckdb.DuckDBPyConnection, providers: list[str] | None = None) -> None:
    """Recomputes the spells and latest offers of these providers (None: all) from the stored
    observations, inside the caller's transaction."""
    if providers is None:
        con.execute("DELETE FROM price_spells")
        providers_all = [p for (p,) in con.execute("SELECT DISTINCT provider FROM provider_runs").fetchall()]
    else:
        con.execute("DELETE FROM price_spells WHERE list_contains(?::VARCHAR[], provider)", [providers])
        providers_all = providers
    con.execute("INSERT INTO price_spells " + query_sql("spells_rebuild"), [providers])
    run_statements(con, "current_rebuild", [providers_all])


def advance(con: duckdb.DuckDBPyConnection, run_id: str, provider_runs: pd.DataFrame,
            newest: bool = False) -> dict[str, list[str]]:
    """Brings the spells and latest offers up to date with a run just inserted (same
    transaction). The run's offers as loaded are in the temp table spell_incoming_offers (the
    load staged them there: warehouse/sql/load_offers.sql); provider_runs: its provider runs.
    newest: the run is later than every successful provider run stored before it (the load
    checked it), so no provider of it is out of order. Returns the providers advanced and those
    rebuilt."""
    if not len(provider_runs):
        return {"advanced": [], "rebuilt": []}
    ok = provider_runs.loc[provider_runs["trusted"].astype(bool), ["provider", "observed_at"]]
    if not len(ok):
        return {"advanced": [], "rebuilt": []}
    late = [] if newest else [p for (p,) in con.execute(query_sql("spells_out_of_order"), [run_id]).fetchall()]
    if late:
        rebuild(con, sorted(late))
        ok = ok[~ok["provider"].isin(late)]
    if not len(ok):
        return {"advanced": [], "rebuilt": sorted(late)}
    providers = ok["provider"].tolist()
    con.execute("CREATE OR REPLACE TEMP TABLE spell_run_providers AS "
                "SELECT unnest(?::VARCHAR[]) AS provider, unnest(?::TIMESTAMPTZ[]) AS observed_at",
                [providers, [_python_time(t) for t in ok["observed_at"]]])
    run_statements(con, "spells_advance_1_moves")
    n = dict(zip(COUNTS, con.execute(query_sql("spells_advance_counts")).fetchall()[0]))
    relocate = n["row_groups"] > RELOCATE_ROW_GROUPS
    if relocate:
        for sql in statements("spells_advance_2_relocate"):   # each touches every extend's spell
            _check("spells_advance_2_relocate", con.execute(sql).fetchall()[0][0], n["extends"])
    elif n["extends"]:
        _check("spells_advance_2_extend", con.execute(query_sql("spells_advance_2_extend")).fetchall()[0][0], n["extends"])
    closes = n["closes"] + (0 if relocate else n["reattributed"])
    if closes:
        _check("spells_advance_3_close", con.execute(query_sql("spells_advance_3_close"), [relocate]).fetchall()[0][0], closes)
    if n["opens"]:
        run_statements(con, "spells_step_6_open")
    for step in CURRENT_STEPS:
        run_statements(con, step)
    return {"advanced": sorted(providers), "rebuilt": sorted(late)}


def _check(step: str, touched: int, expected: int) -> None:
    """A step that finds its spells by the row ids the moves read must touch each of them."""
    if touched != expected:
        raise RuntimeError(f"{step} touched {touched} spells, not the {expected} of the run's moves "
                           "(a spell's row id changed inside the load's transaction)")


def _python_time(value):
    """A pandas Timestamp (or anything datetime-like) as the datetime DuckDB binds."""
    return value.to_pydatetime() if isinstance(value, pd.Timestamp) else value

"""State kept at load, as a dbt snapshot keeps it, so reads cost O(changes) or O(latest), never
O(history): the price spells (price_spells, migration 025: one row per offer per price spell,
read by offer_price_history and price_changes) and the latest offers (current_offers: each
provider's latest successful run; trusted_offers: each offer's latest trusted reading; migration
027, read by latest_offers, held_offers, cheapest_offer and the quality gate). Advanced by each
run inside the load's transaction.

A run advances the spells of each provider whose successful provider run is the newest of
theirs: each trusted reading extends its offer's current spell, or ends it and opens a new one
(another price: 'changed'; back after an absence: 'reappeared'; new offer: 'first seen'), and an
offer missing from the run ends its spell. A provider whose run arrives out of snapshot order
(an older archive replayed late) has its spells rebuilt from the raw observations
(warehouse/sql/spells_rebuild.sql), which stay in offers as evidence.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from warehouse.sql_files import query_sql, run_statements

STEPS = ("spells_step_1_readings", "spells_step_2_close_absent", "spells_step_3_moves",
         "spells_step_4_extend", "spells_step_5_close_changed", "spells_step_6_open")
CURRENT_STEPS = ("current_step_1_replace", "current_step_2_trusted")


def rebuild(con: duckdb.DuckDBPyConnection, providers: list[str] | None = None) -> None:
    """Recomputes the spells of these providers (None: all) from the stored observations,
    inside the caller's transaction."""
    if providers is None:
        con.execute("DELETE FROM price_spells")
        providers_all = [p for (p,) in con.execute("SELECT DISTINCT provider FROM provider_runs").fetchall()]
    else:
        con.execute("DELETE FROM price_spells WHERE list_contains(?::VARCHAR[], provider)", [providers])
        providers_all = providers
    con.execute("INSERT INTO price_spells " + query_sql("spells_rebuild"), [providers])
    run_statements(con, "current_rebuild", [providers_all])


def advance(con: duckdb.DuckDBPyConnection, run_id: str, provider_runs: pd.DataFrame,
            offers: pd.DataFrame, offer_columns: list[str]) -> dict[str, list[str]]:
    """Brings the spells and latest offers up to date with a run just inserted (same
    transaction). offers: the run's offers as loaded (offer_columns, with held_reason);
    provider_runs: its provider runs. Returns the providers advanced and those rebuilt."""
    if not len(provider_runs):
        return {"advanced": [], "rebuilt": []}
    ok = provider_runs.loc[provider_runs["status"] == "ok", ["provider", "observed_at"]]
    if not len(ok):
        return {"advanced": [], "rebuilt": []}
    late = [p for (p,) in con.execute(query_sql("spells_out_of_order"), [run_id]).fetchall()]
    if late:
        rebuild(con, sorted(late))
        ok = ok[~ok["provider"].isin(late)]
    if len(ok):
        incoming = offers[offer_columns] if len(offers) else pd.DataFrame(columns=offer_columns)
        con.register("spell_incoming_offers", incoming)
        con.register("spell_run_providers", ok)
        try:
            for step in STEPS:
                con.execute(query_sql(step))
            for step in CURRENT_STEPS:
                run_statements(con, step)
        finally:
            for name in ("spell_incoming_offers", "spell_run_providers"):
                try:
                    con.unregister(name)
                except duckdb.Error:
                    pass
    return {"advanced": sorted(ok["provider"]), "rebuilt": sorted(late)}

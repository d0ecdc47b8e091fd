"""Price spells kept at load, as a dbt snapshot keeps them: one row per offer per price spell in
price_spells (migration 025), advanced by each run inside the load's transaction, so the history
views read O(changes) rows instead of recomputing every observation.

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

from warehouse.sql_files import query_sql

STEPS = ("spells_step_1_readings", "spells_step_2_close_absent", "spells_step_3_moves",
         "spells_step_4_extend", "spells_step_5_close_changed", "spells_step_6_open")
READING_COLUMNS = ["run_id", "provider", "offer_key", "gpu_model", "gpu_count", "billing", "tier",
                   "price_per_hour", "price_per_gpu_hour", "price_text", "observed_at", "held_reason"]


def rebuild(con: duckdb.DuckDBPyConnection, providers: list[str] | None = None) -> None:
    """Recomputes the spells of these providers (None: all) from the stored observations,
    inside the caller's transaction."""
    if providers is None:
        con.execute("DELETE FROM price_spells")
    else:
        con.execute("DELETE FROM price_spells WHERE list_contains(?::VARCHAR[], provider)", [providers])
    con.execute("INSERT INTO price_spells " + query_sql("spells_rebuild"), [providers])


def advance(con: duckdb.DuckDBPyConnection, run_id: str, provider_runs: pd.DataFrame,
            offers: pd.DataFrame) -> dict[str, list[str]]:
    """Brings the spells up to date with a run just inserted (same transaction). offers: the
    run's offers as loaded (with held_reason); provider_runs: its provider runs. Returns the
    providers advanced and those rebuilt."""
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
        incoming = offers[READING_COLUMNS] if len(offers) else pd.DataFrame(columns=READING_COLUMNS)
        con.register("spell_incoming", incoming)
        con.register("spell_run_providers", ok)
        try:
            for step in STEPS:
                con.execute(query_sql(step))
        finally:
            for name in ("spell_incoming", "spell_run_providers"):
                try:
                    con.unregister(name)
                except duckdb.Error:
                    pass
    return {"advanced": sorted(ok["provider"]), "rebuilt": sorted(late)}

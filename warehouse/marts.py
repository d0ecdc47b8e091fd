"""The stored marts (issue 11), brought up to date in the load's transaction: the daily marts'
complete days (cheapest_offer_daily, provider_price_index: migration 051,
warehouse/sql/refresh_daily_marts.sql) and the rows of claim_history (migration 052,
refresh_claim_history.sql). Each view reads its stored rows while they are still the answer and
computes the rest on read, so a refresh is never needed for a right answer, only for a fast one:
it runs when there is a day to store (warehouse/sql/marts_due.sql), about once a day."""

from __future__ import annotations

import duckdb

from warehouse.sql_files import query_sql, run_statements

REFRESHES = ("refresh_daily_marts", "refresh_claim_history")   # in the order of marts_due.sql's columns


def refresh(con: duckdb.DuckDBPyConnection, force: bool = False) -> list[str]:
    """Runs each refresh that has something to store (all of them when forced), inside the
    caller's transaction; returns the names run."""
    due = (True,) * len(REFRESHES) if force else con.execute(query_sql("marts_due")).fetchone()
    ran = [name for name, is_due in zip(REFRESHES, due) if is_due]
    for name in ran:
        run_statements(con, name)
    return ran

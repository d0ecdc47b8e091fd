"""The stored marts (issue 11), brought up to date in the load's transaction: the daily marts'
complete days (cheapest_offer_daily, provider_price_index: migration 051,
warehouse/sql/refresh_daily_marts.sql) and the rows of claim_history (migration 052,
refresh_claim_history.sql). Each view reads its stored rows while they are still the answer and
computes the rest on read, so a refresh is never needed for a right answer, only for a fast one:
it runs when there is a day to store (warehouse/sql/marts_due.sql), about once a day.

A day is normally stored before it is due: when the first run of a new snapshot day is loaded,
the load first stores the latest day, read off the open price spells (store_latest_day,
warehouse/sql/store_latest_day.sql; no later run is stored yet, so they are the spells in force at
its end), at a cost that does not grow with the history; the
refresh then finds nothing due. A refresh from the price spells (a join of each day to store with
every spell) is left for what that cannot cover: a late backfill, a day stored no longer valid."""

from __future__ import annotations

import duckdb

from warehouse.sql_files import query_sql, run_statements, statements

REFRESHES = ("refresh_daily_marts", "refresh_claim_history")   # in the order of marts_due.sql's columns
STORE_LATEST_DAY = "store_latest_day"


def refresh(con: duckdb.DuckDBPyConnection, force: bool = False) -> list[str]:
    """Runs each refresh that has something to store (all of them when forced), inside the
    caller's transaction; returns the names run."""
    due = (True,) * len(REFRESHES) if force else con.execute(query_sql("marts_due")).fetchone()
    ran = [name for name, is_due in zip(REFRESHES, due) if is_due]
    for name in ran:
        run_statements(con, name)
    return ran


def store_latest_day(con: duckdb.DuckDBPyConnection, new_day) -> None:
    """Before a run of snapshot day `new_day` (later than every stored one) is stored, inside the
    caller's transaction: the latest day's rows of the daily marts, stored while the open spells
    are still that day's (nothing when an earlier day is not validly stored: the refresh does it)."""
    first, *rest = statements(STORE_LATEST_DAY)
    con.execute(first, [new_day])
    for sql in rest:
        con.execute(sql)

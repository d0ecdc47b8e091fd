"""The report's reads: the named queries of pricewatch/reports/sql/ (Python passes parameters,
it does not build SQL), each returned as a list of dicts."""

from __future__ import annotations

from datetime import timezone

import duckdb

from warehouse.sql_files import query_sql


def sql(name: str) -> str:
    """The text of pricewatch/reports/sql/<name>.sql (the one loader: warehouse/sql_files.py)."""
    return query_sql(name, package="pricewatch.reports")


def rows(con: duckdb.DuckDBPyConnection, name: str, params: list | None = None) -> list[dict]:
    cur = con.execute(sql(name), params or [])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def one(con: duckdb.DuckDBPyConnection, name: str, params: list | None = None) -> dict | None:
    found = rows(con, name, params)
    return found[0] if found else None


def readings_seen(evaluations: list[dict]) -> tuple | None:
    """(first, last) time a reading the claims used was observed, UTC: a snapshot "as of 02:00"
    may use readings its sources printed at 12:00 and 17:40 (each dated by its own capture)."""
    seen = [i["observed_at"] for r in evaluations for i in r.get("inputs", []) if i["used"] and i["observed_at"]]
    return (min(seen).astimezone(timezone.utc), max(seen).astimezone(timezone.utc)) if seen else None

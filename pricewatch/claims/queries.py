"""The claims engine's named queries (pricewatch/claims/sql/*.sql, package resources): Python
passes parameters, it does not build SQL."""

from __future__ import annotations

from warehouse.sql_files import query_sql


def query(name: str) -> str:
    """The text of pricewatch/claims/sql/<name>.sql (the one loader: warehouse/sql_files.py)."""
    return query_sql(name, package="pricewatch.claims")

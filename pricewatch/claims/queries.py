"""The claims engine's named queries (pricewatch/claims/sql/*.sql, package resources): Python
passes parameters, it does not build SQL."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def query(name: str) -> str:
    return (files("pricewatch.claims") / "sql" / f"{name}.sql").read_text(encoding="utf-8")

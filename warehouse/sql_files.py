"""The named queries of warehouse/sql/ (Python passes parameters; it does not build SQL). Read
once per process: a load runs several of them."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def query_sql(name: str) -> str:
    """The text of warehouse/sql/<name>.sql."""
    return resources.files("warehouse").joinpath("sql", f"{name}.sql").read_text("utf-8")

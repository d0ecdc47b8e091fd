"""The named queries of warehouse/sql/ (Python passes parameters; it does not build SQL). Read
once per process: a load runs several of them."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def query_sql(name: str) -> str:
    """The text of warehouse/sql/<name>.sql."""
    return resources.files("warehouse").joinpath("sql", f"{name}.sql").read_text("utf-8")


@lru_cache(maxsize=None)
def statements(name: str) -> tuple[str, ...]:
    """The statements of a multi-statement file of warehouse/sql/ (each ends with ';' at the end
    of a line), to run one by one with the same parameters."""
    out = []
    for chunk in query_sql(name).split(";\n"):
        code = [line for line in chunk.splitlines() if line.strip() and not line.strip().startswith("--")]
        if code:
            out.append(chunk.strip().rstrip(";"))
    return tuple(out)


def run_statements(con, name: str, params: list | None = None) -> None:
    """Runs each statement of warehouse/sql/<name>.sql in order (inside the caller's transaction)."""
    for sql in statements(name):
        con.execute(sql, params) if params is not None else con.execute(sql)

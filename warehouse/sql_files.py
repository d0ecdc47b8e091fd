"""The one loader of .sql files: the named queries of a package's sql/ folder (warehouse/sql/ by
default, or any package's, e.g. pricewatch.claims), the files of a folder (the numbered
migrations, the repeatable views and macros) and the statements of a file. Python passes
parameters; it does not build SQL. A named query is read once per process: a load runs several."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path


@lru_cache(maxsize=None)
def query_sql(name: str, package: str = "warehouse", folder: str = "sql") -> str:
    """The text of <package>/<folder>/<name>.sql, read as a package resource: query_sql("load_offers")
    is warehouse/sql/load_offers.sql, query_sql("snapshot_offers", package="pricewatch.claims") is
    pricewatch/claims/sql/snapshot_offers.sql."""
    return resources.files(package).joinpath(folder, f"{name}.sql").read_text("utf-8")


def read_sql(path: str | Path) -> str:
    """The text of one .sql file by path (not cached: a migration or a repeatable is read as it is
    on disk at each migrate)."""
    return Path(path).read_text("utf-8")


def sql_files(folder: str | Path) -> dict[str, str]:
    """Every <stem>.sql of a folder, by stem, in name order: {"001_core_tables": "...", ...}."""
    return {f.stem: read_sql(f) for f in sorted(Path(folder).glob("*.sql"))}


def split_statements(text: str) -> tuple[str, ...]:
    """The statements of a multi-statement text (each ends with ';' at the end of a line), without
    the chunks that are only comments."""
    out = []
    for chunk in text.split(";\n"):
        code = [line for line in chunk.splitlines() if line.strip() and not line.strip().startswith("--")]
        if code:
            out.append(chunk.strip().rstrip(";"))
    return tuple(out)


@lru_cache(maxsize=None)
def statements(name: str, package: str = "warehouse", folder: str = "sql") -> tuple[str, ...]:
    """The statements of a multi-statement named query (see query_sql), to run one by one with the
    same parameters."""
    return split_statements(query_sql(name, package, folder))


def run_statements(con, name: str, params: list | None = None, package: str = "warehouse") -> None:
    """Runs each statement of the named query <package>/sql/<name>.sql in order (inside the
    caller's transaction)."""
    for sql in statements(name, package):
        con.execute(sql, params) if params is not None else con.execute(sql)

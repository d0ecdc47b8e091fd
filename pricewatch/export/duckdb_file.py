"""The warehouse as a DuckDB file that analysts' own tools open: `pricewatch export --format
duckdb` and `pricewatch explore`'s snapshot.

The warehouse is written by DuckDB 2.x, whose storage format (version 69) DuckDB 1.5.x, the CLI
on PyPI (`pip install duckdb-cli`) and the extensions cannot read ("can only read 64-68"). This
copy is written with DuckDB's own ``COPY FROM DATABASE`` into a file ATTACHed with
``STORAGE_VERSION 'v1.5.0'``: every table, view, macro and comment, readable by DuckDB 1.5 and
newer (tests/test_export.py opens it with the 1.5 CLI). It is read from a read-only connection
(so no load is half-way through it), written beside its final place and moved there in one step.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

#: The oldest DuckDB release that opens the copy (its storage version).
STORAGE_VERSION = "v1.5.0"


def write_copy(db_file: str | os.PathLike, target: str | os.PathLike, wait_s: float = 0.0) -> Path:
    """A copy of the warehouse at ``target`` in DuckDB 1.5's storage format (replaced whole if it
    exists). Waits up to wait_s for a load that holds the file (warehouse/db.py connect)."""
    from warehouse.db import connect
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=".duckdb", dir=target.parent)
    os.close(fd)
    os.remove(tmp)          # ATTACH creates it; an empty file is not a database
    try:
        con = connect(db_file, read_only=True, wait_s=wait_s)
        try:
            source = con.execute("SELECT current_database()").fetchone()[0]
            con.execute(f"ATTACH '{_quoted(tmp)}' AS pricewatch_copy (READ_WRITE, STORAGE_VERSION '{STORAGE_VERSION}')")
            con.execute(f'COPY FROM DATABASE "{source}" TO pricewatch_copy')
            con.execute("DETACH pricewatch_copy")
        finally:
            con.close()
        for leftover in (str(target) + ".wal",):
            if os.path.exists(leftover):
                os.remove(leftover)
        os.replace(tmp, target)
    except BaseException:
        for leftover in (tmp, tmp + ".wal"):
            if os.path.exists(leftover):
                os.remove(leftover)
        raise
    return target


def _quoted(path: str) -> str:
    return path.replace("'", "''")

"""`pricewatch export`, registered on the main CLI by pricewatch/cli/main.py (the work is in
pricewatch/export/datasets.py)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Optional

import typer

from pricewatch.cli.tools import (
    DbOption,
    check_db_readable,
    check_out_dir,
    db_path,
    fail,
    open_read_only,
    query_wait_s,
)
from pricewatch.export.duckdb_file import STORAGE_VERSION
from pricewatch.export.duckdb_file import write_copy as write_duckdb_copy
from pricewatch.export.datasets import (
    EXPORT_VERSION,
    FORMATS,
    MANIFEST,
    ExportError,
    export,
)


DUCKDB_FILE = "pricewatch.duckdb"


def register(app) -> None:
    """`pricewatch export` on the CLI app."""

    @app.command("export")
    def export_cmd(
        fmt: str = typer.Option("parquet", "--format", help="parquet (Hive-partitioned by snapshot date) | csv | "
                                "duckdb (the whole warehouse, views and comments, for DuckDB 1.5+ and its CLI)"),
        out: Path = typer.Option(..., "--out", help="folder to write (created; a previous export there is replaced)"),
        since: Optional[str] = typer.Option(None, "--since", help="only snapshots on or after this date (YYYY-MM-DD)"),
        db: Optional[Path] = DbOption,
    ):
        """Export offers, price history and claims with a manifest of the column set (version, types,
        descriptions): Parquet readable by pandas, polars and DuckDB 1.x, or CSV."""
        if fmt not in FORMATS + ("duckdb",):
            fail(f"--format must be {', '.join(FORMATS)} or duckdb (got {fmt!r})")
        try:
            since_day = date.fromisoformat(since) if since else None
        except ValueError:
            fail(f"--since {since!r} is not a date (YYYY-MM-DD)")
        check_out_dir(out)
        if fmt == "duckdb":
            if since:
                fail("--since applies to parquet and csv; --format duckdb copies the whole warehouse")
            target = write_duckdb_copy(check_db_readable(db), Path(out) / DUCKDB_FILE, wait_s=query_wait_s())
            typer.echo(f"warehouse copy for DuckDB {STORAGE_VERSION.lstrip('v')}+ (every table, view, macro and "
                       f"comment): {target}")
            typer.echo(f"open it: duckdb -readonly {target}")
            return
        con = open_read_only(db, wait_s=query_wait_s())
        try:
            manifest = export(con, out, fmt, since_day, db_label=db_path(db))
        except ExportError as exc:
            fail(str(exc))
        finally:
            con.close()
        for name, d in manifest["datasets"].items():
            typer.echo(f"{name}: {d['rows']} rows, {len(d['files'])} file(s) -> {out / d['path']}")
        typer.echo(f"manifest (column set v{EXPORT_VERSION}): {out / MANIFEST}")

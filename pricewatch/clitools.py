"""What every `pricewatch` subcommand shares: the database path and a read-only connection."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

err = Console(stderr=True)

DbOption = typer.Option(None, "--db", help="DuckDB file (default: $PRICEWATCH_DB or data/pricewatch.duckdb)")


def db_path(path: Optional[Path]) -> str:
    from warehouse.db import default_db_path
    return str(path) if path else default_db_path()


def open_read_only(path: Optional[Path]):
    """The warehouse opened read-only, or exit 1 with the reason (no file yet, or a writer
    holds DuckDB's lock)."""
    from warehouse.db import connect
    try:
        return connect(db_path(path), read_only=True)
    except Exception as exc:
        err.print(f"[red]cannot open {db_path(path)} read-only: {exc}[/red]")
        raise typer.Exit(1)

"""`pricewatch explore`: the warehouse in harlequin, a terminal SQL IDE (the `explore` extra),
read-only, without blocking the nightly load.

DuckDB lets one process write a file, and no reader may hold it while it writes. An IDE session
stays open for hours, so it does not open the warehouse itself: it opens a snapshot, a copy of
the file taken while a read-only connection holds it (so no load is half-way through it), moved
into place atomically (`<warehouse folder>/explore/<name>.snapshot.duckdb`), in DuckDB 1.5's
storage format so the DuckDB CLI from PyPI opens it too. The nightly load waits only for the copy. `--live` opens the warehouse file itself
(read-only; a load then waits until the session ends, or spools its run after
PRICEWATCH_LOAD_WAIT_S). `--print-command` prints the command instead of running it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from pricewatch.export.duckdb_file import write_copy

HARLEQUIN = "harlequin"
INSTALL_HINT = "pip install -e '.[explore]'"


def find_harlequin() -> str | None:
    """harlequin installed beside this interpreter (the venv's bin/, even when that folder is not
    on PATH), else on PATH; None when neither has it."""
    import sys
    beside = Path(sys.executable).parent / HARLEQUIN
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(HARLEQUIN)


def harlequin_argv(db_file: str | os.PathLike, executable: str = HARLEQUIN) -> list[str]:
    """The harlequin command for a DuckDB file, read-only (its DuckDB adapter's -r)."""
    return [executable, "--adapter", "duckdb", "--read-only", str(db_file)]


def snapshot_path(db_file: str | os.PathLike) -> Path:
    db_file = Path(db_file)
    return db_file.parent / "explore" / f"{db_file.stem}.snapshot.duckdb"


def take_snapshot(db_file: str | os.PathLike, wait_s: float) -> Path:
    """A consistent copy of the warehouse for a long read-only session, in DuckDB 1.5's storage
    format so the DuckDB CLI from PyPI opens it too (pricewatch/export/duckdb_file.py): read while
    a read-only connection holds the file (no writer can be in the middle of a load), written
    beside its final place and moved there in one step. Returns its path."""
    return write_copy(db_file, snapshot_path(db_file), wait_s=wait_s)


def register(app) -> None:
    """`pricewatch explore` on the CLI app (pricewatch/cli/main.py)."""
    import typer

    from pricewatch.cli.tools import (
        DbOption,
        check_db_readable,
        error_text,
        fail,
        query_wait_s,
        say,
    )

    @app.command("explore")
    def explore_cmd(
        db: Optional[Path] = DbOption,
        live: bool = typer.Option(False, "--live", help="open the warehouse file itself (blocks the nightly "
                                                        "load while the session is open)"),
        print_command: bool = typer.Option(False, "--print-command", help="print the harlequin command, "
                                                                           "do not run it"),
    ):
        """Explore the warehouse read-only in harlequin (a terminal SQL IDE; pip install -e '.\\[explore]').

        Opens a fresh snapshot of the warehouse, so the nightly load is never kept waiting; run it
        again for newer data. Every view and column is documented in the warehouse itself
        (SELECT * FROM duckdb_columns(), or harlequin's catalog)."""
        target = Path(check_db_readable(db))
        exe = find_harlequin()
        if not live:
            try:
                target = take_snapshot(target, wait_s=query_wait_s())
            except Exception as exc:  # noqa: BLE001 - one line: locked, unreadable, disk full
                fail(f"cannot take a snapshot of {target}: {error_text(exc)}", 1)
        argv = harlequin_argv(target, exe or HARLEQUIN)
        command = shlex.join(argv)
        if print_command:
            typer.echo(command)
            return
        if exe is None:
            fail(f"harlequin is not installed ({INSTALL_HINT}); then run: {command}", 1)
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        say(f"{'the live warehouse (a load waits while this is open)' if live else 'a snapshot taken ' + stamp}: "
            f"{target}", style="cyan", prefix="exploring ")
        raise typer.Exit(subprocess.call(argv))

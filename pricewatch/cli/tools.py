"""What every `pricewatch` subcommand shares: the database path, read-only connections, one-line
errors, and the guard that turns any failure into one line on stderr (never a traceback)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn, Optional

import typer
from rich.console import Console

# typer vendors its own click: these are the classes its parser raises.
from typer._click.exceptions import ClickException, NoArgsIsHelpError
from typer.core import TyperGroup

from pricewatch.record.text import console as esc

err = Console(stderr=True, highlight=False)

DbOption = typer.Option(None, "--db", help="DuckDB file (default: $PRICEWATCH_DB or data/pricewatch.duckdb)")

ERROR_LEN = 600  # one readable line, even when it quotes a page or a path

_debug = {"on": False}


def debug_enabled() -> bool:
    return _debug["on"] or os.environ.get("PRICEWATCH_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def set_debug(on: bool) -> None:
    _debug["on"] = _debug["on"] or on


def say(message: str, style: str = "red", prefix: str = "error: ") -> None:
    """One line on stderr: the message made inert (markup escaped, control characters dropped,
    newlines folded, cut to a readable length) and never wrapped by the console width."""
    err.print(f"[{style}]{esc(prefix + str(message), ERROR_LEN)}[/{style}]", soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Refuse with one line on stderr. Code 2: bad input (nothing was done); 1: it failed."""
    say(message)
    raise typer.Exit(code)


class GuardedGroup(TyperGroup):
    """The `pricewatch` command group: every failure of every command ends in ONE line on
    stderr and a non-zero exit. Usage errors (a bad option value, a missing argument) exit 2,
    anything a command raises exits 1. `pricewatch --debug ...` or PRICEWATCH_DEBUG=1 lets the
    exception through with its traceback, for developers."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        _debug["on"] = False
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                              standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except NoArgsIsHelpError as exc:
            text = exc.ctx.get_help() if exc.ctx else ""  # typer's rich help prints itself
            if text:
                typer.echo(text)
            code = 2
        except ClickException as exc:
            where = getattr(exc, "ctx", None)
            hint = f" (see: {where.command_path} --help)" if where is not None else ""
            say(exc.format_message() + hint)
            code = exc.exit_code
        except typer.Abort:
            say("aborted")
            code = 1
        except Exception as exc:  # noqa: BLE001 - the boundary: one line, not a traceback
            if debug_enabled():
                raise
            say(error_text(exc) + " (--debug or PRICEWATCH_DEBUG=1 shows the traceback)")
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code


def error_text(exc: BaseException) -> str:
    """What an exception says, in one line: its message, or its type when it has none; a
    bare KeyError/AttributeError-like message gets its type so it still says something."""
    # DuckDB appends the statement with a caret under the fault: unreadable folded into one line.
    msg = " ".join(str(exc).split("\nLINE ")[0].split())
    if not msg:
        return type(exc).__name__
    if isinstance(exc, (KeyError, IndexError, AttributeError, TypeError, AssertionError, NameError)):
        return f"{type(exc).__name__}: {msg}"
    return msg


def db_path(path: Optional[Path]) -> str:
    from warehouse.db import default_db_path
    return str(path) if path else default_db_path()


def check_db_readable(path: Optional[Path]) -> str:
    """The database path, or refuse (exit 2) when it cannot be a pricewatch database file."""
    p = Path(db_path(path))
    if p.is_dir():
        fail(f"--db {p} is a folder, not a DuckDB file")
    if not p.exists():
        fail(f"no pricewatch database at {p} (run `pricewatch run` first, or pass --db)", 1)
    return str(p)


def check_db_writable(path: Optional[Path]) -> str:
    """For `pricewatch run`, before any crawl: the database path must be a DuckDB file or a
    place one can be created (a folder, or a path under a file, is refused)."""
    p = Path(db_path(path))
    if p.is_dir():
        fail(f"--db {p} is a folder, not a DuckDB file")
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        fail(f"--db {p}: {parent} is a file, not a folder")
    if p.exists():
        import duckdb
        try:
            duckdb.connect(str(p), read_only=True).close()
        except duckdb.Error as exc:
            # A writer holding the lock (an analyst's session) is not an error: the load waits.
            if "lock" not in str(exc).lower():
                fail(f"--db {p} is not a usable DuckDB database: {error_text(exc)}")
    return str(p)


DEFAULT_QUERY_WAIT_S = 60.0


def query_wait_s() -> float:
    """How long `pricewatch query` / `export` wait while the nightly load holds the write lock
    (PRICEWATCH_QUERY_WAIT_S, default 60 s; a load holds it for about a second)."""
    raw = os.environ.get("PRICEWATCH_QUERY_WAIT_S", "").strip()
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_QUERY_WAIT_S
    except ValueError:
        fail(f"PRICEWATCH_QUERY_WAIT_S={raw!r} is not a number of seconds")


def say_waiting(locked, wait_s: float) -> None:
    """One line on stderr while a command waits for DuckDB's lock: who holds it, how long we wait."""
    say(f"{locked.describe()}; waiting up to {wait_s:g} s for it", style="yellow", prefix="")


def open_read_only(path: Optional[Path], wait_s: float | None = None):
    """The warehouse opened read-only, or exit with the reason (no file yet, a folder, or a
    writer holds DuckDB's lock for longer than wait_s seconds; default PRICEWATCH_QUERY_WAIT_S:
    every reading command waits for a load as `query` does, saying who holds the lock)."""
    from warehouse.db import connect
    target = check_db_readable(path)
    try:
        return connect(target, read_only=True, wait_s=query_wait_s() if wait_s is None else wait_s,
                       on_wait=say_waiting)
    except Exception as exc:
        fail(f"cannot open {target} read-only: {error_text(exc)}", 1)


def cell(value, max_len: int = 300, max_lines: int = 60) -> str:
    """A table cell of text from outside (a page, the warehouse): each line made inert with
    pricewatch.record.text.console, line breaks kept, at most max_lines lines."""
    if value is None:
        return ""
    lines = str(value).splitlines() or [""]
    out = [esc(line, max_len) for line in lines[:max_lines]]
    if len(lines) > max_lines:
        out.append(f"… ({len(lines) - max_lines} more lines)")
    return "\n".join(out)


def check_out_dir(out: Path, option: str = "--out") -> Path:
    """A folder to write into: refused (exit 2) when it, or a folder above it, is a file."""
    out = Path(out)
    probe = out
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        fail(f"{option} {out}: {probe} is a file, not a folder" if probe != out
             else f"{option} {out} is a file, not a folder")
    return out


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    import duckdb
    try:
        mine = version("pricewatch")
    except PackageNotFoundError:
        mine = "unknown (not installed)"
    return f"pricewatch {mine} (duckdb {duckdb.__version__}, Python {sys.version.split()[0]})"

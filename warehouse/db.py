"""DuckDB access: connect, waiting with a bound while another process holds the one write lock,
and the warehouse's path and waits.

The rest of warehouse/ is one module per job, each imported from where it is defined:
warehouse/migrate.py (a new warehouse built from the current schema, an older one given its
pending numbered migrations) and warehouse/repeatables.py (then the views, macros and comments
whose text changed), warehouse/load.py (loading a run or a backfill in one transaction, the
history reads), warehouse/resources.py (what a load is handed: the quality gate, the catalog
and sources rows), warehouse/spells.py (the state kept at load: price spells and latest
offers), warehouse/marts.py (the stored marts), warehouse/spool.py (a run kept for the next load
while the warehouse is locked) and warehouse/sql_files.py (the one loader of .sql files)."""

from __future__ import annotations

import logging
import os
import re
import time
from contextlib import contextmanager
from pathlib import Path

import duckdb

# Read by warehouse/migrate.py at each call (set it here to point migrations elsewhere).
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
DEFAULT_DB = "data/pricewatch.duckdb"
DEFAULT_LOAD_WAIT_S = 600.0     # a nightly load waits this long for another process's lock
DEFAULT_HISTORY_WAIT_S = 120.0  # the history read at the start of a run (crawls go on meanwhile)

log = logging.getLogger("pricewatch.warehouse")


def default_db_path() -> str:
    return os.environ.get("PRICEWATCH_DB", DEFAULT_DB)


def _seconds(env: str, default: float) -> float:
    raw = os.environ.get(env)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{env}={raw!r} is not a number of seconds") from None
    return max(0.0, value)


def load_wait_s() -> float:
    """How long a load waits for the warehouse lock before it spools the run (PRICEWATCH_LOAD_WAIT_S)."""
    return _seconds("PRICEWATCH_LOAD_WAIT_S", DEFAULT_LOAD_WAIT_S)


def history_wait_s() -> float:
    """How long the history read at the start of a run waits (PRICEWATCH_HISTORY_WAIT_S)."""
    return _seconds("PRICEWATCH_HISTORY_WAIT_S", DEFAULT_HISTORY_WAIT_S)


# --- the one-writer lock ------------------------------------------------------------------

_LOCK_RE = re.compile(r'Could not set lock on file "(?P<file>[^"]*)": Conflicting lock is held in '
                      r'(?P<program>.*?)(?: \(PID (?P<pid>\d+)\))?(?: by user (?P<user>[^.\s]+))?\.(?: See also|$)')


class WarehouseLocked(duckdb.IOException):
    """Another process holds DuckDB's lock on the warehouse file. The message is one line naming
    the file and, when DuckDB says it, the holder (program, PID, user)."""

    def __init__(self, path: str | os.PathLike, program: str | None = None, pid: int | None = None,
                 user: str | None = None, waited_s: float = 0.0):
        self.path, self.program, self.pid, self.user, self.waited_s = str(path), program, pid, user, waited_s
        super().__init__(self.describe())

    @property
    def holder(self) -> str:
        if not (self.program or self.pid):
            return "another process"
        parts = [os.path.basename(self.program) if self.program else None,
                 f"PID {self.pid}" if self.pid else None, f"user {self.user}" if self.user else None]
        return "another process (" + ", ".join(p for p in parts if p) + ")"

    def describe(self) -> str:
        waited = f" (waited {self.waited_s:.0f} s)" if self.waited_s >= 1 else ""
        return f"warehouse {self.path} is locked by {self.holder}{waited}"


def lock_error(exc: BaseException, path: str | os.PathLike) -> WarehouseLocked | None:
    """DuckDB's lock conflict as a WarehouseLocked (None for any other error)."""
    if isinstance(exc, WarehouseLocked):
        return exc
    text = str(exc)
    if not isinstance(exc, duckdb.IOException) or "Could not set lock" not in text:
        return None
    m = _LOCK_RE.search(text)
    if not m:
        return WarehouseLocked(path)
    return WarehouseLocked(m.group("file") or path, m.group("program") or None,
                           int(m.group("pid")) if m.group("pid") else None, m.group("user"))


def connect(path: str | os.PathLike, read_only: bool = False, wait_s: float = 0.0,
            on_wait=None) -> duckdb.DuckDBPyConnection:
    """A connection to the warehouse. While another process holds the file's lock it retries for
    up to wait_s seconds, then raises WarehouseLocked (one line: the file and the holder).
    on_wait(locked, wait_s): called once, when the first attempt finds the file locked and the
    connection is going to wait (a command tells its user who holds the lock)."""
    path = Path(path)
    if read_only and not path.exists():
        raise FileNotFoundError(f"no pricewatch database at {path} (run `pricewatch run` first)")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    delay = 0.1
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            break
        except duckdb.IOException as exc:
            locked = lock_error(exc, path)
            if locked is None:
                raise
            waited = time.monotonic() - start
            if on_wait is not None and waited < wait_s:
                on_wait(locked, wait_s)
                on_wait = None
            if waited >= wait_s:
                locked.waited_s = waited
                locked.args = (locked.describe(),)
                raise locked from None
            time.sleep(min(delay, wait_s - waited))
            delay = min(delay * 2, 5.0)
    con.execute("SET TimeZone = 'UTC'")
    return con


@contextmanager
def session(path: str | os.PathLike, wait_s: float = 0.0, on_wait=None):
    """A read-write connection for one step of a run, closed when the step ends (DuckDB allows
    one writer per file: steps never hold the lock longer than they need it). wait_s: how long
    to wait for another process's lock (see connect)."""
    con = connect(path, wait_s=wait_s, on_wait=on_wait)
    try:
        yield con
    finally:
        con.close()

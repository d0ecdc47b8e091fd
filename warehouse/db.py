"""DuckDB access: connect (waiting with a bound while another process holds the one write
lock), apply numbered migrations once (each recorded with the sha256 of its text), load a run
in one transaction, and keep a run that could not be loaded in a spool for the next load."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import time
from contextlib import contextmanager
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import pandas as pd

from pricewatch.catalog import load_catalog

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
SQL_DIR = Path(__file__).resolve().parent / "sql"
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


def connect(path: str | os.PathLike, read_only: bool = False, wait_s: float = 0.0) -> duckdb.DuckDBPyConnection:
    """A connection to the warehouse. While another process holds the file's lock it retries for
    up to wait_s seconds, then raises WarehouseLocked (one line: the file and the holder)."""
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
            if waited >= wait_s:
                locked.waited_s = waited
                locked.args = (locked.describe(),)
                raise locked from None
            time.sleep(min(delay, wait_s - waited))
            delay = min(delay * 2, 5.0)
    con.execute("SET TimeZone = 'UTC'")
    return con


@contextmanager
def session(path: str | os.PathLike, wait_s: float = 0.0):
    """A read-write connection for one step of a run, closed when the step ends (DuckDB allows
    one writer per file: steps never hold the lock longer than they need it). wait_s: how long
    to wait for another process's lock (see connect)."""
    con = connect(path, wait_s=wait_s)
    try:
        yield con
    finally:
        con.close()


# --- migrations ---------------------------------------------------------------------------

def migrations() -> list[tuple[int, str, str]]:
    out = []
    for f in sorted(MIGRATIONS_DIR.glob("*.sql")):
        m = re.match(r"^(\d+)_(.+)\.sql$", f.name)
        if m:
            out.append((int(m.group(1)), m.group(2), f.read_text()))
    return sorted(out)


def migration_sha256(sql: str) -> str:
    """The recorded identity of a migration's text (line endings normalised, so a checkout with
    CRLF is not an edit)."""
    return hashlib.sha256(sql.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def is_repair(name: str) -> bool:
    """A repair migration (NNN_repair_*.sql) brings the tables of a warehouse built by an earlier
    release to the shape the landed migrations assume."""
    return name.startswith("repair_")


def _columns(con, table: str) -> set[str]:
    return {r[1] for r in con.execute(f"PRAGMA table_info('{table}')").fetchall()}


def migrate(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Applies each migration not yet recorded in schema_migrations, each in its own transaction,
    and returns their versions in the order applied.

    Order: a new warehouse gets every migration in number order. On a warehouse that already
    has migrations recorded, pending repair migrations (NNN_repair_*) run first: a landed
    migration was edited after some warehouses had applied it, and the later ones assume the
    edited shape. Each applied migration is recorded with the sha256 of its text (once the
    column exists, migration 020); a recorded text that no longer matches its file is logged
    as a warning (see changed_migrations), never an error: the warehouse is what it is."""
    con.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())""")
    done = {v for (v,) in con.execute("SELECT version FROM schema_migrations").fetchall()}
    pending = [m for m in migrations() if m[0] not in done]
    if done:
        pending.sort(key=lambda m: (not is_repair(m[1]), m[0]))
    applied: list[int] = []
    texts: dict[int, str] = {}
    for version, name, sql in pending:
        con.execute("BEGIN")
        try:
            con.execute(sql)
            if "sha256" in _columns(con, "schema_migrations"):
                con.execute("INSERT INTO schema_migrations (version, name, sha256) VALUES (?, ?, ?)",
                            [version, name, migration_sha256(sql)])
            else:
                con.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, name])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(version)
        texts[version] = sql
    if texts and "sha256" in _columns(con, "schema_migrations"):
        # Applied by this call before the column existed: their text is known, record it.
        for version, sql in texts.items():
            con.execute("UPDATE schema_migrations SET sha256 = ? WHERE version = ? AND sha256 IS NULL",
                        [migration_sha256(sql), version])
    for line in changed_migrations(con):
        log.warning(line)
    return applied


def changed_migrations(con: duckdb.DuckDBPyConnection) -> list[str]:
    """One line per applied migration whose file no longer matches the text recorded when it was
    applied (or whose file is gone). Migrations applied before texts were recorded are not
    judged (their sha256 is NULL)."""
    if "sha256" not in _columns(con, "schema_migrations"):
        return []
    files = {v: (n, migration_sha256(sql)) for v, n, sql in migrations()}
    where = _db_file(con)
    out = []
    for version, name, recorded in con.execute(
            "SELECT version, name, sha256 FROM schema_migrations WHERE sha256 IS NOT NULL ORDER BY version").fetchall():
        label = f"{version:03d}_{name}"
        if version not in files:
            out.append(f"warehouse {where}: migration {label} was applied but its file is gone from {MIGRATIONS_DIR}")
        elif files[version][1] != recorded:
            out.append(f"warehouse {where}: migration {label} changed since it was applied (applied sha256 "
                       f"{recorded[:12]}, file now {files[version][1][:12]}); a landed migration is never "
                       f"edited: put the change in a new migration")
    return out


def _db_file(con) -> str:
    try:
        row = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
        return row[0] if row and row[0] else "(in memory)"
    except duckdb.Error:
        return "(unknown file)"


def sync_catalog(con: duckdb.DuckDBPyConnection) -> None:
    """Rewrites gpu_catalog / gpu_aliases from the YAML (inside the caller's transaction)."""
    catalog = load_catalog()
    models = pd.DataFrame([{"gpu_model": m["model"], "vendor": m["vendor"], "vram_gb": float(m["vram_gb"])}
                           for m in catalog.models.values()])
    con.execute("DELETE FROM gpu_aliases")
    con.execute("DELETE FROM gpu_catalog")
    insert_frame(con, "gpu_catalog", models, ["gpu_model", "vendor", "vram_gb"])
    insert_frame(con, "gpu_aliases", pd.DataFrame(catalog.labels()),
                 ["alias_key", "gpu_model", "form_factor", "vram_gb", "ambiguous"])


def insert_frame(con: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame, columns: list[str]) -> None:
    """One bulk INSERT of a DataFrame's columns (never row by row)."""
    if not len(frame):
        return
    con.register("incoming_frame", frame[columns])
    cols = ", ".join(columns)
    try:
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM incoming_frame")
    except Exception:
        try:  # in the aborted transaction this fails too: the INSERT's own error is the one to see
            con.unregister("incoming_frame")
        except duckdb.Error:
            pass
        raise
    con.unregister("incoming_frame")


RUN_COLUMNS = ["run_id", "mode", "observed_at", "snapshot_date", "started_at", "finished_at", "status",
               "replay_source", "flow_run_id", "summary"]
OFFER_COLUMNS = [
    "run_id", "provider", "offer_key", "gpu_label", "gpu_model", "gpu_count", "vram_gb", "form_factor",
    "billing", "tier", "reserved_term", "self_service", "region", "currency", "price_unit", "price_per_hour", "price_per_gpu_hour", "is_priced",
    "price_text", "availability", "is_aggregator", "observed_at", "source_url", "warc_file",
    "warc_record_id", "body_sha256", "held_reason", "screen_note", "price_raw",
]
PROVIDER_RUN_COLUMNS = [
    "run_id", "provider", "status", "observed_at", "item_count", "priced_count", "unpriced_count",
    "duplicates_dropped", "http_error_count", "retries", "attempts", "duration_s", "unknown_labels",
    "warnings", "monitors", "error",
]
FACT_COLUMNS = ["run_id", "provider", "fact", "value_num", "value_text", "observed_at", "source_url",
                "warc_file", "warc_record_id", "body_sha256"]


def recent_item_counts(con: duckdb.DuckDBPyConnection, limit: int = 5) -> dict[str, list[int]]:
    """Item counts of each provider's last successful runs, newest first (for the run monitors)."""
    rows = con.execute("""
        SELECT provider, list(item_count ORDER BY observed_at DESC)[1:?]
        FROM provider_runs WHERE status = 'ok' GROUP BY provider""", [limit]).fetchall()
    return {p: list(c) for p, c in rows}


def query_sql(name: str) -> str:
    """A named query of warehouse/sql/ (Python passes parameters; it does not build SQL)."""
    return (SQL_DIR / f"{name}.sql").read_text()


def screen_offers(con: duckdb.DuckDBPyConnection, offers: pd.DataFrame, observed_at) -> pd.DataFrame:
    """The quality gate's verdict on each offer of a run (pricewatch/quality.py), judged against
    the readings stored before the run's snapshot time."""
    from pricewatch import quality
    if not len(offers):
        return offers.assign(held_reason=None, screen_note=None)
    previous = con.execute(query_sql("previous_readings"), [observed_at]).df()
    cited = con.execute(query_sql("cited_prices"), [observed_at]).df()
    return quality.screen(offers, previous, cited)


def run_exists(con: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchone()[0])


def load_run(con: duckdb.DuckDBPyConnection, run: dict, provider_runs: pd.DataFrame,
             offers: pd.DataFrame, facts: pd.DataFrame | None = None) -> bool:
    """Stores one run in one transaction. Returns False (and changes nothing) when the run is
    already in the warehouse, so a rerun of the same replay is a no-op."""
    migrate(con)
    con.execute("BEGIN")
    try:
        if run_exists(con, run["run_id"]):
            con.execute("ROLLBACK")
            return False
        sync_catalog(con)
        if len(offers) and "held_reason" not in offers.columns:
            offers = screen_offers(con, offers, run["observed_at"])
        insert_frame(con, "runs", pd.DataFrame([run]), RUN_COLUMNS)
        insert_frame(con, "provider_runs", provider_runs, PROVIDER_RUN_COLUMNS)
        insert_frame(con, "offers", offers, OFFER_COLUMNS)
        if facts is not None:
            insert_frame(con, "source_facts", facts, FACT_COLUMNS)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return True


# --- the spool: a run the warehouse could not take yet ---------------------------------------
#
# <folder of the database>/spool/<run_id>/ holds one run: manifest.json (the run row, why it
# was spooled, the row counts) and one Parquet file per non-empty frame. It is written in a
# hidden folder next to it and renamed into place, so a spool folder is complete or absent;
# the next load stores every spooled run (oldest snapshot first, each in its own transaction,
# a run already stored is a no-op) and removes its folder only after that commit.

SPOOL_FORMAT = 1
_FRAMES = ("provider_runs", "offers", "facts")


def spool_dir(db_path: str | os.PathLike) -> Path:
    return Path(db_path).resolve().parent / "spool"


def _safe_name(run_id: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}", run_id):
        return run_id
    return "run-" + hashlib.sha256(run_id.encode()).hexdigest()[:16]


def _encode(value):
    if isinstance(value, datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, date):
        return {"date": value.isoformat()}
    return value


def _decode(value):
    if isinstance(value, dict) and len(value) == 1:
        if "datetime" in value:
            return datetime.fromisoformat(value["datetime"])
        if "date" in value:
            return date.fromisoformat(value["date"])
    return value


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sql_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def spool_run(db_path: str | os.PathLike, run: dict, provider_runs: pd.DataFrame, offers: pd.DataFrame,
              facts: pd.DataFrame | None, reason: str) -> Path:
    """Keeps a run that could not be loaded under spool/<run_id>/ (atomically) and returns it."""
    root = spool_dir(db_path)
    root.mkdir(parents=True, exist_ok=True)
    final = root / _safe_name(run["run_id"])
    if (final / "manifest.json").exists():
        return final  # the same run is already kept (a rerun of the same replay)
    tmp = root / f".incoming-{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    mem = duckdb.connect()
    try:
        counts = {}
        for name, frame in zip(_FRAMES, (provider_runs, offers, facts)):
            counts[name] = 0 if frame is None else len(frame)
            if frame is None or not len(frame) or not len(frame.columns):
                continue
            mem.register("spooled_frame", frame)
            mem.execute(f"COPY (SELECT * FROM spooled_frame) TO {_sql_path(tmp / (name + '.parquet'))} (FORMAT parquet)")
            mem.unregister("spooled_frame")
            _fsync(tmp / f"{name}.parquet")
    finally:
        mem.close()
    manifest = {"format": SPOOL_FORMAT, "run_id": run["run_id"], "reason": reason,
                "spooled_at": datetime.now(timezone.utc).isoformat(), "counts": counts,
                "run": {k: _encode(v) for k, v in run.items()}}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str))
    _fsync(tmp / "manifest.json")
    _fsync(tmp)
    try:
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (final / "manifest.json").exists():
            raise
    _fsync(root)
    return final


def read_spool(path: str | os.PathLike) -> tuple[dict, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The run row and frames of one spool folder, as spool_run got them."""
    path = Path(path)
    manifest = json.loads((path / "manifest.json").read_text())
    if manifest.get("format") != SPOOL_FORMAT:
        raise ValueError(f"spool {path}: format {manifest.get('format')!r} is not {SPOOL_FORMAT}")
    run = {k: _decode(v) for k, v in manifest["run"].items()}
    mem = duckdb.connect()
    try:
        mem.execute("SET TimeZone = 'UTC'")
        frames = []
        for name in _FRAMES:
            f = path / f"{name}.parquet"
            frames.append(mem.execute(f"SELECT * FROM read_parquet({_sql_path(f)})").df() if f.exists()
                          else pd.DataFrame())
    finally:
        mem.close()
    return run, frames[0], frames[1], frames[2]


def spooled_runs(db_path: str | os.PathLike) -> list[Path]:
    """Complete spool folders, oldest snapshot first (a folder being written is hidden)."""
    root = spool_dir(db_path)
    if not root.is_dir():
        return []
    found = []
    for d in root.iterdir():
        if d.name.startswith(".") or not (d / "manifest.json").is_file():
            continue
        try:
            run = json.loads((d / "manifest.json").read_text())["run"]
            key = (str(_decode(run["observed_at"])), str(_decode(run.get("started_at"))), run["run_id"])
        except (ValueError, KeyError, TypeError):
            key = ("", "", d.name)
        found.append((key, d))
    return [d for _, d in sorted(found)]


def load_spooled(con: duckdb.DuckDBPyConnection, db_path: str | os.PathLike) -> list[dict]:
    """Stores every spooled run, oldest first, each in its own transaction; a folder is removed
    only after its run is in the warehouse (already there counts: the commit happened before a
    crash). A spool that cannot be stored stays, with its error, and the others go on.
    Returns one {run_id, path, loaded, error} per spool folder."""
    out = []
    for path in spooled_runs(db_path):
        try:
            run, provider_runs, offers, facts = read_spool(path)
            loaded = load_run(con, run, provider_runs, offers, facts)
        except Exception as exc:
            line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            out.append({"run_id": path.name, "path": str(path), "loaded": False,
                        "error": f"spooled run {path.name} not loaded ({line}); kept in {path}"})
            continue
        shutil.rmtree(path)
        out.append({"run_id": run["run_id"], "path": str(path), "loaded": loaded, "error": None})
    return out

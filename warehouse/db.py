"""DuckDB access: connect, apply numbered migrations once, load a run in one transaction."""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pandas as pd

from pricewatch.catalog import load_catalog

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
SQL_DIR = Path(__file__).resolve().parent / "sql"
DEFAULT_DB = "data/pricewatch.duckdb"


def default_db_path() -> str:
    return os.environ.get("PRICEWATCH_DB", DEFAULT_DB)


def connect(path: str | os.PathLike, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    path = Path(path)
    if read_only and not path.exists():
        raise FileNotFoundError(f"no pricewatch database at {path} (run `pricewatch run` first)")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path), read_only=read_only)
    con.execute("SET TimeZone = 'UTC'")
    return con


@contextmanager
def session(path: str | os.PathLike):
    """A read-write connection for one step of a run, closed when the step ends (DuckDB allows
    one writer per file: steps never hold the lock longer than they need it)."""
    con = connect(path)
    try:
        yield con
    finally:
        con.close()


def migrations() -> list[tuple[int, str, str]]:
    out = []
    for f in sorted(MIGRATIONS_DIR.glob("*.sql")):
        m = re.match(r"^(\d+)_(.+)\.sql$", f.name)
        if m:
            out.append((int(m.group(1)), m.group(2), f.read_text()))
    return out


def migrate(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Applies each migration not yet recorded in schema_migrations, each in its own transaction."""
    con.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())""")
    done = {v for (v,) in con.execute("SELECT version FROM schema_migrations").fetchall()}
    applied = []
    for version, name, sql in migrations():
        if version in done:
            continue
        con.execute("BEGIN")
        try:
            con.execute(sql)
            con.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, name])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied


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
    try:
        cols = ", ".join(columns)
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM incoming_frame")
    finally:
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
    market = con.execute(query_sql("market_floor"), [observed_at]).df()
    return quality.screen(offers, previous, market)


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

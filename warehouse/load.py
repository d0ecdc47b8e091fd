"""Loading a run: one bulk INSERT per frame, the quality gate's verdict on its offers, all in one
transaction (a run already stored is a no-op); the catalog sync and the history reads."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from pricewatch.catalog import load_catalog
from warehouse.migrate import migrate

SQL_DIR = Path(__file__).resolve().parent / "sql"


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

"""Loading a run: the quality gate's verdict on its offers, one bulk INSERT of its offers, the small
tables inserted directly, its price spells advanced (warehouse/spells.py), all in one transaction
(a run already stored is a no-op); a backfill of many runs in one transaction; the catalog sync
(only when the catalog changed) and the history reads.

Per-run fixed costs are kept out of the load: migrations run once per process and database
(warehouse/migrate.py ensure_migrated), the catalog is rewritten only when its rows changed
(their sha256 is kept in resource_syncs; the sources table likewise), named queries are read once per
process.

The columns it writes are the tables' stored formats, frozen and versioned, declared here as
literal lists (OFFERS_TABLE_V1_FIELDS, ...): this package imports nothing of pricewatch, so it
cannot derive them from the offer's field table (pricewatch/record/fields.py), and reading
``PRAGMA table_info`` on every connection would add a read to every load for no gain: the
format is fixed by the migrations anyway. tests/test_record_contract.py checks each list against
a freshly migrated warehouse and against the field table."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from warehouse import marts, spells
from warehouse.migrate import ensure_migrated
from warehouse.resources import LoadResources, sync_catalog, sync_sources
from warehouse.sql_files import query_sql, run_statements  # noqa: F401 (query_sql re-exported)
from warehouse.uniqueness import _refuse_duplicates, _refuse_duplicates_by_run  # noqa: F401 (tests import them here)

SQL_DIR = Path(__file__).resolve().parent / "sql"
SMALL_ROWS = 64   # frames up to this many rows are inserted as one VALUES statement (no DataFrame scan)


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict], columns: list[str]) -> None:
    """A few rows (a run, its provider runs) as one INSERT ... VALUES statement: cheaper than
    scanning a DataFrame, whose set-up costs milliseconds whatever its size."""
    if not rows:
        return
    one = "(" + ", ".join("?" * len(columns)) + ")"
    con.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES " + ", ".join([one] * len(rows)),
                [_plain(r.get(c)) for r in rows for c in columns])


def _plain(value):
    """A DataFrame cell as DuckDB takes it as a parameter (NaN/NaT/NA are NULL, Timestamps are
    datetimes, numpy scalars and arrays are Python values)."""
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if isinstance(value, float):
        return None if value != value else value
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
        if isinstance(value, float) and value != value:
            return None
    return value


def insert_frame(con: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame, columns: list[str]) -> None:
    """One bulk INSERT of a DataFrame's columns (never row by row); a small frame as one VALUES
    statement."""
    if not len(frame):
        return
    if len(frame) <= SMALL_ROWS:
        insert_rows(con, table, frame[columns].to_dict("records"), columns)
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


# --- the stored formats the load writes: frozen, versioned ------------------------------------
#
# warehouse/ imports nothing of pricewatch, so the loader cannot read the offer's field table
# (pricewatch/record/fields.py). It writes each table with the frozen literal list of that table's
# stored format instead (choice (b) of issue 19 item 2, over reading PRAGMA table_info per
# connection: no read per load, and the format is visible here, named with its version). The
# columns are the table's own, in its own order, with their types; tests/test_record_contract.py
# checks that each list equals the columns of a freshly migrated warehouse and the field table
# it comes from (offers: OFFER_FIELDS' stored set; provider_runs: PROVIDER_RUN_FIELDS of
# pricewatch/record/crawl_report.py). A table changes only by a numbered migration, which comes
# with a new list (v2), never an edit of v1.

#: The stored ``offers`` table, format v1 (its shape since migration 017 added price_raw).
OFFERS_TABLE_V1_FIELDS = (
    ("run_id", "VARCHAR"), ("provider", "VARCHAR"), ("offer_key", "VARCHAR"), ("gpu_label", "VARCHAR"),
    ("gpu_model", "VARCHAR"), ("gpu_count", "INTEGER"), ("vram_gb", "DOUBLE"), ("form_factor", "VARCHAR"),
    ("billing", "VARCHAR"), ("tier", "VARCHAR"), ("reserved_term", "VARCHAR"), ("self_service", "BOOLEAN"),
    ("region", "VARCHAR"), ("currency", "VARCHAR"), ("price_unit", "VARCHAR"), ("price_per_hour", "DECIMAL(18,6)"),
    ("price_per_gpu_hour", "DECIMAL(18,6)"), ("is_priced", "BOOLEAN"), ("price_text", "VARCHAR"),
    ("availability", "VARCHAR"), ("is_aggregator", "BOOLEAN"), ("observed_at", "TIMESTAMP WITH TIME ZONE"),
    ("source_url", "VARCHAR"), ("warc_file", "VARCHAR"), ("warc_record_id", "VARCHAR"), ("body_sha256", "VARCHAR"),
    ("held_reason", "VARCHAR"), ("screen_note", "VARCHAR"), ("price_raw", "VARCHAR"),
)
#: The stored ``provider_runs`` table, format v1.
PROVIDER_RUNS_TABLE_V1_FIELDS = (
    ("run_id", "VARCHAR"), ("provider", "VARCHAR"), ("status", "VARCHAR"), ("monitors", "VARCHAR[]"),
    ("observed_at", "TIMESTAMP WITH TIME ZONE"), ("item_count", "INTEGER"), ("priced_count", "INTEGER"),
    ("unpriced_count", "INTEGER"), ("duplicates_dropped", "INTEGER"), ("http_error_count", "INTEGER"),
    ("retries", "INTEGER"), ("attempts", "INTEGER"), ("duration_s", "DOUBLE"), ("unknown_labels", "VARCHAR[]"),
    ("warnings", "VARCHAR[]"), ("error", "VARCHAR"),
)
#: The stored ``provider_runs`` table, format v2 (migration 059): v1 + ``trusted``.
PROVIDER_RUNS_TABLE_V2_FIELDS = PROVIDER_RUNS_TABLE_V1_FIELDS + (("trusted", "BOOLEAN"),)
#: The stored ``runs`` table, format v1.
RUNS_TABLE_V1_FIELDS = (
    ("run_id", "VARCHAR"), ("mode", "VARCHAR"), ("observed_at", "TIMESTAMP WITH TIME ZONE"), ("snapshot_date", "DATE"),
    ("started_at", "TIMESTAMP WITH TIME ZONE"), ("finished_at", "TIMESTAMP WITH TIME ZONE"), ("status", "VARCHAR"),
    ("replay_source", "VARCHAR"), ("flow_run_id", "VARCHAR"), ("summary", "VARCHAR"),
)
#: The stored ``source_facts`` table, format v1.
SOURCE_FACTS_TABLE_V1_FIELDS = (
    ("run_id", "VARCHAR"), ("provider", "VARCHAR"), ("fact", "VARCHAR"), ("value_num", "DOUBLE"),
    ("value_text", "VARCHAR"), ("observed_at", "TIMESTAMP WITH TIME ZONE"), ("source_url", "VARCHAR"),
    ("warc_file", "VARCHAR"), ("warc_record_id", "VARCHAR"), ("body_sha256", "VARCHAR"),
)
#: The columns each INSERT names (lists, as callers slice and concatenate them).
RUN_COLUMNS = [name for name, _ in RUNS_TABLE_V1_FIELDS]
OFFER_COLUMNS = [name for name, _ in OFFERS_TABLE_V1_FIELDS]
PROVIDER_RUN_COLUMNS = [name for name, _ in PROVIDER_RUNS_TABLE_V2_FIELDS]
FACT_COLUMNS = [name for name, _ in SOURCE_FACTS_TABLE_V1_FIELDS]


#: How many of each provider's last successful runs the run monitors compare with.
HISTORY_RUNS = 5


def recent_item_counts(con: duckdb.DuckDBPyConnection, limit: int = HISTORY_RUNS) -> dict[str, list[int]]:
    """Item counts of each provider's last successful runs, newest first (for the run monitors)."""
    rows = con.execute("""
        SELECT provider, list(item_count ORDER BY observed_at DESC)[1:?]
        FROM provider_runs WHERE trusted GROUP BY provider""", [limit]).fetchall()
    return {p: list(c) for p, c in rows}


def screen_offers(con: duckdb.DuckDBPyConnection, gate, offers: pd.DataFrame, observed_at,
                  newest: bool | None = None) -> pd.DataFrame:
    """The quality gate's verdict (``gate``: pricewatch/collect/gate.py, handed in by the caller) on
    each offer of a run, judged against
    the readings stored before the run's snapshot time. newest: the run is later than every
    successful provider run stored (None: look it up); its previous readings are then the stored
    latest offers."""
    if not len(offers):
        return offers.assign(held_reason=None, screen_note=None)
    if newest is None:
        newest = con.execute(query_sql("run_is_newest"), [observed_at]).fetchall()[0][0]
    previous = con.execute(query_sql("previous_readings_current") if newest else query_sql("previous_readings"),
                           [sorted(set(offers["provider"]))] if newest else [observed_at]).df()
    # The cited prices matter only for an offer never trusted before (most nights: none).
    cited = None
    if gate.may_cite(offers, previous):
        ff = offers["form_factor"] if "form_factor" in offers else [None] * len(offers)
        pairs = [{"gpu_model": m, "form_factor": f if isinstance(f, str) else None}
                 for m, f in set(zip(offers["gpu_model"].tolist(), list(ff))) if isinstance(m, str)]
        cited = con.execute(query_sql("cited_prices"), [observed_at, pairs]).df()
    return gate.screen(offers, previous, cited)


def load_run(con: duckdb.DuckDBPyConnection, run: dict, provider_runs: pd.DataFrame,
             offers: pd.DataFrame, facts: pd.DataFrame | None = None, *, resources: LoadResources) -> bool:
    """Stores one run in one transaction. Returns False (and changes nothing) when the run is
    already in the warehouse, so a rerun of the same replay is a no-op."""
    return bool(load_runs(con, [(run, provider_runs, offers, facts)], resources=resources))


def load_runs(con: duckdb.DuckDBPyConnection, runs, *, resources: LoadResources) -> list[str]:
    """A backfill: stores many runs (each a (run, provider_runs, offers[, facts]) tuple, in
    snapshot order for the cheapest spells) in ONE transaction, all or nothing; runs already in
    the warehouse are skipped. Each run's offers are screened by the quality gate against what
    was stored before it (the earlier runs of the batch included) unless they carry held_reason.
    When every run's offers carry held_reason already (a replay of stored or spooled runs), the
    batch is inserted in bulk, one INSERT per table, and the derived state of its providers is
    rebuilt once, set-based (warehouse/spells.py rebuild). Returns the run ids stored."""
    ensure_migrated(con)
    runs = [(r, _with_trusted(pr), o, f) for r, pr, o, f in ((tuple(item) + (None,))[:4] for item in runs)]
    stored: list[str] = []
    con.execute("BEGIN")
    try:
        first = _preflight(con, runs[0][0], runs[0][1]) if runs else None
        synced = first["synced"] if first else dict(con.execute("SELECT resource, sha256 FROM resource_syncs").fetchall())
        sync_catalog(con, resources, synced=synced)
        sync_sources(con, resources, synced=synced)   # the sources table, from the spider classes
        if len(runs) > 1 and all(not len(o) or "held_reason" in o.columns for _, _, o, _ in runs):
            stored = _store_bulk(con, runs)
        else:
            for i, (run, provider_runs, offers, facts) in enumerate(runs):
                if _store_run(con, resources.gate, run, provider_runs, offers, facts,
                              first if i == 0 else _preflight(con, run, provider_runs)):
                    stored.append(run["run_id"])
        if stored:   # the stored marts (migrations 051, 052): a day to store, in the same transaction
            marts.refresh(con)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return stored


def _with_trusted(provider_runs: pd.DataFrame | None) -> pd.DataFrame | None:
    """provider_runs with its ``trusted`` column (format v2); a frame shaped before it (a spool
    written by an older version) trusts exactly its ok runs, as migration 059 did."""
    if provider_runs is None or "trusted" in provider_runs.columns:
        return provider_runs
    return provider_runs.assign(trusted=provider_runs["status"] == "ok") if len(provider_runs) else \
        provider_runs.assign(trusted=pd.Series(dtype=bool))


def _store_bulk(con, runs: list[tuple]) -> list[str]:
    """Pre-screened runs: one INSERT per table for the whole batch, then one set-based rebuild of
    the derived state of the providers whose successful runs it adds."""
    known = {r for (r,) in con.execute("SELECT run_id FROM runs WHERE list_contains(?, run_id)",
                                        [[r["run_id"] for r, *_ in runs]]).fetchall()}
    new = [(r, pr, o, f) for r, pr, o, f in runs if r["run_id"] not in known]
    new = list({r["run_id"]: (r, pr, o, f) for r, pr, o, f in new}.values())
    if not new:
        return []
    frames = {name: [x for x in (item[i] for item in new) if x is not None and len(x)]
              for i, name in ((1, "provider_runs"), (2, "offers"), (3, "source_facts"))}
    offers = pd.concat(frames["offers"], ignore_index=True) if frames["offers"] else pd.DataFrame()
    _refuse_duplicates_by_run(new, offers)
    insert_frame(con, "runs", pd.DataFrame([r for r, *_ in new]), RUN_COLUMNS)
    provider_runs = pd.concat(frames["provider_runs"], ignore_index=True) if frames["provider_runs"] else pd.DataFrame()
    insert_frame(con, "provider_runs", provider_runs, PROVIDER_RUN_COLUMNS)
    insert_frame(con, "offers", offers, OFFER_COLUMNS)
    if frames["source_facts"]:
        insert_frame(con, "source_facts", pd.concat(frames["source_facts"], ignore_index=True), FACT_COLUMNS)
    if len(provider_runs):
        touched = sorted(set(provider_runs.loc[provider_runs["trusted"].astype(bool), "provider"]))
        if touched:
            spells.rebuild(con, touched)
    return [r["run_id"] for r, *_ in new]


def _preflight(con, run: dict, provider_runs: pd.DataFrame | None) -> dict:
    """Whether the run is stored already, whether it (the run and each of its provider runs) is
    newer than every successful provider run stored, and the resource_syncs rows: one read
    (warehouse/sql/load_preflight.sql)."""
    earliest = pd.Timestamp(run["observed_at"])
    earliest = earliest.tz_localize("UTC") if earliest.tzinfo is None else earliest
    if provider_runs is not None and len(provider_runs):
        earliest = min(earliest, pd.to_datetime(provider_runs["observed_at"], utc=True).min())
    stored, newest, synced, latest_day = con.execute(query_sql("load_preflight"),
                                                     [run["run_id"], earliest.to_pydatetime()]).fetchall()[0]
    return {"stored": stored, "newest": newest, "synced": dict(synced), "latest_day": latest_day}


def _store_run(con, gate, run: dict, provider_runs: pd.DataFrame, offers: pd.DataFrame, facts, preflight: dict) -> bool:
    if preflight["stored"]:
        return False
    _refuse_duplicates(offers)
    if len(offers) and "held_reason" not in offers.columns:
        offers = screen_offers(con, gate, offers, run["observed_at"], preflight["newest"])
    day = pd.Timestamp(run["snapshot_date"]).date()
    if preflight["newest"] and preflight["latest_day"] is not None and day > preflight["latest_day"]:
        marts.store_latest_day(con, day)   # the first run of a new day: the latest one is complete
    insert_rows(con, "runs", [run], RUN_COLUMNS)
    insert_frame(con, "provider_runs", provider_runs, PROVIDER_RUN_COLUMNS)
    _stage_offers(con, offers)
    if facts is not None:
        insert_frame(con, "source_facts", facts, FACT_COLUMNS)
    spells.advance(con, run["run_id"], provider_runs, newest=preflight["newest"])
    return True


def _stage_offers(con, offers: pd.DataFrame) -> None:
    """A run's offers into the temp table spell_incoming_offers (offers' types, the frame scanned
    once) and from there into offers (warehouse/sql/load_offers.sql): the spell and latest-offer
    steps then read the temp table."""
    frame = offers[OFFER_COLUMNS] if len(offers) else pd.DataFrame(columns=OFFER_COLUMNS)
    con.register("incoming_frame", frame)
    try:
        run_statements(con, "load_offers")
    finally:
        try:
            con.unregister("incoming_frame")
        except duckdb.Error:   # in an aborted transaction: the statement's own error is the one to see
            pass

"""`pricewatch export`: offers, price history and claims as Parquet (Hive-partitioned by snapshot
date) or CSV, with a manifest that names the column set's version and documents every column.

The column set of each dataset is declared here, once (DATASETS): a frozen, versioned format
(EXPORT_VERSION), its wording included, as the manifest publishes it. The queries are
warehouse/sql/export_<dataset>.sql and are checked against it before anything is written, so an
export never silently changes shape: a change of columns is a new EXPORT_VERSION, never an edit
of a shipped one. The offers dataset is the offer fields marked "export" in the offer's field
table (pricewatch/record/fields.py), with their stored types, plus OFFERS_EXPORT_ONLY (the run's
snapshot date, the provider run's status); tests/test_record_contract.py checks that the two
agree. Everything is
read in one read-only transaction (the three datasets are one consistent snapshot), written to
a temporary folder beside --out and moved into place only when complete; a previous export in
--out is replaced, any other content is refused.

Readers: the Parquet is plain Parquet (INT64 microsecond UTC timestamps, DECIMAL(18,6) prices,
DATE, strings, booleans; no DuckDB-specific types), read alike by pandas/pyarrow, polars and
DuckDB 1.x (tests/test_export.py). `snapshot_date` is the Hive partition key: it lives in the
folder names (`offers/snapshot_date=2026-10-29/data_0.parquet`), not in the files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path

#: v2 (issue 21): prices and other amounts as DOUBLE (pandas reads numbers, not Decimal objects),
#: snapshot_date a DATE column inside each Parquet file (one file per dataset, no Hive folders,
#: so pandas reads dates, not partition strings), and the marts added. v1 (DECIMAL(18,6), Hive
#: partitions, three datasets) is its fingerprint in tests/test_record_contract.py.
#: v3 (issue 23): each offer's, price spell's and mart row's comparable_class (the macro
#: comparable_class: "H100 SXM", "H100 NVL", "B200"); the marts compare one class per row, so a v2
#: cheapest_offer_daily or provider_price_index could hold two rows of one (day, gpu_model, ...)
#: that only the class tells apart. v2's fingerprint stays in tests/test_record_contract.py.
EXPORT_VERSION = 3
MANIFEST = "manifest.json"
FORMATS = ("parquet", "csv")
SINCE_ALL = date(1, 1, 1)


@dataclass(frozen=True)
class Column:
    name: str
    type: str          # DuckDB type as the query yields it (and as Parquet / CSV carry it)
    description: str


def _cols(*rows: tuple[str, str, str]) -> tuple[Column, ...]:
    return tuple(Column(*r) for r in rows)


_PRICE = "DOUBLE"
_EVIDENCE = (("source_url", "VARCHAR", "the page or API the price was read from"),
             ("warc_file", "VARCHAR", "the WARC file holding the archived response"),
             ("warc_record_id", "VARCHAR", "WARC-Record-ID of the archived response"))

#: The columns of the offers dataset that are not offer fields (from runs and provider_runs, and
#: the class the warehouse's macro gives the offer).
OFFERS_EXPORT_ONLY = ("snapshot_date", "provider_run_status", "comparable_class")

#: dataset -> its columns, in order, format v{EXPORT_VERSION} (frozen). The first column is the
#: partition key (snapshot_date).
DATASETS: dict[str, tuple[Column, ...]] = {
    "offers": _cols(
        ("snapshot_date", "DATE", "snapshot date (UTC) of the run"),
        ("run_id", "VARCHAR", "the run that stored the offer"),
        ("provider", "VARCHAR", "provider (spider name)"),
        ("offer_key", "VARCHAR", "the offer's key within its provider"),
        ("gpu_label", "VARCHAR", "GPU label as the source printed it"),
        ("gpu_model", "VARCHAR", "canonical GPU model; empty = label unknown to the catalog"),
        ("gpu_count", "INTEGER", "GPUs per instance"),
        ("vram_gb", "DOUBLE", "VRAM per GPU, GB"),
        ("form_factor", "VARCHAR", "SXM | PCIe | NVL | unknown"),
        ("comparable_class", "VARCHAR", "what \"cheapest\" compares: the model, split by form factor where the catalog says (H100 SXM, H100 NVL); empty = unknown GPU"),
        ("billing", "VARCHAR", "on-demand | spot | reserved | marketplace"),
        ("tier", "VARCHAR", "the provider's own tier"),
        ("reserved_term", "VARCHAR", "billing reserved: the term"),
        ("self_service", "BOOLEAN", "false when a sales contact or a large minimum is required"),
        ("region", "VARCHAR", "region, when the price is per region"),
        ("currency", "VARCHAR", "ISO currency of the price"),
        ("price_unit", "VARCHAR", "unit the source published: instance_hour | gpu_hour | gpu_second"),
        ("price_per_hour", _PRICE, "price per instance-hour (empty when unpriced)"),
        ("price_per_gpu_hour", _PRICE, "price per GPU-hour"),
        ("is_priced", "BOOLEAN", "false for Contact sales, placeholders, unresolved text"),
        ("price_text", "VARCHAR", "raw text of an unpriced offer"),
        ("price_raw", "VARCHAR", "the price cell's text, verbatim"),
        ("availability", "VARCHAR", "availability as the source states it"),
        ("is_aggregator", "BOOLEAN", "true for re-sellers of other clouds"),
        ("observed_at", "TIMESTAMP WITH TIME ZONE", "when the offer was observed (UTC)"),
        ("provider_run_status", "VARCHAR", "ok | suspect (kept as evidence, never a latest price)"),
        ("held_reason", "VARCHAR", "why the quality gate holds this reading (empty: trusted)"),
        ("screen_note", "VARCHAR", "why a large move was let through"),
        *_EVIDENCE,
        ("body_sha256", "VARCHAR", "sha256 of the archived response body"),
    ),
    "price_history": _cols(
        ("snapshot_date", "DATE", "snapshot date (UTC) of the run that started the spell"),
        ("provider", "VARCHAR", "provider (spider name)"),
        ("offer_key", "VARCHAR", "the offer's key within its provider"),
        ("gpu_model", "VARCHAR", "canonical GPU model"),
        ("form_factor", "VARCHAR", "SXM | PCIe | NVL | unknown"),
        ("comparable_class", "VARCHAR", "what \"cheapest\" compares: the model, split by form factor where the catalog says (H100 SXM, H100 NVL); empty = unknown GPU"),
        ("gpu_count", "INTEGER", "GPUs per instance"),
        ("billing", "VARCHAR", "on-demand | spot | reserved | marketplace"),
        ("tier", "VARCHAR", "the provider's own tier"),
        ("price_per_hour", _PRICE, "price per instance-hour during the spell (empty: unpriced)"),
        ("price_per_gpu_hour", _PRICE, "price per GPU-hour during the spell"),
        ("price_text", "VARCHAR", "printed text of an unpriced offer"),
        ("started_by", "VARCHAR", "first seen | changed | reappeared"),
        ("valid_from", "TIMESTAMP WITH TIME ZONE", "when this price was first seen"),
        ("valid_to", "TIMESTAMP WITH TIME ZONE", "when the next price was first trusted or the offer went missing; empty while current"),
        ("last_seen_at", "TIMESTAMP WITH TIME ZONE", "the last observation of this price"),
        ("observations", "BIGINT", "successful runs that observed this price"),
        ("first_run_id", "VARCHAR", "the run that first stored this price"),
    ),
    "claims": _cols(
        ("snapshot_date", "DATE", "snapshot date (UTC) of the evaluated run"),
        ("snapshot_at", "TIMESTAMP WITH TIME ZONE", "the run's observed_at: no later data was used"),
        ("run_id", "VARCHAR", "the evaluated run"),
        ("claim_id", "VARCHAR", "claim id (rules/)"),
        ("claim_group", "VARCHAR", "the CLAIMS.md id the claim belongs to"),
        ("page", "VARCHAR", "published page id"),
        ("kind", "VARCHAR", "computation kind: cited_offer, cheapest_offer, ratio, ..."),
        ("status", "VARCHAR", "holds | drifted | unverifiable"),
        ("published_value", _PRICE, "the number the page prints"),
        ("current_value", _PRICE, "the number recomputed (empty when unverifiable)"),
        ("difference", _PRICE, "current_value - published_value"),
        ("published_text", "VARCHAR", "as the page shows it"),
        ("current_text", "VARCHAR", "the same, recomputed"),
        ("tolerance", "VARCHAR", "what counts as holding"),
        ("reason", "VARCHAR", "why drifted or unverifiable"),
        ("unverifiable_since", "TIMESTAMP WITH TIME ZONE", "when the missing input was first missing"),
        ("previous_status", "VARCHAR", "status in the claim's previous evaluated run"),
        ("status_changed", "BOOLEAN", "status differs from previous_status"),
        ("rules_version", "VARCHAR", "sha256 (16 hex) of rules/ the evaluation used"),
        ("evaluated_at", "TIMESTAMP WITH TIME ZONE", "when the evaluation was computed"),
    ),
    # ---- the marts (warehouse/views/<name>.yaml documents each column) ----
    "cheapest_offer_daily": _cols(
        ("day", "DATE", "the day (UTC)"), ("gpu_model", "VARCHAR", "canonical GPU model"),
        ("comparable_class", "VARCHAR", "the comparable class compared (one per row)"),
        ("gpu_count", "INTEGER", "GPUs per instance"), ("billing", "VARCHAR", "on-demand | spot | reserved | marketplace"),
        ("min_price_per_hour", _PRICE, "the cheapest USD price per instance-hour in force that day"),
        ("median_price_per_hour", _PRICE, "the median USD price per instance-hour in force that day"),
        ("min_price_per_gpu_hour", _PRICE, "the cheapest USD price per GPU-hour that day"),
        ("min_provider", "VARCHAR", "the provider of the cheapest offer"),
        ("min_offer_key", "VARCHAR", "the cheapest offer's key"),
        ("offers", "BIGINT", "offers compared"), ("providers", "BIGINT", "providers compared"),
    ),
    "provider_price_index": _cols(
        ("day", "DATE", "the day (UTC)"), ("provider", "VARCHAR", "provider (spider name)"),
        ("gpu_model", "VARCHAR", "canonical GPU model"),
        ("comparable_class", "VARCHAR", "the comparable class compared (one per row)"),
        ("billing", "VARCHAR", "billing"),
        ("provider_min_per_gpu_hour", _PRICE, "the provider's cheapest USD per GPU-hour"),
        ("provider_median_per_gpu_hour", _PRICE, "the provider's median USD per GPU-hour"),
        ("provider_offers", "BIGINT", "the provider's offers"),
        ("market_median_per_gpu_hour", _PRICE, "the market's median USD per GPU-hour"),
        ("market_offers", "BIGINT", "offers in the market"), ("market_providers", "BIGINT", "providers in the market"),
        ("price_index", "DOUBLE", "100 * provider median / market median"),
    ),
    "source_freshness": _cols(
        ("provider", "VARCHAR", "provider (spider name)"),
        ("last_ok_at", "TIMESTAMP WITH TIME ZONE", "when its readings were last in force"),
        ("last_ok_run_id", "VARCHAR", "that run"),
        ("last_attempt_at", "TIMESTAMP WITH TIME ZONE", "its last attempt"),
        ("last_attempt_status", "VARCHAR", "ok | suspect | failed"),
        ("last_error", "VARCHAR", "the last attempt's error"),
        ("failed_attempts_since_ok", "BIGINT", "attempts not in force since"),
        ("as_of", "TIMESTAMP WITH TIME ZONE", "when this was computed"),
        ("age_hours", "DOUBLE", "hours since last_ok_at"),
        ("stale_after_hours", "DOUBLE", "the staleness limit"),
        ("is_stale", "BOOLEAN", "older than the limit (its claims are unverifiable)"),
    ),
    "provider_runs": _cols(
        ("snapshot_date", "DATE", "snapshot date (UTC) of the run"),
        ("run_id", "VARCHAR", "the run"), ("provider", "VARCHAR", "provider (spider name)"),
        ("status", "VARCHAR", "ok | suspect | failed | not attempted"),
        ("trusted", "BOOLEAN", "its readings are in force"),
        ("observed_at", "TIMESTAMP WITH TIME ZONE", "when the prices were seen (UTC)"),
        ("item_count", "INTEGER", "offers the crawl yielded"), ("priced_count", "INTEGER", "offers with a price"),
        ("unpriced_count", "INTEGER", "offers without a price"), ("http_error_count", "INTEGER", "HTTP error responses"),
        ("retries", "INTEGER", "request retries"), ("duration_s", "DOUBLE", "crawl duration, seconds"),
        ("error", "VARCHAR", "why it failed or is suspect"),
    ),
}


class ExportError(ValueError):
    """An export that cannot be written as asked (one line, for the CLI)."""


def _query(name: str) -> str:
    from warehouse.sql_files import query_sql
    return query_sql(f"export_{name}")


def check_columns(name: str, relation) -> None:
    """The query's columns and types must be the declared set, in order (else ExportError)."""
    got = [(c, str(t)) for c, t in zip(relation.columns, relation.types)]
    want = [(c.name, c.type) for c in DATASETS[name]]
    if got != want:
        diff = [f"{g} != {w}" for g, w in zip(got, want) if g != w][:3] or [f"{len(got)} columns, declared {len(want)}"]
        raise ExportError(f"export_{name}.sql no longer yields the declared column set v{EXPORT_VERSION} "
                          f"(pricewatch/export/datasets.py): {'; '.join(map(str, diff))}")


def _prepare_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ExportError(f"--out {out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise ExportError(f"--out {out} is not empty and holds no pricewatch export ({MANIFEST}): "
                          "choose an empty or new folder")


def _file(f: Path, base: Path) -> dict:
    return {"path": f.relative_to(base).as_posix(), "bytes": f.stat().st_size,
            "sha256": hashlib.sha256(f.read_bytes()).hexdigest()}


def _files(root: Path, base: Path) -> list[dict]:
    """Every file under root (a dataset with no rows has none), with its size and sha256."""
    return [_file(f, base) for f in sorted(p for p in root.rglob("*") if p.is_file())]


def export(con, out: Path, fmt: str = "parquet", since: date | None = None, db_label: str = "") -> dict:
    """Writes every dataset to `out` and returns the manifest (also written as out/manifest.json)."""
    if fmt not in FORMATS:
        raise ExportError(f"--format must be {' or '.join(FORMATS)} (got {fmt!r})")
    out = Path(out)
    _prepare_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        manifest = _write_all(con, tmp, fmt, since or SINCE_ALL, db_label)
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def _write_all(con, tmp: Path, fmt: str, since: date, db_label: str) -> dict:
    datasets = {}
    con.execute("BEGIN TRANSACTION")   # one snapshot for every dataset
    try:
        for name, columns in DATASETS.items():
            sql = _query(name)
            rel = con.sql(sql, params=[since] if "$1" in sql else None)
            check_columns(name, rel)
            if fmt == "parquet":
                target = tmp / name
                target.mkdir()
                if rel.aggregate("count(*)").fetchall()[0][0]:
                    rel.write_parquet(str(target / "data_0.parquet"), compression="zstd")
                files = _files(target, tmp)
            else:
                target = tmp / f"{name}.csv"
                rel.write_csv(str(target), header=True, timestamp_format="%Y-%m-%dT%H:%M:%S.%f%z")
                files = [_file(target, tmp)]
            rows = rel.aggregate("count(*)").fetchall()[0][0]
            datasets[name] = {
                "path": name if fmt == "parquet" else f"{name}.csv",
                "rows": rows,
                "files": files,
                "columns": [{"name": c.name, "type": c.type, "description": c.description} for c in columns],
            }
    finally:
        con.execute("COMMIT")
    return {
        "pricewatch_export": EXPORT_VERSION,
        "format": fmt,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "since": None if since == SINCE_ALL else since.isoformat(),
        "warehouse": db_label,
        "notes": "one Parquet file per dataset (<dataset>/data_0.parquet) or one CSV; snapshot_date and day are "
                 "DATE columns; prices are DOUBLE amounts in the offer's currency (the marts: USD); timestamps "
                 "are UTC; a dataset with no rows has no files.",
        "datasets": datasets,
    }


def _swap_in(tmp: Path, out: Path) -> None:
    """Moves the finished export into place; a previous export there is replaced only now."""
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.replace(out, old / "export")
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)

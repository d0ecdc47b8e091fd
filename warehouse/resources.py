"""What a load is handed by the code above it, and the two tables it writes from that.

warehouse/ imports nothing of pricewatch: the flow (through pricewatch/collect/store.py) hands
each load a :class:`LoadResources` holding the quality gate that screens a run's offers, the
GPU catalog's rows and the sources' rows. The catalog (``gpu_catalog``, ``gpu_aliases``) and
the ``sources`` table are rewritten inside the load's transaction only when their rows changed
since the last load wrote them (their sha256 is kept in ``resource_syncs``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

import duckdb
import pandas as pd

CATALOG_COLUMNS = ["gpu_model", "vendor", "vram_gb", "classes_by_form_factor"]
ALIAS_COLUMNS = ["alias_key", "gpu_model", "form_factor", "vram_gb", "ambiguous"]


class Gate(Protocol):
    """The quality gate (pricewatch/collect/gate.py): its verdict on a run's offers."""

    def may_cite(self, offers: pd.DataFrame, previous: pd.DataFrame) -> bool: ...

    def screen(self, offers: pd.DataFrame, previous: pd.DataFrame, cited: pd.DataFrame | None) -> pd.DataFrame: ...


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True, eq=False)
class LoadResources:
    """gate: screens offers; catalog_models / catalog_labels: the gpu_catalog / gpu_aliases rows;
    sources: the sources rows (each with the table's columns but synced_at), already checked."""
    gate: Gate
    catalog_models: list[dict]
    catalog_labels: list[dict]
    sources: list[dict]
    catalog_sha256: str = field(init=False)
    sources_sha256: str = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "catalog_sha256", _digest([self.catalog_models, self.catalog_labels]))
        object.__setattr__(self, "sources_sha256", _digest(self.sources))


def last_synced(con: duckdb.DuckDBPyConnection, resource: str) -> str | None:
    """The sha256 of the rows last written for a resource (None: never)."""
    found = con.execute("SELECT sha256 FROM resource_syncs WHERE resource = ?", [resource]).fetchall()
    return found[0][0] if found else None


def _mark_synced(con, resource: str, digest: str) -> None:
    con.execute("INSERT OR REPLACE INTO resource_syncs VALUES (?, ?, ?)", [resource, digest, datetime.now(timezone.utc)])


def sync_catalog(con: duckdb.DuckDBPyConnection, res: LoadResources, force: bool = False,
                 synced: dict | None = None) -> bool:
    """Rewrites gpu_catalog / gpu_aliases (inside the caller's transaction) when their rows differ
    from the last sync (``synced``: resource_syncs as the caller read it), or when forced.
    Returns whether it wrote."""
    from warehouse.load import insert_frame
    last = synced.get("gpu_catalog") if synced is not None else last_synced(con, "gpu_catalog")
    if not force and last == res.catalog_sha256:
        return False
    con.execute("DELETE FROM gpu_aliases")
    con.execute("DELETE FROM gpu_catalog")
    insert_frame(con, "gpu_catalog", pd.DataFrame(res.catalog_models, columns=CATALOG_COLUMNS), CATALOG_COLUMNS)
    insert_frame(con, "gpu_aliases", pd.DataFrame(res.catalog_labels, columns=ALIAS_COLUMNS), ALIAS_COLUMNS)
    _mark_synced(con, "gpu_catalog", res.catalog_sha256)
    return True


def write_sources(con: duckdb.DuckDBPyConnection, rows: list[dict]) -> int:
    """Rewrites the ``sources`` table from rows (inside the caller's transaction). Returns the
    number of rows written (0 when the table already says the same)."""
    columns = [r[1] for r in con.execute("PRAGMA table_info('sources')").fetchall()]
    fields = [c for c in columns if c != "synced_at"]
    stored = con.execute(f"SELECT {', '.join(fields)} FROM sources ORDER BY provider").fetchall()
    if [tuple(r) for r in stored] == [tuple(r[c] for c in fields) for r in sorted(rows, key=lambda r: r["provider"])]:
        return 0   # unchanged since the last load: nothing written
    now = datetime.now(timezone.utc)
    con.execute("DELETE FROM sources")
    if rows:
        con.executemany(f"INSERT INTO sources ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                        [[{**r, "synced_at": now}[c] for c in columns] for r in rows])
    return len(rows)


def sync_sources(con: duckdb.DuckDBPyConnection, res: LoadResources, synced: dict | None = None) -> bool:
    """write_sources, only when the rows changed since the last load wrote them. Returns whether
    it wrote."""
    last = synced.get("sources") if synced is not None else last_synced(con, "sources")
    if last == res.sources_sha256:
        return False
    write_sources(con, res.sources)
    _mark_synced(con, "sources", res.sources_sha256)
    return True

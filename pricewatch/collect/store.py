"""Storing judged runs in the warehouse: its load (warehouse/load.py, which imports nothing of
pricewatch) handed what it must know from above: the quality gate (pricewatch/collect/gate.py),
the GPU catalog's rows (pricewatch/record/catalog.py) and the sources' rows
(pricewatch/collect/sources.py). Every product path that stores a run comes through here: the
nightly and backfill flows, a spooled run loaded later, the benchmarks and tests."""

from __future__ import annotations

import os
from functools import lru_cache

import duckdb
import pandas as pd

from pricewatch.collect import gate, sources
from pricewatch.record.catalog import load_catalog
from warehouse import load, spool
from warehouse.resources import LoadResources


@lru_cache(maxsize=1)
def resources() -> LoadResources:
    """The gate, catalog rows and source rows, read once per process (the catalog YAML and the
    spider classes do not change while it lives)."""
    catalog = load_catalog()
    return LoadResources(gate=gate, catalog_models=catalog.rows(), catalog_labels=catalog.labels(),
                         sources=sources.checked_rows())


def load_run(con: duckdb.DuckDBPyConnection, run: dict, provider_runs: pd.DataFrame, offers: pd.DataFrame,
             facts: pd.DataFrame | None = None) -> bool:
    """warehouse/load.py load_run: one run in one transaction (False: it was stored already)."""
    return load.load_run(con, run, provider_runs, offers, facts, resources=resources())


def load_runs(con: duckdb.DuckDBPyConnection, runs) -> list[str]:
    """warehouse/load.py load_runs: many runs in one transaction (a backfill)."""
    return load.load_runs(con, runs, resources=resources())


def load_spooled(con: duckdb.DuckDBPyConnection, db_path: str | os.PathLike) -> list[dict]:
    """warehouse/spool.py load_spooled: every run spooled beside the warehouse, oldest first."""
    return spool.load_spooled(con, db_path, resources=resources())

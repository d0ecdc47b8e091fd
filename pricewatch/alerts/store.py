"""Warehouse access shared by the alert modules: the alert config, table checks, rows as dicts,
details as JSON."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

from pricewatch.record.config import AlertConfig, Config, load_config
from warehouse.sql_files import query_sql


def _alert_config(config) -> AlertConfig:
    if config is None:
        return load_config().alerts
    return config.alerts if isinstance(config, Config) else config


def sql(name: str) -> str:
    """The text of pricewatch/alerts/sql/<name>.sql (each file says what it produces; the one loader: warehouse/sql_files.py)."""
    return query_sql(name, package="pricewatch.alerts")


def _has(con, name: str) -> bool:
    """Whether the warehouse has table ``name`` (duckdb_tables(): a third of information_schema's cost)."""
    return bool(con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?",
                            [name]).fetchone()[0])


def _rows(con, sql: str, params=()) -> list[dict]:
    cur = con.execute(sql, list(params))
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _dumps(details: dict) -> str:
    def default(v):
        if isinstance(v, Decimal):
            return float(v)
        if isinstance(v, datetime):
            return v.isoformat()
        return str(v)
    return json.dumps(details, default=default, ensure_ascii=False)

"""Migrations: a new warehouse is built from the current state (warehouse/tables/tables.sql, the
numbered migrations it embodies recorded as applied); a warehouse that has migrations gets each
numbered warehouse/migrations/*.sql not yet recorded, each once in its own transaction and
recorded with the sha256 of its text, pending repair migrations first; then the repeatable views,
macros and comments (warehouse/repeatables.py) whose text changed. A recorded text that no longer
matches its file is a one-line warning. See docs/schema.md."""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

import duckdb

from warehouse import repeatables
from warehouse.repeatables import apply_repeatables
from warehouse.sql_files import read_sql, sql_files

log = logging.getLogger("pricewatch.warehouse")


def _migrations_dir() -> Path:
    """The migrations folder, looked up on warehouse.db at each call: that is the name callers
    (and tests, pointing it at a copy) set."""
    from warehouse import db
    return db.MIGRATIONS_DIR


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, text) of each numbered migration, in number order."""
    out = []
    for stem, sql in sql_files(_migrations_dir()).items():
        m = re.match(r"^(\d+)_(.+)$", stem)
        if m:
            out.append((int(m.group(1)), m.group(2), sql))
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


def tables_sql() -> tuple[str, int]:
    """The current tables (warehouse/tables/tables.sql) and the last numbered migration they
    embody (its `-- baseline: NNN` line)."""
    sql = read_sql(repeatables.SCHEMA_DIR / "tables" / "tables.sql")
    return sql, int(re.search(r"^-- baseline: (\d+)\s*$", sql, re.M).group(1))


def is_new(con: duckdb.DuckDBPyConnection) -> bool:
    """An empty database: no table or view (but perhaps an empty schema_migrations)."""
    objects = con.execute("""
        SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary
        UNION ALL
        SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal
          AND NOT temporary""").fetchall()
    if any(name != "schema_migrations" for (name,) in objects):
        return False
    return not objects or con.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == 0


def build_new(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Builds a new warehouse from the current state in one transaction: tables.sql, then each
    numbered migration up to its baseline recorded as applied (with the sha256 of its file, as
    if it had run). Returns those versions. The views, macros and comments follow (repeatables)."""
    sql, baseline = tables_sql()
    done = [(v, n, s) for v, n, s in migrations() if v <= baseline]
    con.execute("BEGIN")
    try:
        con.execute("DROP TABLE IF EXISTS schema_migrations")   # empty (is_new)
        con.execute(sql)
        for version, name, text in done:
            con.execute("INSERT INTO schema_migrations (version, name, sha256) VALUES (?, ?, ?)",
                        [version, name, migration_sha256(text)])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return [v for v, _, _ in done]


def migrate(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Brings the warehouse to the current schema and returns the versions of the numbered
    migrations recorded by this call, in the order applied: on a new file, those the baseline
    embodies (build_new), then any later ones; otherwise each pending one (apply_pending). Then
    the repeatables: all of them when a numbered migration was recorded, else those whose text
    changed (and the views and macros that read them)."""
    applied = build_new(con) if is_new(con) else []
    applied += apply_pending(con)
    repeated = apply_repeatables(con, force=bool(applied))
    if repeated and not applied:
        log.info("warehouse %s: applied again %s", _db_file(con), ", ".join(repeated))
    for line in changed_migrations(con):
        log.warning(line)
    where = _db_file(con)
    if not where.startswith("("):
        _MIGRATED[(where, str(_migrations_dir()))] = con.execute("SELECT count(*) FROM schema_migrations").fetchall()[0][0]
    return applied


def apply_pending(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Applies each numbered migration not yet recorded in schema_migrations, each in its own
    transaction, and returns their versions in the order applied.

    Order: a warehouse without migrations recorded gets every migration in number order. On a
    warehouse that already has migrations recorded, pending repair migrations (NNN_repair_*) run
    first: a landed migration was edited after some warehouses had applied it, and the later
    ones assume the edited shape. Each applied migration is recorded with the sha256 of its text
    (once the column exists, migration 020); a recorded text that no longer matches its file is
    logged as a warning (see changed_migrations), never an error: the warehouse is what it is."""
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
    return applied


# Databases this process has migrated with the migrations folder as it was then:
# (database file, migrations folder) -> number of migrations recorded after migrate().
_MIGRATED: dict[tuple[str, str], int] = {}


def ensure_migrated(con: duckdb.DuckDBPyConnection) -> list[int]:
    """migrate() once per process and database file: a load calls this, not migrate(), so the
    migration check (reading every migration file, hashing it, comparing) is paid once, not on
    every run. A file this process has not migrated, an in-memory database, or a database whose
    recorded migrations changed since (another process migrated it, or it was recreated) is
    migrated again."""
    where = _db_file(con)
    key = (where, str(_migrations_dir()))
    if where.startswith("(") or key not in _MIGRATED:
        return migrate(con)
    try:
        recorded = con.execute("SELECT count(*) FROM schema_migrations").fetchall()[0][0]
    except duckdb.CatalogException:
        recorded = -1
    if recorded != _MIGRATED[key]:
        return migrate(con)
    return []


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
            out.append(f"warehouse {where}: migration {label} was applied but its file is gone from {_migrations_dir()}")
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

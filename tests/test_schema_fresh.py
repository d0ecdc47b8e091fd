"""The schema in one place (issue 19): a new warehouse is built from the current state
(warehouse/tables/tables.sql, then the views, macros and comments of warehouse/views/,
warehouse/macros/ and the YAML beside them) and is the warehouse that replaying every numbered
migration gives, as migrate() did before: the same tables, columns, constraints, view and macro
texts, comments and seeded rows. Changing a view is an edit of its one file."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path

import duckdb
import pytest

from warehouse import db, migrate, repeatables
from warehouse.sql_files import query_sql, split_statements, statements

MIGRATIONS = Path(db.MIGRATIONS_DIR)


def replay(con, files: list[tuple[int, str, str]], ordered: bool = False) -> list[int]:
    """What migrate() did to a new warehouse before issue 19 (and what every commit's migrate()
    did): schema_migrations, then each file in number order (or in the order given) in its own
    transaction, recorded (with its sha256 once migration 020 added the column), the first that
    fails rolled back and the rest not applied. Returns the versions applied."""
    con.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())""")
    applied = {}
    for version, name, sql in (files if ordered else sorted(files)):
        con.execute("BEGIN")
        try:
            con.execute(sql)
            con.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, name])
            con.execute("COMMIT")
        except duckdb.Error:
            con.execute("ROLLBACK")
            break
        applied[version] = sql
    if any(r[1] == "sha256" for r in con.execute("PRAGMA table_info('schema_migrations')").fetchall()):
        for version, sql in applied.items():
            con.execute("UPDATE schema_migrations SET sha256 = ? WHERE version = ? AND sha256 IS NULL",
                        [migrate.migration_sha256(sql), version])
    return list(applied)


def catalog(con, comments: bool = True) -> dict:
    """Everything a warehouse's schema is, as DuckDB reports it (its own normalised SQL texts)."""
    def q(sql):
        return sorted((tuple(map(str, r)) for r in con.execute(sql).fetchall()))
    c = ", comment" if comments else ""
    return {
        "tables": q(f"SELECT table_name, sql{c} FROM duckdb_tables() WHERE NOT temporary"),
        "columns": q(f"""SELECT table_name, column_name, column_index, data_type, is_nullable, column_default{c}
                        FROM duckdb_columns() WHERE NOT internal
                          AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE NOT temporary)"""),
        "view_columns": q(f"SELECT table_name, column_name, data_type{c} FROM duckdb_columns() WHERE NOT internal "
                          "AND table_name IN (SELECT view_name FROM duckdb_views() WHERE NOT internal)"),
        "constraints": q("SELECT table_name, constraint_type, constraint_text, constraint_name, constraint_column_names "
                         "FROM duckdb_constraints()"),
        "views": q(f"SELECT view_name, sql{c} FROM duckdb_views() WHERE NOT internal AND NOT temporary"),
        "view_results": sorted((v, str(con.execute(f"DESCRIBE SELECT * FROM {v}").fetchall())) for (v,) in
                               con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()),
        "macros": q(f"SELECT function_name, function_type, parameters, macro_definition{c} FROM duckdb_functions() "
                    "WHERE NOT internal AND function_type LIKE '%macro%'"),
        "other": q("SELECT 'sequence', sequence_name FROM duckdb_sequences() UNION ALL SELECT 'index', index_name "
                   "FROM duckdb_indexes() UNION ALL SELECT 'type', type_name FROM duckdb_types() WHERE NOT internal"),
        "migrations": q("SELECT version, name FROM schema_migrations"),
        "settings": q("SELECT * FROM mart_settings") if con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'mart_settings'").fetchone()[0] else [],
    }


def fingerprint(cat: dict) -> str:
    return hashlib.sha256(json.dumps(cat, sort_keys=True).encode()).hexdigest()


@pytest.fixture(scope="module")
def fresh():
    """A new warehouse as migrate() builds it now (in memory)."""
    con = duckdb.connect()
    applied = migrate.migrate(con)
    yield con, applied
    con.close()


def comments(con) -> dict[tuple[str, str | None], str | None]:
    """Every comment: (object, None) for a table, view or macro, (object, column) for a column."""
    rows = con.execute("""
        SELECT table_name, NULL, comment FROM duckdb_tables()
        UNION ALL SELECT view_name, NULL, comment FROM duckdb_views() WHERE NOT internal
        UNION ALL SELECT DISTINCT function_name, NULL, comment FROM duckdb_functions()
                  WHERE NOT internal AND function_type LIKE '%macro%'
        UNION ALL SELECT table_name, column_name, comment FROM duckdb_columns() WHERE NOT internal""").fetchall()
    return {(o, c): text for o, c, text in rows}


# The comments and views the repeatables changed after the last numbered migration that wrote
# them (an edit of a comment or a view file after migration 056 is listed here, so what differs
# from the migrations' history stays visible): issue 19 moved the files these comments name.
EDITED_AFTER_THE_MIGRATIONS = {("offers_in_force_daily", None), ("gpu_aliases", "alias_key"), ("gpu_catalog", None), ("price_spells", "offer_key"),
                               ("resource_syncs", None), ("provider_runs", "status"),
                               ("latest_provider_runs", None), ("latest_provider_runs", "status"),
                               ("cited_offer_history", "input_status"),
                               ("cheapest_offer", None), ("cheapest_offer", "offers_compared"),
                               ("current_offers", "price_unit"), ("trusted_offers", "price_unit"),
                               ("latest_offers", "price_unit")}
# Issue 23 item 1: a price may be per GPU-second (migration 063, offers rebuilt; 064 restates its
# comments): the price_unit columns copied from offers say 'instance_hour | gpu_hour | gpu_second'.
# Migration 059 (issue 20): provider_runs.trusted, which these now read instead of status = 'ok'
# (and latest_provider_runs' pr.* lists the new column); their docs say so.
# Issue 23 item 3: each offer's comparable class (migration 062, the macro comparable_class):
# latest_offers carries it, cheapest_offer ranks within it, offer_price_history shows it.
EDITED_VIEWS: set[str] = {"cheapest_offer", "cheapest_offer_daily", "latest_offers", "latest_provider_runs", "offer_price_history", "offers_in_force_daily", "provider_price_index"}
EDITED_MACROS: set[str] = {"cheapest_offer_daily_after", "comparable_class", "daily_marts_in_force", "offers_in_force_between", "provider_price_index_after", "source_freshness_at"}
# Issue 24 item 2: macros added after the numbered migrations (no migration wrote their comments).
NEW_REPEATABLES: set[tuple] = {("offers_in_force_between", None)}


def test_a_new_warehouse_built_from_the_current_state_is_the_replay_of_every_migration(fresh):
    con, applied = fresh
    old = duckdb.connect()
    replayed = replay(old, migrate.migrations())
    assert applied == replayed == [v for v, _, _ in migrate.migrations()]
    a, b = catalog(old, comments=False), catalog(con, comments=False)
    # A view stores its column list when created: latest_claim_status (SELECT e.* of 029) was created
    # before 035 added two columns to claim_evaluations, so the replay's catalog does not list them
    # (a query returns them: view_results). Recreated after the tables, the new warehouse lists them,
    # documented as claim_evaluations' (same_as).
    late = {("latest_claim_status", "rules_version"), ("latest_claim_status", "trigger"),
            ("latest_provider_runs", "trusted"), ("latest_offers", "comparable_class"),
            ("cheapest_offer", "comparable_class"), ("offer_price_history", "form_factor"),
            ("offer_price_history", "comparable_class"),
            ("comparable_class", None)}  # and the macro comparable_class's comment (new in issue 23)
    # Migration 066 drops cheapest_offer_daily and provider_price_index (their old text cannot read the
    # rebuilt stored tables, issue 21 item 6 / issue 23 item 3): the repeatables create them, a replay has none
    late |= {r[:2] for r in b["view_columns"] if r[0] in ("cheapest_offer_daily", "provider_price_index")}
    # and their comments, with those of the macros they read (daily_marts_in_force new, the two *_after edited)
    late |= {(name, None) for name in ("cheapest_offer_daily", "provider_price_index", "daily_marts_in_force",
                                       "cheapest_offer_daily_after", "provider_price_index_after")}
    assert set(b["view_columns"]) - set(a["view_columns"]) == {r for r in b["view_columns"] if r[:2] in late}
    assert a["view_columns"] == [r for r in b["view_columns"] if r[:2] not in late]
    same_views = [r for r in a["views"] if r[0] not in EDITED_VIEWS]
    assert same_views == [r for r in b["views"] if r[0] not in EDITED_VIEWS]
    assert [r for r in a["macros"] if r[0] not in EDITED_MACROS] == [r for r in b["macros"] if r[0] not in EDITED_MACROS]
    edited = EDITED_VIEWS | EDITED_MACROS
    assert [r for r in a["view_results"] if r[0] not in edited] == [r for r in b["view_results"] if r[0] not in edited]
    for key in ("tables", "columns", "constraints", "other", "settings", "migrations"):
        assert a[key] == b[key], key
    # recorded as applied, each with the sha256 of its file, as the replay records them
    sha = "SELECT version, name, sha256 FROM schema_migrations ORDER BY 1"
    assert old.execute(sha).fetchall() == con.execute(sha).fetchall()
    seeded = "SELECT id, evaluated_through, evaluations, snapshot_through FROM claim_history_state"
    assert old.execute(seeded).fetchall() == con.execute(seeded).fetchall()
    # every comment the migrations wrote, but those edited since (and schema_repeatables', which
    # only warehouse/tables/schema.yaml writes, and the two late columns')
    was, now = comments(old), comments(con)
    new = {k for k in now if k[0] == "schema_repeatables"} | late | NEW_REPEATABLES
    assert {k for k in now if was.get(k) != now[k]} == EDITED_AFTER_THE_MIGRATIONS | new
    assert all(was[k] for k in EDITED_AFTER_THE_MIGRATIONS)
    # and the replay followed by the repeatables (what an upgrade does) is the new warehouse, whole
    migrate.migrate(old)
    assert catalog(old) == catalog(con)
    assert len(b["views"]) == 16 and len(b["macros"]) == 10 and len(b["tables"]) == 29
    old.close()


def test_every_view_and_macro_is_one_file_with_its_docs_beside_it(fresh):
    con, _ = fresh
    root = repeatables.SCHEMA_DIR
    views = {v for (v,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    macros = {m for (m,) in con.execute(
        "SELECT function_name FROM duckdb_functions() WHERE NOT internal AND function_type LIKE '%macro%'").fetchall()}
    assert {f.stem for f in (root / "views").glob("*.sql")} == views
    assert {f.stem for f in (root / "macros").glob("*.sql")} == macros
    for kind, names in (("views", views), ("macros", macros)):
        assert {f.stem for f in (root / kind).glob("*.yaml")} == names
    recorded = dict(((k, n), s) for k, n, s in con.execute("SELECT kind, name, sha256 FROM schema_repeatables").fetchall())
    assert recorded == {(r.kind, r.name): r.sha256 for r in repeatables.repeatables()}
    # a view comes after the views and macros it reads
    order = [r.name for r in repeatables.repeatables()]
    assert order.index("latest_offers") < order.index("offers_in_force_after")
    assert order.index("latest_offers") < order.index("daily_marts_in_force") < order.index("cheapest_offer_daily")


def test_migrate_again_applies_nothing(fresh, tmp_path):
    con, _ = fresh
    assert migrate.migrate(con) == []
    assert repeatables.apply_repeatables(con) == []


@pytest.fixture
def schema_copy(tmp_path, monkeypatch):
    """The schema folders copied, warehouse.repeatables pointed at the copy."""
    root = tmp_path / "schema"
    for folder in ("views", "macros", "tables"):
        shutil.copytree(repeatables.SCHEMA_DIR / folder, root / folder)
    monkeypatch.setattr(repeatables, "SCHEMA_DIR", root)
    return root


def test_changing_a_view_is_an_edit_of_its_file_applied_with_its_readers(schema_copy, caplog):
    con = duckdb.connect()
    migrate.migrate(con)
    view = schema_copy / "views" / "latest_offers.sql"
    view.write_text(view.read_text().replace("SELECT *, NULL::VARCHAR AS held_reading_reason FROM current_offers",
                                             "SELECT *, 'none'::VARCHAR AS held_reading_reason FROM current_offers"))
    with caplog.at_level(logging.INFO, logger="pricewatch.warehouse"):
        assert migrate.migrate(con) == []   # no numbered migration
    line = next(r.getMessage() for r in caplog.records if "applied again" in r.getMessage())
    again = line.split("applied again ")[1].split(", ")
    # the view, then each view and macro that reads it (directly or not), in order; nothing else
    assert again[0] == "view latest_offers" and "view cheapest_offer" in again and "macro offers_in_force_after" in again
    assert "view run_sequence" not in again and not any(a.startswith("table ") for a in again)
    assert "'none'" in con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'latest_offers'").fetchone()[0]
    comment = "SELECT comment FROM duckdb_columns() WHERE table_name = 'cheapest_offer' AND column_name = 'tier'"
    assert con.execute(comment).fetchone()[0]   # its comments applied again with it
    # a column's docs edited where they are written: every column that is same_as it follows
    tables = schema_copy / "tables" / "schema.yaml"
    text = tables.read_text()
    old = con.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'offers' AND column_name = 'tier'").fetchone()[0]
    assert text.count(old) == 1
    tables.write_text(text.replace(old, "the provider's tier (edited)"))
    migrate.migrate(con)
    assert con.execute(comment).fetchone()[0] == "the provider's tier (edited)"
    con.close()


def test_views_that_read_each_other_in_a_cycle_are_refused(schema_copy):
    (schema_copy / "views" / "run_sequence.sql").write_text(
        "CREATE OR REPLACE VIEW run_sequence AS SELECT * FROM latest_provider_runs;\n")
    (schema_copy / "views" / "latest_provider_runs.sql").write_text(
        "CREATE OR REPLACE VIEW latest_provider_runs AS SELECT * FROM run_sequence;\n")
    with pytest.raises(ValueError, match="cycle: latest_provider_runs, run_sequence"):
        repeatables.repeatables()


def test_one_loader_reads_the_sql_files_of_any_package():
    assert query_sql("load_offers") == (Path(db.__file__).parent / "sql" / "load_offers.sql").read_text()
    assert query_sql("001_core_tables", folder="migrations").startswith("--")
    assert statements("spells_advance_1_moves") == split_statements(query_sql("spells_advance_1_moves"))
    claims = pytest.importorskip("pricewatch.claims")
    name = sorted((Path(claims.__file__).parent / "sql").glob("*.sql"))[0]
    assert query_sql(name.stem, package="pricewatch.claims") == name.read_text()

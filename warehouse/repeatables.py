"""The repeatable part of the schema (as Flyway's repeatable migrations): every view
(warehouse/views/<view>.sql) and macro (warehouse/macros/<macro>.sql) holds its current
definition, its docs beside it (<name>.yaml: the object's comment and each column's), and the
comments of the tables come from warehouse/tables/schema.yaml. Each is applied after the
numbered migrations and again whenever the text it runs changes (its sha256 is recorded in
schema_repeatables), in dependency order; see docs/schema.md.

A column's docs are either `description: ...` or `same_as: <table or view>.<column>` (that
column's description): a text shared by several tables and views is written once."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from warehouse.sql_files import read_sql

SCHEMA_DIR = Path(__file__).resolve().parent   # views/, macros/, tables/ live here
KINDS = ("view", "macro")                      # folder = kind + "s"


@dataclass(frozen=True)
class Repeatable:
    kind: str                  # "table" (its comments only), "view" or "macro"
    name: str
    definition: str            # CREATE OR REPLACE ... ("" for a table: numbered migrations make those)
    comments: tuple[tuple[str | None, str], ...]   # (column or None for the object, text)
    requires: tuple[str, ...]  # the views and macros its definition reads
    table_macro: bool = False

    def comment_statements(self, only: set | None = None) -> list[str]:
        on = {"table": "TABLE", "view": "VIEW", "macro": "MACRO TABLE" if self.table_macro else "MACRO"}[self.kind]
        return [f"COMMENT ON {on} {self.name} IS {_quote(text)};" if column is None else
                f"COMMENT ON COLUMN {self.name}.{_ident(column)} IS {_quote(text)};"
                for column, text in self.comments if only is None or (column, text) in only]

    @property
    def sql(self) -> str:
        """What is run: the definition (views, macros), then the comments."""
        return self.definition + "\n".join(self.comment_statements()) + "\n"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.sql.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _yaml(path: Path) -> dict:
    return yaml.load(path.read_text("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


def _docs(root: Path) -> dict[str, dict]:
    """Every documented object by name: {"kind", "description", "columns": [(name, entry)]},
    from tables/schema.yaml and each views/*.yaml, macros/*.yaml."""
    out: dict[str, dict] = {}
    files = [(root / "tables" / "schema.yaml", "tables", "table")]
    files += [(f, kind + "s" if kind == "macro" else "models", kind)
              for kind in KINDS for f in sorted((root / f"{kind}s").glob("*.yaml"))]
    for path, key, kind in files:
        for entry in _yaml(path).get(key) or []:
            if entry["name"] in out:
                raise ValueError(f"{path}: {entry['name']} is documented twice")
            out[entry["name"]] = {"kind": kind, "description": entry.get("description"), "file": path,
                                  "columns": [(c["name"], c) for c in entry.get("columns") or []]}
    return out


def _column_text(docs: dict[str, dict], owner: str, entry: dict) -> str:
    if "same_as" not in entry:
        return entry["description"]
    table, _, column = entry["same_as"].partition(".")
    target = dict(docs.get(table, {}).get("columns", [])).get(column)
    if target is None or "description" not in target:
        raise ValueError(f"{owner}.{entry['name']}: same_as {entry['same_as']} names no described column")
    return target["description"]


def _comments(docs: dict[str, dict], name: str) -> tuple[tuple[str | None, str], ...]:
    """One object's comments: (None, its own), then (column, text) for each column."""
    doc = docs[name]
    own = [(None, doc["description"])] if doc["description"] is not None else []
    return tuple(own + [(column, _column_text(docs, name, entry)) for column, entry in doc["columns"]])


_CREATE = re.compile(r"^\s*CREATE\s+OR\s+REPLACE\s+(VIEW|MACRO)\s+(\w+)", re.I | re.M)
_NOISE = re.compile(r"'(?:[^']|'')*'|--[^\n]*")


def _references(sql: str, names: set[str], own: str) -> tuple[str, ...]:
    words = set(re.findall(r"\b\w+\b", _NOISE.sub(" ", sql)))
    return tuple(sorted((words & names) - {own}))


def _order(items: list[Repeatable]) -> list[Repeatable]:
    """Table comments first, then views and macros, each after those it reads (ties by name)."""
    by_name = {r.name: r for r in items}
    done: list[Repeatable] = []
    placed: set[str] = set()
    pending = sorted(items, key=lambda r: (r.kind != "table", r.name))
    while pending:
        ready = [r for r in pending if all(d in placed for d in r.requires)]
        if not ready:
            raise ValueError("views/macros read each other in a cycle: " + ", ".join(r.name for r in pending))
        first = ready[0]
        done.append(first)
        placed.add(first.name)
        pending.remove(first)
    assert len(done) == len(by_name)
    return done


def _stamp(root: Path) -> tuple:
    files = [root / "tables" / "schema.yaml"] + [f for k in KINDS for f in sorted((root / f"{k}s").iterdir())]
    return tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)


def repeatables(root: Path | None = None) -> list[Repeatable]:
    """Every repeatable of the schema folder, in the order they are applied."""
    root = Path(root or SCHEMA_DIR)
    return list(_load(root, _stamp(root)))


@lru_cache(maxsize=8)
def _load(root: Path, _stamp: tuple) -> tuple[Repeatable, ...]:
    docs = _docs(root)
    defs: dict[str, tuple[str, str]] = {}
    for kind in KINDS:
        for f in sorted((root / f"{kind}s").glob("*.sql")):
            sql = read_sql(f).strip() + "\n"
            m = _CREATE.search(sql)
            if not m or m.group(1).lower() != kind or m.group(2) != f.stem:
                raise ValueError(f"{f}: must hold CREATE OR REPLACE {kind.upper()} {f.stem}")
            if docs.get(f.stem, {}).get("kind") != kind:
                raise ValueError(f"{f}: no docs for {kind} {f.stem} in {f.with_suffix('.yaml')}")
            defs[f.stem] = (kind, sql)
    names = set(defs)
    out = [Repeatable("table", n, "", _comments(docs, n), ()) for n, d in docs.items() if d["kind"] == "table"]
    for name, (kind, sql) in defs.items():
        table_macro = kind == "macro" and bool(re.search(r"\)\s*AS\s+TABLE\b", sql, re.I))
        out.append(Repeatable(kind, name, sql, _comments(docs, name), _references(sql, names, name), table_macro))
    undefined = [n for n, d in docs.items() if d["kind"] != "table" and n not in defs]
    if undefined:
        raise ValueError(f"docs for views/macros with no .sql file: {', '.join(undefined)}")
    return tuple(_order(out))


def _recorded(con) -> dict[tuple[str, str], str] | None:
    try:
        return {(k, n): s for k, n, s in con.execute("SELECT kind, name, sha256 FROM schema_repeatables").fetchall()}
    except Exception:   # before migration 057 (a migrations folder without it)
        return None


def _table_comments(con) -> dict[tuple[str, str | None], str | None]:
    """The comments the tables carry now: (table, None) and (table, column) -> text."""
    out = {(t, None): c for t, c in con.execute(
        "SELECT table_name, comment FROM duckdb_tables() WHERE database_name = current_database()").fetchall()}
    out.update({(t, col): c for t, col, c in con.execute(
        "SELECT table_name, column_name, comment FROM duckdb_columns() WHERE database_name = current_database() "
        "AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database())").fetchall()})
    return out


def apply_repeatables(con, force: bool = False, root: Path | None = None) -> list[str]:
    """Applies, in one transaction, each repeatable whose text changed since it was recorded (or
    never was), every view and macro that reads one of them, or all of them when force (numbered
    migrations ran: a rebuilt table drops its comments, a restated view is restated again).
    Returns "<kind> <name>" of each applied, in order."""
    items = repeatables(root)
    recorded = _recorded(con)
    todo = {r.name for r in items if force or recorded is None or recorded.get((r.kind, r.name)) != r.sha256}
    for r in items:   # in order: a reader comes after what it reads
        if any(d in todo for d in r.requires):
            todo.add(r.name)
    gone = [] if recorded is None else [k for k in recorded if k not in {(r.kind, r.name) for r in items}]
    if not todo and not gone:
        return []
    applied = []
    con.execute("BEGIN")
    try:
        current = _table_comments(con) if any(r.kind == "table" and r.name in todo for r in items) else {}
        for r in items:
            if r.name in todo:
                if r.kind == "table":   # only the comments that differ (a migration rebuilt or altered it)
                    differ = {c for c in r.comments if current.get((r.name, c[0])) != c[1]}
                    if differ:
                        con.execute("\n".join(r.comment_statements(differ)))
                else:
                    con.execute(r.sql)
                applied.append(f"{r.kind} {r.name}")
                if recorded is not None:
                    con.execute("INSERT OR REPLACE INTO schema_repeatables (kind, name, sha256, applied_at) "
                                "VALUES (?, ?, ?, now())", [r.kind, r.name, r.sha256])
        for kind, name in gone:   # its file was removed: dropping the object is a numbered migration's job
            con.execute("DELETE FROM schema_repeatables WHERE kind = ? AND name = ?", [kind, name])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return applied

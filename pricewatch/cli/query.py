"""`pricewatch query`: a read-only connection that cannot write, attach, copy out or change
settings, the check that every statement only reads, and the results as a table, CSV or JSON."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Optional

from rich.console import Console

from pricewatch.cli.tools import cell, fail, open_read_only, query_wait_s

# Statement kinds a query may run (duckdb StatementType names). DESCRIBE, SHOW, SUMMARIZE, FROM
# and WITH ... SELECT parse as SELECT.
QUERY_STATEMENTS = {"SELECT", "EXPLAIN", "PRAGMA"}
# PRAGMAs that only read (anything else, e.g. enable_profiling, is a setting).
READ_PRAGMAS = {"table_info", "show_tables", "show_tables_expanded", "show_databases", "database_list",
                "database_size", "storage_info", "metadata_info", "version", "platform", "functions",
                "collations", "user_agent", "show"}


def sql_text(sql: Optional[str], file: Optional[Path]) -> str:
    """The SQL to run: the argument, the file of -f, or standard input ('-', or no argument with
    something piped in). Exactly one source; refuses (exit 2) an empty or missing one."""
    if file is not None and sql not in (None, ""):
        fail("give the SQL as an argument or with -f FILE, not both")
    if file is not None:
        try:
            sql = Path(file).read_text(encoding="utf-8")
        except OSError as exc:
            fail(f"-f {file}: cannot read it ({exc.strerror or exc})")
    elif sql == "-" or (sql is None and not sys.stdin.isatty()):
        sql = sys.stdin.read()
    if sql is None:
        fail("no SQL given: pricewatch query 'SELECT ...', -f FILE, or SQL on standard input")
    if not sql.strip():
        fail("no SQL statement given (the text is empty)")
    return sql


def open_query_connection(path: Optional[Path]):
    """Read-only, and sandboxed: no file access besides the warehouse itself (no ATTACH of
    another file, no COPY TO, no read_csv('/etc/...'), no INSTALL/LOAD), and the
    configuration locked so a statement cannot switch that back."""
    con = open_read_only(path, wait_s=query_wait_s())
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def refused_statement(con, sql: str) -> Optional[str]:
    """Why the query is refused, or None: every statement must be a read (see
    QUERY_STATEMENTS / READ_PRAGMAS). A second layer over the sandboxed connection."""
    statements = con.extract_statements(sql)  # raises the parser's error for bad SQL
    if not statements:
        return "no SQL statement given"
    for st in statements:
        kind = st.type.name
        text = (st.query or "").strip()
        if kind == "EXPLAIN":
            inner = re.sub(r"^\s*EXPLAIN\s+(ANALY[SZ]E\s+)?", "", text, flags=re.I)
            why = refused_statement(con, inner) if inner and inner != text else None
            if why:
                return why
            continue
        if kind == "PRAGMA":
            m = re.match(r"\s*PRAGMA\s+([A-Za-z_]+)", text, flags=re.I)
            if m and m.group(1).lower() in READ_PRAGMAS:
                continue
            name = m.group(1) if m else text
            return f"PRAGMA {name} is not allowed (only PRAGMAs that read, e.g. table_info)"
        if kind not in QUERY_STATEMENTS:
            word = text.split(None, 1)[0].upper() if text else kind
            return f"{word if word.isalpha() and word != 'WITH' else kind} statements are not allowed"
    return None


# --- query results for people: every statement, wide tables folded, never cut headers ------

def print_results(con, sql: str, fmt: str, expanded: bool = False, pager: bool = False) -> None:
    """Runs every statement of `sql` and prints each result. table: one table per statement
    (titled when there are several), each column at least as wide as its header; a result too
    wide for the terminal is shown as records (one "column  value" block per row, like psql's
    \\x); --pager pages it. csv/json take one statement (several would not be one document)."""
    statements = con.extract_statements(sql)
    if len(statements) > 1 and fmt != "table":
        fail(f"--format {fmt} takes one statement; got {len(statements)} (run them one at a time, "
             "or use --format table to see every result)")
    if fmt == "csv":
        sys.stdout.write(con.execute(statements[0]).df().to_csv(index=False))
        return
    if fmt == "json":
        sys.stdout.write(con.execute(statements[0]).df().to_json(orient="records", date_format="iso", date_unit="s",
                                                                 force_ascii=False) + "\n")
        return
    frames = []
    for st in statements:
        cur = con.execute(st)
        frames.append((st.query.strip().rstrip(";").strip(), [d[0] for d in cur.description], cur.fetchall()))
    out = Console(width=max(120, Console().width))
    if pager:
        with out.pager(styles=True):
            _print_frames(out, frames, expanded)
    else:
        _print_frames(out, frames, expanded)


def _print_frames(out: Console, frames, expanded: bool) -> None:
    from rich.measure import Measurement
    from rich.table import Table
    for i, (text, columns, values) in enumerate(frames, 1):
        if len(frames) > 1:
            out.print(cell(f"[{i}/{len(frames)}] {' '.join(text.split())}", max_len=160, max_lines=1),
                      style="bold", soft_wrap=True)
        title = None
        headers = [cell(c, max_len=80, max_lines=1) for c in columns]
        rows = [[_shown(v) for v in row] for row in values]
        # A column is never narrower than its header; values fold. Too wide even so: records.
        table = Table()
        for h in headers:
            table.add_column(h, min_width=len(h), overflow="fold")
        for r in rows:
            table.add_row(*r)
        unbounded = out.options.update(width=10**6, max_width=10**6)
        if expanded or Measurement.get(out, unbounded, table).minimum > out.width:
            _print_records(out, title, headers, rows, forced=expanded)
            continue
        out.print(table)
        out.print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})", style="dim")


def _print_records(out: Console, title, headers, rows, forced: bool = False) -> None:
    from rich.table import Table
    if title:
        out.print(title, style="bold")
    width = max((len(h) for h in headers), default=0)
    for n, r in enumerate(rows, 1):
        out.rule(f"row {n}", align="left", style="dim")
        grid = Table.grid(padding=(0, 2))
        grid.add_column(min_width=width, style="bold", no_wrap=True)
        grid.add_column(overflow="fold")
        for h, v in zip(headers, r):
            grid.add_row(h, v)
        out.print(grid)
    why = "" if forced else f": too wide for {out.width} columns"
    out.print(f"({len(rows)} row{'s' if len(rows) != 1 else ''}, shown as records{why})", style="dim")


def _shown(v) -> str:
    """A value as people read it: NULL empty, decimals without trailing zeros, ISO times."""
    from datetime import date, datetime
    from decimal import Decimal
    if v is None:
        return ""
    if isinstance(v, Decimal):
        return cell(f"{v.normalize():f}" if v.is_finite() else str(v))
    if isinstance(v, datetime):
        return cell(v.isoformat(sep=" "))
    if isinstance(v, date):
        return cell(v.isoformat())
    return cell(v)



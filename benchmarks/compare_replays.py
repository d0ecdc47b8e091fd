"""Two replays' outputs compared: every table and view of two warehouses (rows sorted, the
columns that hold wall-clock times or random ids left out), their comments and macros, and the
report files beside them, byte for byte. How a change that should move nothing is shown to move
nothing (issue 19):

    git archive <before> | tar -x -C /tmp/before
    (cd /tmp/before && PYTHONPATH=. ../main/.venv/bin/python -m pricewatch.cli run --replay captures)
    .venv/bin/pricewatch run --replay captures
    .venv/bin/python benchmarks/compare_replays.py /tmp/before/data data

Prints the differing lines (``-`` before, ``+`` after) and exits 1 when there are any."""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

import duckdb

#: Columns whose values are the time a row was written, a duration or a random id.
WALL = re.compile(r"^(flow_run_id|evaluated_through|applied_at|created_at|updated_at|synced_at|refreshed_at|"
                  r"evaluated_at|delivered_at|started_at|finished_at|acked_at|duration_s|sha256|as_of|age_hours|"
                  r"last_attempt_at|is_stale)$")


def dump(path: Path) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    out = []
    for name, kind in con.execute("SELECT table_name, table_type FROM information_schema.tables "
                                  "WHERE table_schema = 'main' ORDER BY table_name").fetchall():
        cols = [r[0] for r in con.execute(f'DESCRIBE "{name}"').fetchall()]
        keep = ", ".join(f'"{c}"' for c in cols if not WALL.match(c))
        rows = con.execute(f'SELECT {keep} FROM "{name}"').fetchall()
        out.append(f"== {name} ({kind}) {cols} {len(rows)} rows")
        out += sorted(repr(r) for r in rows)
    out += [repr(r) for r in con.execute(
        "SELECT table_name, comment FROM duckdb_tables() WHERE schema_name = 'main' UNION ALL "
        "SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal ORDER BY 1").fetchall()]
    out += [repr(r) for r in con.execute("SELECT table_name, column_name, comment FROM duckdb_columns() "
                                         "WHERE schema_name = 'main' ORDER BY 1, 2").fetchall()]
    out += [repr(r) for r in con.execute("SELECT function_name, function_type FROM duckdb_functions() "
                                         "WHERE schema_name = 'main' AND NOT internal ORDER BY 1").fetchall()]
    con.close()
    return out


def main(before: str, after: str) -> int:
    a, b = Path(before), Path(after)
    diff = [line for line in difflib.unified_diff(dump(a / "pricewatch.duckdb"), dump(b / "pricewatch.duckdb"),
                                                  "before", "after", lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    reports = sorted({p.name for p in (a / "report").iterdir()} | {p.name for p in (b / "report").iterdir()})
    for name in reports:
        x, y = a / "report" / name, b / "report" / name
        if not (x.exists() and y.exists() and x.read_bytes() == y.read_bytes()):
            diff.append(f"report {name}: differs")
    print("\n".join(diff) if diff else f"same: every table, view, comment and {len(reports)} report files")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))

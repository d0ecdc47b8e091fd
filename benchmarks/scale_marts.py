"""Every analyst view and mart of a warehouse, materialised in full as bench_scale.py's
`materialise` does (CREATE TEMP TABLE AS SELECT *), medians of interleaved repeats (issue 11
must-show 2: each under 250 ms at 10M offer rows, growth 1M -> 10M no worse than linear).

    .venv/bin/python benchmarks/scale_marts.py /path/to/copy.duckdb [--repeat 5] [--migrate]

Open a COPY of a prebuilt warehouse (bench_scale.py --keep DIR), never the master: --migrate
applies the pending migrations first (what a user's warehouse runs). bench_marts(con, repeat)
is what bench_scale.py calls on its own connection.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def user_views(con) -> list[str]:
    return [v for (v,) in con.execute("""SELECT view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary
                                         AND database_name = current_database() AND schema_name = 'main'
                                         ORDER BY 1""").fetchall()]


def materialise(con, view: str) -> int:
    con.execute(f"CREATE OR REPLACE TEMP TABLE bench_marts_out AS SELECT * FROM {view}")
    n = con.execute("SELECT count(*) FROM bench_marts_out").fetchone()[0]
    con.execute("DROP TABLE bench_marts_out")
    return n


def bench_marts(con, repeat: int = 5, views: list[str] | None = None) -> dict[str, float]:
    """Median seconds to materialise each view in full (every user view unless `views`), the
    repeats interleaved (round r times every view once), after one warm-up round."""
    views = views or user_views(con)
    times: dict[str, list[float]] = {v: [] for v in views}
    for v in views:
        materialise(con, v)
    for _ in range(repeat):
        for v in views:
            t = time.perf_counter()
            materialise(con, v)
            times[v].append(time.perf_counter() - t)
    return {v: statistics.median(ts) for v, ts in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--migrate", action="store_true", help="apply pending migrations first (on a copy)")
    ap.add_argument("--views", nargs="*", help="only these views")
    args = ap.parse_args()
    import duckdb

    con = duckdb.connect(args.db)
    con.execute("SET memory_limit = '3GB'")
    con.execute("SET threads = 2")
    if args.migrate:
        from warehouse import db
        t = time.perf_counter()
        db.migrate(con)
        print(f"migrate: {time.perf_counter() - t:.2f} s")
    rows = {v: materialise(con, v) for v in (args.views or user_views(con))}
    times = bench_marts(con, args.repeat, list(rows))
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.repeat}")
    print("| view | rows | ms |\n|---|---|---|")
    for v, s in sorted(times.items(), key=lambda kv: -kv[1]):
        print(f"| `{v}` | {rows[v]:,} | {s * 1000:,.0f} |")
    con.close()


if __name__ == "__main__":
    main()

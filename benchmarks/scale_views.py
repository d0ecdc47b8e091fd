"""Every view, macro, the claims evaluation and the alert derivation of a warehouse, each as a
ratio to a plain copy of the table it reads, measured in the same process and interleaved (issue
24 must-show 1): round r runs every item and every floor once, after one warm-up round; figures
are medians of wall and CPU time (time.process_time: all of DuckDB's threads), with the load
average when the rounds ended.

    .venv/bin/python benchmarks/scale_views.py COPY.duckdb PAST_RUN LAST_RUN [--repeat 5]

Open a COPY of a prebuilt warehouse (bench_scale.py --keep DIR prints the run ids), never the
master: the claims are evaluated as of PAST_RUN and deleted again, the alerts derived for
LAST_RUN rolled back. A view is materialised in full (CREATE TEMP TABLE AS SELECT *, as
benchmarks/scale_marts.py does); a table macro likewise, over the last MACRO_DAYS days; a scalar
macro is selected once. A floor is its table copied whole the same way (or, for the claims and
the alerts, the run's own offers read from offers): no read of it can be cheaper.
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

MACRO_DAYS = 30
FLOOR_OF = {   # what each view reads most of: its floor
    "offer_price_history": "price_spells", "price_changes": "price_spells", "offers_in_force_daily": "price_spells",
    "latest_offers": "current_offers", "cheapest_offer": "current_offers", "held_offers": "current_offers",
    "held_offer_decisions": "current_offers", "latest_provider_runs": "provider_runs",
    "source_freshness": "provider_runs", "run_sequence": "runs",
    "cheapest_offer_daily": "cheapest_offer_daily_stored", "provider_price_index": "provider_price_index_stored",
    "claim_history": "claim_evaluations", "latest_claim_status": "claim_evaluations",
    "cited_offer_history": "claim_inputs", "gpu_catalog_with_aliases": "gpu_catalog",
}
TABLE_MACROS = {   # name: (its arguments, its floor); {since}/{until}: the first and last day measured
    "offers_in_force_between": ("DATE '{since}', DATE '{until}'", "price_spells"),
    "offers_in_force_after": ("DATE '{since}' - 1", "price_spells"),
    "cheapest_offer_daily_after": ("DATE '{since}' - 1", "price_spells"),
    "provider_price_index_after": ("DATE '{since}' - 1", "price_spells"),
    "source_freshness_at": ("(SELECT max(observed_at) FROM runs), NULL", "provider_runs"),
    "claim_history_computed": ("true", "claim_evaluations"),
}
SCALAR_MACROS = {
    "claim_history_valid": ("SELECT claim_history_valid()", "claim_evaluations"),
    "daily_marts_valid_through": ("SELECT daily_marts_valid_through()", "runs"),
    "comparable_class": ("SELECT count(DISTINCT comparable_class(gpu_model, form_factor)) FROM current_offers",
                         "current_offers"),
}
RUN_FLOOR = "the run's offers (from offers)"


def materialise(con, source: str) -> int:
    con.execute(f"CREATE OR REPLACE TEMP TABLE bench_views_out AS SELECT * FROM {source}")
    n = con.execute("SELECT count(*) FROM bench_views_out").fetchone()[0]
    con.execute("DROP TABLE bench_views_out")
    return n


def _names(con, function: str, kind_filter: str) -> list[str]:
    return [n for (n,) in con.execute(f"""SELECT DISTINCT {function} FROM {kind_filter}
                                            AND database_name = current_database() AND schema_name = 'main'
                                            ORDER BY 1""").fetchall()]


def items(con, past_run: str, last_run: str) -> tuple[dict, dict]:
    """(name -> (fn, floor name, what to count its rows of)), (floor name -> fn): every view, every macro this module knows,
    the claims and the alerts; and the floors they name."""
    from benchmarks.scale_claims import claim_steps
    since, until = con.execute(f"""SELECT max(snapshot_date) - {MACRO_DAYS - 1}, max(snapshot_date)
                                   FROM runs""").fetchone()
    views = _names(con, "view_name", "duckdb_views() WHERE NOT internal AND NOT temporary")
    macros = set(_names(con, "function_name", "duckdb_functions() WHERE function_type IN ('macro', 'table_macro')"))
    out: dict = {}
    for v in views:
        out[f"view {v}"] = (lambda v=v: materialise(con, v), FLOOR_OF.get(v), v)
    for m, (args, floor) in TABLE_MACROS.items():
        if m in macros:
            call = f"{m}({args.format(since=since, until=until)})"
            out[f"macro {m}, last {MACRO_DAYS} days" if "since" in args else f"macro {m}"] = (
                lambda call=call: materialise(con, call), floor, call)
    for m, (query, floor) in SCALAR_MACROS.items():
        if m in macros:
            out[f"macro {m}"] = (lambda query=query: con.execute(query).fetchall(), floor, None)
    for name, fn in claim_steps(con, past_run, last_run).items():
        out[name] = (fn, RUN_FLOOR, None)
    floors = {t: (lambda t=t: materialise(con, t)) for t in sorted({f for _, f, _ in out.values() if f and f != RUN_FLOOR})}
    floors[RUN_FLOOR] = lambda: con.execute("SELECT * FROM offers WHERE run_id = ?", [last_run]).fetchall()
    return out, floors


def bench_views(con, past_run: str, last_run: str, repeat: int = 5) -> dict:
    """Median wall and CPU ms of every item and floor, interleaved; each item's rows (a view's or
    table macro's), its floor and the ratio of their wall times. Returns {"items": ..., "floors":
    ..., "load_average": ...}."""
    work, floors = items(con, past_run, last_run)
    every = {**{k: v[:2] for k, v in work.items()}, **{f"floor {k}": (fn, None) for k, fn in floors.items()}}
    walls: dict[str, list[float]] = {k: [] for k in every}
    cpus: dict[str, list[float]] = {k: [] for k in every}
    first: dict[str, float] = {}
    for k, (fn, _) in every.items():     # warm-up round: the first call of the process, apart
        t = time.perf_counter()
        fn()
        first[k] = (time.perf_counter() - t) * 1000
    for _ in range(repeat):
        for k, (fn, _) in every.items():
            c, t = time.process_time(), time.perf_counter()
            fn()
            walls[k].append((time.perf_counter() - t) * 1000)
            cpus[k].append((time.process_time() - c) * 1000)
    med = {k: {"ms": statistics.median(walls[k]), "cpu_ms": statistics.median(cpus[k]), "first_ms": first[k]}
           for k in every}
    result: dict = {"items": {}, "floors": {}, "load_average": os.getloadavg(), "repeat": repeat,
                    "macro_days": MACRO_DAYS}
    for k, (_, floor, source) in work.items():
        row = dict(med[k], floor=floor, rows=materialise(con, source) if source else None)
        if floor:
            row["ratio"] = med[k]["ms"] / med[f"floor {floor}"]["ms"]
        result["items"][k] = row
    for k in floors:
        result["floors"][k] = dict(med[f"floor {k}"], rows=None if k == RUN_FLOOR else
                                   con.execute(f"SELECT count(*) FROM {k}").fetchone()[0])
    return result


def table(result: dict) -> str:
    """The result as a Markdown table, slowest first."""
    lines = ["| what | rows | ms | CPU ms | floor | floor ms | ratio |", "|---|---:|---:|---:|---|---:|---:|"]
    for k, r in sorted(result["items"].items(), key=lambda kv: -kv[1]["ms"]):
        f = result["floors"].get(r["floor"]) if r["floor"] else None
        rows = "" if r["rows"] is None else f"{r['rows']:,}"
        lines.append(f"| {k} | {rows} | {r['ms']:,.0f} | {r['cpu_ms']:,.0f} | {r['floor'] or '-'} | "
                     f"{f['ms']:,.0f} | {r['ratio']:.1f}x |" if f else
                     f"| {k} | {rows} | {r['ms']:,.0f} | {r['cpu_ms']:,.0f} | - | | |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("past_run")
    ap.add_argument("last_run")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    from warehouse import db, migrate
    con = db.connect(a.db)
    con.execute("SET memory_limit = '3GB'")
    migrate.migrate(con)
    offers = con.execute("SELECT count(*) FROM offers").fetchone()[0]
    res = bench_views(con, a.past_run, a.last_run, a.repeat)
    con.close()
    print(f"{offers:,} offer rows; medians of {a.repeat} interleaved rounds; load average "
          f"{res['load_average'][0]:.2f} / {res['load_average'][1]:.2f} / {res['load_average'][2]:.2f}")
    print(table(res))


if __name__ == "__main__":
    main()

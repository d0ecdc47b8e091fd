"""The warehouse at scale (issues 11 and 24): synthetic histories of N offer rows in each shape
(benchmarks/scale_history.py: a run every 15 minutes of 50 sources, or one run a night of 30),
every view, macro, the claims evaluation and the alert derivation on them, each against the plain
copy of its table in the same process (benchmarks/scale_views.py), the nightly load
(benchmarks/scale_load.py) and a backfill.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 1000000 10000000] [--shapes nightly 15min]
        [--repeat 5] [--no-backfill] [--pk] [--template PICKLE] [--keep DIR]

Each shape and size is built in its own process (peak memory is that process's), in DuckDB SQL,
from a template of the offers of every shipped capture (one replay crawl each: the slow part;
--template reuses the pickle an earlier invocation printed). Figures (medians of --repeat
interleaved rounds, wall and CPU ms, with the load average):
  * every view and macro, the claims evaluation as of a past run, derive_alerts for the latest
    run, each with its floor (scale_views.py);
  * one nightly run loaded after the history vs the raw INSERT of its offers (scale_load.py);
  * a backfill (load_runs, one transaction) vs a raw INSERT of the same rows into the same table,
    and a row-by-row insert (executemany) of a sample;
  * the build's own steps, file size, peak RSS and, with --pk, what a PRIMARY KEY on offers costs.
Prints one Markdown table per shape (docs/benchmarks.md quotes them); the raw figures go to
$TMPDIR/bench_scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.scale_history import (  # noqa: E402 (the checkout first on sys.path)
    N_PROVIDERS,
    OFFERS_PER_PROVIDER,
    SHAPES,
    STEP,
    build,
    prepare,
    template_offers,
)

MEMORY_LIMIT = os.environ.get("BENCH_MEMORY_LIMIT", "8GB")   # DuckDB spills beyond it (shared 24 GiB machine)


def one_size(n_rows: int, repeat: int, tmpl_path: Path, shape: str, pk: bool = False) -> dict:
    """One warehouse of n_rows offer rows of `shape`, built in this process, and every figure of it."""
    import pandas as pd

    from benchmarks.scale_views import bench_views
    from warehouse import db, migrate

    path = Path(tempfile.mkdtemp(prefix="bench-scale-")) / "scale.duckdb"
    con = db.connect(path)
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    migrate.migrate(con)
    out: dict = {"size": n_rows}
    out.update(build(con, pd.read_pickle(tmpl_path), n_rows, shape))
    out.update(prepare(con))
    out["build_cpu_s"] = time.process_time()
    if keep := os.environ.get("BENCH_KEEP"):      # --keep: the built warehouse, for measuring by hand
        import shutil
        con.close()
        dest = Path(keep) / f"scale-{shape}-{n_rows}.duckdb"
        shutil.copyfile(path, dest)
        path.unlink()
        return {**out, "kept": str(dest)}
    out["views"] = bench_views(con, out["past_run"], out["last_run"], repeat)
    con.execute("CHECKPOINT")
    con.close()
    from benchmarks.scale_load import (
        bench_nightly_load,  # its own connection, on this file
    )
    out["nightly"] = bench_nightly_load(path, max(repeat, 7))
    out["file_mb"] = path.stat().st_size / 1e6
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if pk:
        out["pk"] = pk_cost(path)
    path.unlink()
    return out


def nightly_frames(con, n: int, providers: int = 5):
    """A new run of `providers` real-shaped providers (1,500 offers), after the history."""
    import pandas as pd

    last, step = con.execute("SELECT max(observed_at), max(observed_at) - (SELECT observed_at FROM runs "
                             "ORDER BY observed_at DESC LIMIT 1 OFFSET 1) FROM runs").fetchone()
    at = last + (step or STEP)          # the history's own cadence: the next night, or 15 minutes on
    run_id = f"bench-nightly-{n:03d}"
    offers = con.execute(f"""
        SELECT ? AS run_id, * EXCLUDE (run_id, observed_at), ?::TIMESTAMPTZ AS observed_at FROM offers
        WHERE run_id = (SELECT max(run_id) FROM runs WHERE run_id LIKE 'bench-0%')
          AND provider IN (SELECT DISTINCT provider FROM offers WHERE provider LIKE 'synthetic_%' ORDER BY 1 LIMIT {providers})
        """, [run_id, at]).df()
    offers = offers.drop(columns=["held_reason", "screen_note"])
    pr = pd.DataFrame([{"run_id": run_id, "provider": p, "status": "ok", "observed_at": at, "item_count": int(c),
                        "priced_count": int(c), "unpriced_count": 0, "duplicates_dropped": 0, "http_error_count": 0,
                        "retries": 0, "attempts": 1, "duration_s": 1.0, "unknown_labels": [], "warnings": [],
                        "monitors": [], "error": None} for p, c in offers.groupby("provider").size().items()])
    run = {"run_id": run_id, "mode": "replay", "observed_at": at, "snapshot_date": at.date(), "started_at": at,
           "finished_at": at, "status": "ok", "replay_source": None, "flow_run_id": None, "summary": "bench"}
    from warehouse import load
    return run, pr, offers[load.OFFER_COLUMNS[:-3] + ["price_raw"]]


def pk_cost(path: Path) -> dict:
    """What a PRIMARY KEY (run_id, provider, offer_key) on offers would cost (migration 027 dropped
    it): the warehouse's offers copied into two fresh files, without and with the key, side by
    side: each file's size and the time of the insert."""
    import duckdb
    out = {}
    for name, key in (("without", False), ("with", True)):
        copy = path.with_name(f"offers-{name}-pk.duckdb")
        con = duckdb.connect(str(copy))
        con.execute("SET enable_progress_bar = false")
        con.execute(f"ATTACH '{path}' AS src (READ_ONLY)")
        con.execute("CREATE TABLE offers AS SELECT * FROM src.offers LIMIT 0")
        if key:
            con.execute("ALTER TABLE offers ADD PRIMARY KEY (run_id, provider, offer_key)")
        t = time.perf_counter()
        con.execute("INSERT INTO offers SELECT * FROM src.offers")
        con.execute("CHECKPOINT")
        out[f"insert_s_{name}_pk"] = time.perf_counter() - t
        con.execute("DETACH src")
        con.close()
        out[f"file_mb_{name}_pk"] = copy.stat().st_size / 1e6
        copy.unlink()
    return out


def bench_backfill(tmpl_path: Path, n_runs: int, repeat: int) -> dict:
    """load_runs (one transaction) of n_runs nightly runs of 1,500 offers vs a raw INSERT of the
    same rows into the same table (a fresh file each), and executemany of a sample."""
    import pandas as pd

    from pricewatch.collect import store
    from warehouse import db, load, migrate, spells
    tmpl = pd.read_pickle(tmpl_path)
    base = None
    results = {"backfill_s": [], "raw_s": [], "rebuild_s": [], "rows": 0}
    for _ in range(repeat):
        work = Path(tempfile.mkdtemp(prefix="bench-backfill-"))
        con = db.connect(work / "gen.duckdb")
        migrate.migrate(con)
        build(con, tmpl, n_runs * N_PROVIDERS * OFFERS_PER_PROVIDER)
        five = [p for (p,) in con.execute("SELECT DISTINCT provider FROM offers WHERE provider LIKE 'synthetic_%' "
                                          "ORDER BY 1 LIMIT 5").fetchall()]
        runs = []
        for (run_id,) in con.execute("SELECT run_id FROM runs ORDER BY observed_at").fetchall():
            run = con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id]).df().to_dict("records")[0]
            pr = con.execute("SELECT * FROM provider_runs WHERE run_id = ? AND list_contains(?, provider)",
                             [run_id, five]).df()
            offers = con.execute("SELECT * FROM offers WHERE run_id = ? AND list_contains(?, provider)",
                                 [run_id, five]).df()
            runs.append((run, pr, offers))
        con.close()
        all_offers = pd.concat([r[2] for r in runs], ignore_index=True)[load.OFFER_COLUMNS]
        results["rows"] = len(all_offers)
        con = db.connect(work / "raw.duckdb")
        migrate.migrate(con)
        t = time.perf_counter()
        con.execute("BEGIN")
        con.execute("INSERT INTO offers BY NAME SELECT * FROM all_offers")
        con.execute("COMMIT")
        results["raw_s"].append(time.perf_counter() - t)
        if base is None:
            sample = all_offers.head(2000)
            cols = load.OFFER_COLUMNS
            con.execute("DELETE FROM offers")
            t = time.perf_counter()
            con.execute("BEGIN")
            con.executemany(f"INSERT INTO offers ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                            [[None if pd.isna(v) else v for v in row] for row in sample.itertuples(index=False)])
            con.execute("COMMIT")
            base = (time.perf_counter() - t) / len(sample)
        con.close()
        warm = db.connect(work / "warm.duckdb")   # the first load of a process reads the spider classes
        migrate.migrate(warm)                          # and the catalog (~1 s): not the backfill's cost
        store.load_runs(warm, runs[:3])
        warm.close()
        con = db.connect(work / "backfill.duckdb")
        migrate.migrate(con)
        t = time.perf_counter()
        store.load_runs(con, runs)
        results["backfill_s"].append(time.perf_counter() - t)
        # the set-based rebuild of the batch's spells alone (warehouse/sql/spells_rebuild.sql), on the stored rows
        con.execute("BEGIN")
        t = time.perf_counter()
        spells.rebuild(con, five)
        results["rebuild_s"].append(time.perf_counter() - t)
        con.execute("ROLLBACK")
        con.close()
    return {"runs": n_runs, "rows": results["rows"], "backfill_s": statistics.median(results["backfill_s"]),
            "raw_s": statistics.median(results["raw_s"]), "row_by_row_s": base * results["rows"],
            "spells_rebuild_s": statistics.median(results["rebuild_s"])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--backfill-runs", type=int, default=200)
    ap.add_argument("--no-backfill", action="store_true", help="skip the backfill figure")
    ap.add_argument("--pk", action="store_true", help="also what a PRIMARY KEY on offers would cost (slow)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--shape", choices=list(SHAPES), help=argparse.SUPPRESS)
    ap.add_argument("--template", help="the template of an earlier invocation (its replays are the slow part)")
    ap.add_argument("--backfill", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--keep", metavar="DIR", help="only build each warehouse and keep it in DIR "
                    "(scale-SHAPE-N.duckdb; the past and latest run ids printed), for measuring by hand")
    args = ap.parse_args()
    if args.keep:
        os.environ["BENCH_KEEP"] = str(Path(args.keep).resolve())
    if args.one:
        print(json.dumps(one_size(args.one, args.repeat, Path(args.template), args.shape, args.pk), default=str))
        return
    if args.backfill:
        print(json.dumps(bench_backfill(Path(args.template), args.backfill_runs, args.repeat)))
        return
    if args.template:
        tmpl_path = Path(args.template)
    else:
        work = Path(tempfile.mkdtemp(prefix="bench-scale-tmpl-"))
        tmpl_path = work / "template.pkl"
        template_offers(work).to_pickle(tmpl_path)
        print(f"template: {tmpl_path}", file=sys.stderr)
    me = [sys.executable, __file__, "--template", str(tmpl_path), "--repeat", str(args.repeat)] + (["--pk"] if args.pk else [])
    results = []
    for shape in args.shapes:        # each warehouse in its own process: peak memory is that process's
        for n in args.sizes:
            t = time.perf_counter()
            res = subprocess.run(me + ["--one", str(n), "--shape", shape], capture_output=True, text=True, env=os.environ)
            if res.returncode:
                raise SystemExit(f"{shape} {n}: failed\n{res.stderr[-3000:]}")
            results.append({**json.loads(res.stdout.splitlines()[-1]), "process_s": time.perf_counter() - t})
            print(f"{shape} {n:,}: {results[-1]['process_s']:.0f} s", file=sys.stderr)
    if args.keep:
        print(json.dumps(results, indent=1, default=str))
        return
    backfill = None if args.no_backfill else json.loads(subprocess.run(
        me + ["--backfill", "--backfill-runs", str(args.backfill_runs)], check=True, capture_output=True,
        text=True).stdout.splitlines()[-1])
    raw = Path(tempfile.gettempdir()) / "bench_scale.json"
    raw.write_text(json.dumps({"sizes": results, "backfill": backfill}, default=str, indent=1))
    print(f"raw figures: {raw}", file=sys.stderr)
    report(results, backfill)


def report(results: list[dict], backfill: dict | None) -> None:
    """One Markdown table per shape: each item's wall ms (CPU ms) and its ratio to its floor at
    each size, the growth of the wall time from the first size to the last, and of the rows."""
    for shape in dict.fromkeys(r["shape"] for r in results):
        rs = [r for r in results if r["shape"] == shape]
        print(f"\n{shape}: " + "; ".join(
            f"{r['offers']:,} offer rows ({r['runs']:,} runs of ~{r['offers_per_run']:,}, built in {r['process_s']:.0f} s "
            f"with its figures; load average at the end {r['views']['load_average'][0]:.1f})" for r in rs))
        head = " | ".join(f"{r['offers'] / 1e6:.1f}M: ms (CPU), x floor" for r in rs)
        print(f"\n| what | floor | {head} | growth (rows) |\n|---|---|" + "---:|" * len(rs) + "---|")
        for k, item in rs[-1]["views"]["items"].items():
            cells = []
            for r in rs:
                i = r["views"]["items"].get(k)
                cells.append("-" if i is None else f"{i['ms']:,.0f} ({i['cpu_ms']:,.0f})" +
                             (f", {i['ratio']:.1f}x" if i.get("ratio") else ""))
            a, b = rs[0]["views"]["items"].get(k), item
            growth = f"{b['ms'] / a['ms']:.1f}x" if a else "-"
            if a and a.get("rows") and b.get("rows"):
                growth += f" ({b['rows'] / a['rows']:.1f}x)"
            print(f"| {k} | {item['floor'] or '-'} | " + " | ".join(cells) + f" | {growth} |")
        for f in rs[-1]["views"]["floors"]:
            print(f"| floor: {f} | | " + " | ".join(
                f"{r['views']['floors'][f]['ms']:,.0f} ({r['views']['floors'][f]['cpu_ms']:,.0f})"
                + (f", {r['views']['floors'][f]['rows']:,} rows" if r['views']['floors'][f]['rows'] is not None else "")
                for r in rs) + " | |")
        for what, key in (("one nightly run loaded, ms", "load_ms"), ("  its CPU ms", "load_cpu_ms"),
                          ("  raw INSERT + COMMIT of its offers, ms", "raw_ms")):
            print(f"| {what} | | " + " | ".join(f"{r['nightly'].get(key) or 0:.0f}" for r in rs) + " | |")
        for what, fmt in (("generate the history in SQL", lambda r: f"{r['generate_s']:.1f} s"),
                          ("spells and latest offers rebuilt", lambda r: f"{r['spells_backfill_s']:.1f} s"),
                          ("stored marts refreshed", lambda r: f"{r['marts_refresh_s']:.1f} s"),
                          ("claim evaluations / inputs stored", lambda r: f"{r['claim_evaluations']:,} / {r['claim_inputs']:,}"),
                          ("warehouse file", lambda r: f"{r['file_mb']:.0f} MB"),
                          ("peak RSS", lambda r: f"{r['peak_rss_mb']:.0f} MB")):
            print(f"| {what} | | " + " | ".join(fmt(r) for r in rs) + " | |")
        if all("pk" in r for r in rs):
            print("| offers alone, no key / with PRIMARY KEY: file | | " + " | ".join(
                f"{r['pk']['file_mb_without_pk']:.0f} / {r['pk']['file_mb_with_pk']:.0f} MB" for r in rs) + " | |")
    if backfill:
        b = backfill
        print(f"\nBackfill of {b['runs']} runs ({b['rows']:,} offers): load_runs {b['backfill_s']:.2f} s "
              f"({b['rows'] / b['backfill_s']:,.0f} offers/s) vs raw INSERT {b['raw_s']:.2f} s "
              f"({b['rows'] / b['raw_s']:,.0f} offers/s): {100 * b['raw_s'] / b['backfill_s']:.0f} % of raw; "
              f"row by row (executemany, extrapolated) {b['row_by_row_s']:.1f} s.")


if __name__ == "__main__":
    main()

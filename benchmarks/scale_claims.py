"""The claims and the alerts at scale (issue 11 must-show 2): every claim evaluated as of a past
run, what the claims read (Snapshot), derive_alerts for the latest run and latest_claim_status,
on a warehouse built by bench_scale.py (--keep DIR keeps one per size).

    .venv/bin/python benchmarks/scale_claims.py COPY.duckdb PAST_RUN LAST_RUN [--repeat 5]
        [--baseline OLD_CHECKOUT [--baseline-db OTHER_COPY.duckdb]] [--checkout NEW_CHECKOUT]

COPY is modified (and put back: the past run's evaluations are deleted after each evaluation,
the alerts rolled back), so measure a copy, never a master. With --baseline, each repeat runs
once in a fresh process per checkout, interleaved (old, new, old, new, ...), so both see the
same machine load; figures are medians, with the CPU time of the process and the load average.
--baseline-db gives the old checkout its own copy (each checkout migrates its copy to its own
schema). PAST_RUN / LAST_RUN: bench_scale.py --keep prints them (past_run, last_run).
``bench_claims(con, past_run, last_run, repeat)`` is what bench_scale.py calls.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(fn, repeat: int) -> dict:
    walls, cpus = [], []
    for _ in range(repeat):
        c, t = time.process_time(), time.perf_counter()
        fn()
        walls.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - c) * 1000)
    return {"ms": statistics.median(walls), "cpu_ms": statistics.median(cpus), "runs": walls}


def claim_steps(con, past_run: str, last_run: str) -> dict:
    """What bench_claims times, each a function of no argument that leaves the warehouse as it
    found it: evaluate_claims as of past_run (a run not yet evaluated; its rows deleted after
    each call), the Snapshot it reads, derive_alerts for last_run (rolled back) and SELECT * FROM
    latest_claim_status (benchmarks/scale_views.py times them beside the views)."""
    from pricewatch.alerts.derive import derive_alerts
    from pricewatch.claims import rules as R
    from pricewatch.claims.evaluate import evaluate_claims
    from pricewatch.claims.snapshot import Snapshot
    from pricewatch.record.config import AlertConfig
    from warehouse import migrate

    migrate.migrate(con)
    rules = R.cached_rules()
    try:
        from pricewatch.claims.evaluator import interest
        snap_interest = interest(rules)
    except ImportError:            # a checkout from before issue 11's claims work: all offers
        snap_interest = None

    def evaluate():
        try:
            evaluate_claims(con, past_run)
        finally:
            con.execute("DELETE FROM claim_inputs WHERE run_id = ?", [past_run])
            con.execute("DELETE FROM claim_evaluations WHERE run_id = ?", [past_run])

    def alerts():
        con.execute("BEGIN")
        try:
            derive_alerts(con, last_run, AlertConfig())
        finally:
            con.execute("ROLLBACK")

    def snapshot():
        return Snapshot(con, past_run) if snap_interest is None else Snapshot(con, past_run, snap_interest)

    def status():
        return con.execute("SELECT * FROM latest_claim_status").fetchall()

    assert not con.execute("SELECT count(*) FROM claim_evaluations WHERE run_id = ?", [past_run]).fetchone()[0], \
        f"{past_run} is already evaluated: pick a past run the history has not evaluated"
    return {"evaluate_claims (past run)": evaluate, "Snapshot (past run)": snapshot,
            "derive_alerts (latest run)": alerts, "latest_claim_status": status}


def bench_claims(con, past_run: str, last_run: str, repeat: int = 5) -> dict:
    """Median wall (and CPU) ms of each of claim_steps. Warm: one untimed call of each first."""
    from pricewatch.claims import rules as R
    steps = claim_steps(con, past_run, last_run)
    out = {"offers": con.execute("SELECT count(*) FROM offers").fetchone()[0],
           "claim_evaluations": con.execute("SELECT count(*) FROM claim_evaluations").fetchone()[0],
           "claims": len(R.cached_rules().claims), "times": {}}
    for name, fn in steps.items():
        first = _timed(fn, 1)["ms"]          # the first call of the process: cold caches
        out["times"][name] = {**_timed(fn, repeat), "first_ms": first}
    return out


def _one(path: str, past: str, last: str, repeat: int) -> dict:
    from warehouse import db
    con = db.connect(path)
    con.execute("SET memory_limit = '3GB'")
    con.execute("SET threads = 2")
    try:
        return bench_claims(con, past, last, repeat)
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("past_run")
    ap.add_argument("last_run")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline", help="a checkout of the code before (measured interleaved with --checkout)")
    ap.add_argument("--baseline-db", help="the baseline's own copy of the warehouse (default: the same copy)")
    ap.add_argument("--checkout", default=str(ROOT), help="the code measured (default: this one)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child or not a.baseline:
        print(json.dumps(_one(a.db, a.past_run, a.last_run, 1 if a.child else a.repeat)))
        return
    samples: dict[str, list[dict]] = {"baseline": [], "new": []}
    loads = []
    for _ in range(a.repeat):
        for label, tree, path in (("baseline", a.baseline, a.baseline_db or a.db), ("new", a.checkout, a.db)):
            env = {**os.environ, "PYTHONPATH": tree}
            res = subprocess.run([sys.executable, str(Path(__file__).resolve()), path, a.past_run, a.last_run,
                                  "--child"], cwd=tree, env=env, capture_output=True, text=True)
            if res.returncode:
                raise SystemExit(f"{label} ({tree}) failed:\n{res.stderr[-3000:]}")
            samples[label].append(json.loads(res.stdout.strip().splitlines()[-1]))
            loads.append(os.getloadavg()[0])
    first = samples["new"][0]
    print(f"{first['offers']:,} offer rows, {first['claim_evaluations']:,} claim evaluations, {first['claims']} claims; "
          f"{a.repeat} interleaved repeats, load average {min(loads):.1f}-{max(loads):.1f} (median {statistics.median(loads):.1f})")
    print("| what | before: ms (CPU ms) | after: ms (CPU ms) | ratio | first call of a process: before / after |")
    print("|---|---:|---:|---:|---:|")
    for name in first["times"]:
        med = {k: [statistics.median(s["times"][name][f] for s in v) for f in ("ms", "cpu_ms", "first_ms")]
               for k, v in samples.items()}
        b, n = med["baseline"], med["new"]
        print(f"| {name} | {b[0]:,.0f} ({b[1]:,.0f}) | {n[0]:,.0f} ({n[1]:,.0f}) | {b[0] / n[0]:.1f}x "
              f"| {b[2]:,.0f} / {n[2]:,.0f} |")


if __name__ == "__main__":
    main()

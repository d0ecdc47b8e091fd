"""Cheap loads at scale (issue 11 must-show 3, issue 24 item 3): one nightly run loaded into a big
warehouse, where each millisecond goes, and a backfill against a raw INSERT of the same rows.

    # a warehouse of one shape (benchmarks/scale_history.py: 15min or nightly) and size, kept
    .venv/bin/python benchmarks/scale_load.py build nightly 10000000 /tmp/wh/nightly-10000000.duckdb
    # the loads of the nightly shape (every load the first of a new day) or of the 15-minute one
    .venv/bin/python benchmarks/scale_load.py nightly /tmp/wh/nightly-10000000.duckdb --repeat 9
    .venv/bin/python benchmarks/scale_load.py nightly /tmp/wh/15min-10000000.duckdb --repeat 9 [--new-day]
    # one nightly run (1,500 offers) loaded N times into a copy of a prebuilt warehouse
    .venv/bin/python benchmarks/scale_load.py nightly /work/bench/scale-1000000.duckdb [--repeat 9]
    # the same, interleaved with the code of another checkout (the baseline), in the same run
    .venv/bin/python benchmarks/scale_load.py nightly WAREHOUSE --against /path/to/old/checkout --rounds 5
    # a backfill (load_runs, one transaction) vs a raw INSERT of the same rows
    .venv/bin/python benchmarks/scale_load.py backfill [--runs 200] [--repeat 3]
    # what a nightly run's process pays: open the warehouse, load one run, close it (checkpoint)
    .venv/bin/python benchmarks/scale_load.py process /work/bench/scale-10000000.duckdb [--repeat 9]
    # validating one nightly run's offers: one by one vs the whole batch in one pydantic call
    .venv/bin/python benchmarks/scale_load.py validation /work/bench/scale-1000000.duckdb

bench_nightly_load(path, repeat), bench_backfill(tmpl_path, n_runs, repeat) and
bench_validation(path) are what benchmarks/bench_scale.py calls. Each figure is a median; the nightly one also gives the mean
(an automatic checkpoint at COMMIT, when the WAL passes DuckDB's checkpoint_threshold, lands
on one load in several) and the time of every statement of one load.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_scale import nightly_frames  # noqa: E402 (this folder on the path first)


def _connect(path):
    from warehouse import db
    con = db.connect(path)
    con.execute("SET memory_limit = '3GB'")   # shared machine: several 10M copies may be open
    con.execute("SET threads = 2")
    return con


class StatementTimer:
    """A connection that times each statement it runs (execute, register, fetch): where the
    milliseconds of one load go. Only for measuring: it wraps the real connection."""

    def __init__(self, con):
        self.con, self.times = con, collections.defaultdict(list)

    def _timed(self, label, fn, *args):
        t = time.perf_counter()
        out = fn(*args)
        self.times[label].append((time.perf_counter() - t) * 1000)
        return out

    def execute(self, sql, params=None):
        label = " ".join(line for line in sql.splitlines() if not line.strip().startswith("--"))
        name = next((line.split(":")[0].strip("- ") for line in sql.splitlines() if line.startswith("-- ")), None)
        label = name or " ".join(label.split())[:80]
        self._timed(label, self.con.execute, *((sql,) if params is None else (sql, params)))
        return self

    def register(self, name, frame):
        self._timed(f"register {name}", self.con.register, name, frame)
        return self

    def unregister(self, name):
        self._timed(f"unregister {name}", self.con.unregister, name)
        return self

    def fetchall(self):
        return self._timed("(fetch)", self.con.fetchall)

    def fetchone(self):
        return self._timed("(fetch)", self.con.fetchone)

    def df(self):
        return self._timed("(fetch as DataFrame)", self.con.df)

    def __getattr__(self, name):
        return getattr(self.con, name)


def _moved(frames, at):
    """A run's frames (bench_scale.py nightly_frames) observed at `at` instead."""
    run, pr, offers = frames
    run = run | {"observed_at": at, "snapshot_date": at.date(), "started_at": at, "finished_at": at}
    return run, pr.assign(observed_at=at), offers.assign(observed_at=at)


def full_night(con, n: int):
    """Every provider of the history's latest run (real and synthetic) as one new run, the next step
    on: what the load of a whole night reads and writes."""
    run, pr, offers = nightly_frames(con, n, providers=1000)
    real = con.execute("""SELECT * EXCLUDE (run_id, observed_at, held_reason, screen_note) FROM offers
                          WHERE run_id = (SELECT max(run_id) FROM runs WHERE run_id LIKE 'bench-0%')
                            AND provider NOT LIKE 'synthetic_%'""").df()
    real = real.assign(run_id=run["run_id"], observed_at=run["observed_at"])[offers.columns]
    offers = pd.concat([offers, real], ignore_index=True)
    counts = offers.groupby("provider").size()
    pr = pd.concat([pr, pr.iloc[[0] * (len(counts) - len(pr))]], ignore_index=True).assign(
        provider=list(counts.index), item_count=list(counts.values), priced_count=list(counts.values))
    return run, pr, offers


def bench_nightly_load(path, repeat: int = 9, profile: bool = True, checkpoint: bool = True,
                       settle_night: bool = True, new_day: bool = False) -> dict:
    """Loads `repeat` nightly runs (5 providers x 300 offers, after the history) one after another
    into the warehouse at `path` (it is changed: pass a copy), each timed, and a raw INSERT of
    each run's offers (BEGIN, INSERT, COMMIT) interleaved with them, and the same rows appended from a
    DuckDB temp table (the floor: no DataFrame scan, INSERT and COMMIT timed apart); then one more load with
    every statement timed. checkpoint: a CHECKPOINT (timed apart) after each load and after each
    raw insert, as a nightly run's own process does when it closes the warehouse; without it the
    loads pile up WAL and in-memory update versions until DuckDB's automatic checkpoint lands on
    one of them. settle_night: first one whole night (every provider of the history's latest run) through
    the load, as a warehouse the product has loaded has had: the generator's set-based spell rebuild
    leaves the open spells in every row group, where the loads move them to the end
    (spells.py RELOCATE_ROW_GROUPS). new_day: each run is the first of a new snapshot day (the
    load that stores the daily marts' completed day; at a nightly cadence every load is one).
    Returns milliseconds, and the process's CPU milliseconds (time.process_time) of each load."""
    from pricewatch.collect import store
    from warehouse import (  # first: bench_scale puts this checkout on sys.path
        load,
        migrate,
    )
    con = _connect(path)
    migrate.migrate(con)
    store.load_run(con, *nightly_frames(con, 999))       # warm: the first load of a process reads the catalog
    if settle_night:
        store.load_run(con, *full_night(con, 998))
    loads, raws, floors, checkpoints, cpu = [], [], [], [], []   # cpu: the process's CPU time (all threads), less
                                                      # sensitive than wall time to other jobs on the cores

    def settle():
        if checkpoint:
            t = time.perf_counter()
            con.execute("CHECKPOINT")
            checkpoints.append((time.perf_counter() - t) * 1000)
    def next_run(con, i):
        frames = nightly_frames(con, i)
        if not new_day:
            return frames
        last = con.execute("SELECT max(observed_at) FROM runs").fetchone()[0]
        return _moved(frames, pd.Timestamp(last.date() + timedelta(days=1), tz="UTC").to_pydatetime()
                      + timedelta(minutes=5))
    settle()
    for i in range(repeat):
        run, pr, offers = next_run(con, i)
        t, c = time.perf_counter(), time.process_time()
        store.load_run(con, run, pr, offers)
        loads.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        settle()
        raw = offers.assign(run_id=run["run_id"] + "-raw", held_reason=None, screen_note=None)[load.OFFER_COLUMNS]
        t = time.perf_counter()
        con.execute("BEGIN")
        con.execute("INSERT INTO offers BY NAME SELECT * FROM raw")
        con.execute("COMMIT")
        raws.append((time.perf_counter() - t) * 1000)
        settle()
        # the floor without the DataFrame scan: the same rows appended from a DuckDB table
        con.execute("CREATE OR REPLACE TEMP TABLE bench_floor AS SELECT * REPLACE (run_id || '-floor' AS run_id) FROM raw")
        t = time.perf_counter()
        con.execute("BEGIN")
        con.execute("INSERT INTO offers BY NAME SELECT * FROM bench_floor")
        t_insert = time.perf_counter()
        con.execute("COMMIT")
        floors.append(((t_insert - t) * 1000, (time.perf_counter() - t_insert) * 1000))
        settle()
    out = {"offers": len(offers), "loads": len(loads), "checkpoint_between": checkpoint,
           "load_ms": statistics.median(loads), "load_mean_ms": statistics.fmean(loads),
           "load_all_ms": [round(x, 1) for x in loads], "load_cpu_ms": statistics.median(cpu),
           "load_cpu_all_ms": [round(x, 1) for x in cpu], "settled": settle_night, "new_day": new_day,
           "raw_ms": statistics.median(raws),
           "floor_insert_ms": statistics.median(f[0] for f in floors),
           "floor_commit_ms": statistics.median(f[1] for f in floors),
           "checkpoint_ms": statistics.median(checkpoints) if checkpoints else None}
    if profile:
        timer = StatementTimer(con)
        run, pr, offers = next_run(con, repeat)
        t = time.perf_counter()
        store.load_run(timer, run, pr, offers)
        total = (time.perf_counter() - t) * 1000
        steps = {k: round(sum(v), 2) for k, v in sorted(timer.times.items(), key=lambda kv: -sum(kv[1]))}
        out["profile"] = {"total_ms": round(total, 2),
                          "statements": sum(len(v) for k, v in timer.times.items() if not k.startswith("(fetch")),
                          "python_ms": round(total - sum(steps.values()), 2), "steps_ms": steps}
    con.close()
    return out


def bench_nightly_process(path, repeat: int = 9) -> dict:
    """What a nightly run's own process pays for its load, as pricewatch runs it: open the
    warehouse, load the run, close it (DuckDB checkpoints on close), `repeat` times in a row on the
    warehouse at `path` (it is changed: pass a copy). The first load is reported apart: on a
    prebuilt warehouse it may move its providers' latest spells together (spells.py
    RELOCATE_ROW_GROUPS), once. Returns milliseconds."""
    from pricewatch.collect import store
    from warehouse import migrate
    sys.path.insert(0, str(HERE))
    from bench_scale import nightly_frames
    con = _connect(path)
    migrate.migrate(con)
    frames = [nightly_frames(con, 500 + i) for i in range(1)]
    con.close()
    opened, loaded, closed, total = [], [], [], []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        con = _connect(path)
        t1 = time.perf_counter()
        run, pr, offers = frames[0] if i == 0 else nightly_frames(con, 500 + i)
        t2 = time.perf_counter()
        store.load_run(con, run, pr, offers)
        t3 = time.perf_counter()
        con.close()
        t4 = time.perf_counter()
        opened.append((t1 - t0) * 1000)
        loaded.append((t3 - t2) * 1000)
        closed.append((t4 - t3) * 1000)
        total.append((t4 - t3 + t3 - t2 + t1 - t0) * 1000)
    return {"first": {"open_ms": round(opened[0], 1), "load_ms": round(loaded[0], 1), "close_ms": round(closed[0], 1)},
            "open_ms": statistics.median(opened[1:]), "load_ms": statistics.median(loaded[1:]),
            "close_ms": statistics.median(closed[1:]), "total_ms": statistics.median(total[1:]),
            "total_all_ms": [round(x, 1) for x in total[1:]]}


def bench_validation(path, repeat: int = 30) -> dict:
    """What validating one nightly run's offers costs (judge.judge_crawl: every item an
    OfferRecord), one by one as the crawl judge does, against the whole batch in one pydantic
    call (TypeAdapter(list[OfferRecord])), and the judge and build_run around them. Items of the
    nightly run's shape, read from the warehouse at `path` (read only). Returns milliseconds
    (minimum and median of `repeat`)."""
    from datetime import datetime, timezone

    from pydantic import TypeAdapter

    from pricewatch.collect import judge
    from pricewatch.collect.crawl_process import CrawlResult
    from pricewatch.record.offer import OfferRecord
    from warehouse import db
    sys.path.insert(0, str(HERE))
    from bench_scale import nightly_frames
    con = db.connect(path, read_only=True)
    _, _, offers = nightly_frames(con, 0)
    con.close()
    items = []
    for r in offers.to_dict("records"):
        priced = bool(r["is_priced"])
        items.append({k: r[k] for k in ("provider", "offer_key", "gpu_label", "gpu_model", "form_factor", "billing",
                                         "tier", "region", "currency", "price_unit", "price_raw")}
                     | {"gpu_count": int(r["gpu_count"]), "vram_gb": float(r["vram_gb"]), "self_service": bool(r["self_service"]),
                        "is_priced": priced, "price_per_hour": float(r["price_per_hour"]) if priced else None,
                        "price_per_gpu_hour": float(r["price_per_gpu_hour"]) if priced else None,
                        "price_text": None if priced else r["price_text"],
                        "capture": {k: r[k] for k in ("warc_file", "warc_record_id", "body_sha256", "source_url")}
                        | {"captured_at": "2026-11-30T02:15:00+00:00"}})
    batch = TypeAdapter(list[OfferRecord])
    crawl = CrawlResult(provider="bench", returncode=0, items=items, report={"http_status_counts": {"200": 1}},
                        duration_s=1.0)
    judged = judge.judge_crawl(crawl)
    assert judged.status in ("ok", "suspect"), judged.error
    now = datetime.now(timezone.utc)

    def one_by_one():
        for item in items:
            OfferRecord.model_validate(item)
    cases = {"model_validate one by one": one_by_one,
             "TypeAdapter(list[OfferRecord]) on the batch": lambda: batch.validate_python(items),
             "judge_crawl (validation, monitors, crawl findings)": lambda: judge.judge_crawl(crawl),
             "build_run (the run's frames)": lambda: judge.build_run([judged], "replay", now, None, None)}
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(repeat):
        for name, fn in cases.items():       # interleaved
            t = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t) * 1000)
    return {"items": len(items)} | {k: {"min_ms": round(min(v), 2), "median_ms": round(statistics.median(v), 2)}
                                    for k, v in times.items()}


def bench_backfill(tmpl_path, n_runs: int = 200, repeat: int = 3) -> dict:
    """load_runs of n_runs nightly runs (one transaction) vs a raw INSERT of the same rows into
    the same table, side by side (benchmarks/bench_scale.py bench_backfill)."""
    sys.path.insert(0, str(HERE))
    from bench_scale import bench_backfill as backfill
    return backfill(Path(tmpl_path), n_runs, repeat)


def _one_process(tree: Path, master: Path, repeat: int, checkpoint: bool = True, settle: bool = True,
                 new_day: bool = False) -> dict:
    """bench_nightly_load in a fresh process running the code of `tree`, on a fresh copy."""
    work = Path(tempfile.mkdtemp(prefix="scale-load-"))
    copy = work / "copy.duckdb"
    shutil.copyfile(master, copy)
    os.chmod(copy, 0o644)
    code = (f"import sys, json; sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(HERE)!r}); "
            f"import scale_load; print(json.dumps(scale_load.bench_nightly_load({str(copy)!r}, {repeat}, "
            f"checkpoint={checkpoint!r}, settle_night={settle!r}, new_day={new_day!r})))")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              cwd=str(tree), env={**os.environ, "PYTHONPATH": str(tree)})
    except subprocess.CalledProcessError as exc:
        raise SystemExit(exc.stderr[-3000:]) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return json.loads(done.stdout.splitlines()[-1])


def build_warehouse(shape: str, n_rows: int, out: Path, template: Path | None = None) -> dict:
    """A warehouse of `shape` and about `n_rows` offer rows at `out`, generated as the scale
    benchmarks generate theirs (benchmarks/scale_history.py build, then prepare without claims:
    the spells, latest offers and stored marts), wall and CPU seconds."""
    import scale_history
    from warehouse import migrate
    if template is None:
        work = Path(tempfile.mkdtemp(prefix="scale-load-tmpl-"))
        scale_history.template_offers(work).to_pickle(template := work / "template.pkl")
    t, c = time.perf_counter(), time.process_time()
    con = _connect(out)
    migrate.migrate(con)
    info = scale_history.build(con, pd.read_pickle(template), n_rows, shape=shape)
    info |= scale_history.prepare(con, claims=False)
    con.close()
    return info | {"wall_s": round(time.perf_counter() - t, 1), "cpu_s": round(time.process_time() - c, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    bw = sub.add_parser("build", help="generate a warehouse of one shape and size")
    bw.add_argument("shape", choices=["15min", "nightly"])
    bw.add_argument("rows", type=int)
    bw.add_argument("out", type=Path)
    bw.add_argument("--template", type=Path, help="a template pickle of the shipped captures' offers (else built)")
    n = sub.add_parser("nightly")
    n.add_argument("warehouse", type=Path, help="a prebuilt warehouse (read only: each process loads into a copy)")
    n.add_argument("--repeat", type=int, default=9, help="loads per process")
    n.add_argument("--rounds", type=int, default=1, help="processes per checkout, interleaved")
    n.add_argument("--against", type=Path, help="another checkout (the baseline) measured in the same run")
    n.add_argument("--no-checkpoint", action="store_true", help="no CHECKPOINT between loads (the WAL piles up)")
    n.add_argument("--new-day", action="store_true", help="each run the first of a new snapshot day (the load "
                   "that stores the daily marts' completed day; every load of a nightly history is one)")
    n.add_argument("--no-settle", action="store_true", help="no whole night loaded first (the open spells stay "
                   "where the generator's rebuild put them)")
    pp = sub.add_parser("process", help="open, load one nightly run, close: what a run's process pays")
    pp.add_argument("warehouse", type=Path)
    pp.add_argument("--repeat", type=int, default=9)
    v = sub.add_parser("validation")
    v.add_argument("warehouse", type=Path)
    v.add_argument("--repeat", type=int, default=30)
    b = sub.add_parser("backfill")
    b.add_argument("--runs", type=int, default=200)
    b.add_argument("--repeat", type=int, default=3)
    b.add_argument("--template", type=Path, help="a template pickle of bench_scale.py (else built: slow)")
    args = ap.parse_args()
    if args.what == "build":
        print(json.dumps(build_warehouse(args.shape, args.rows, args.out, args.template), default=str))
        return
    if args.what == "process":
        work = Path(tempfile.mkdtemp(prefix="scale-load-"))
        copy = work / "copy.duckdb"
        shutil.copyfile(args.warehouse, copy)
        os.chmod(copy, 0o644)
        try:
            print(json.dumps(bench_nightly_process(copy, args.repeat)))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    if args.what == "validation":
        print(json.dumps(bench_validation(args.warehouse, args.repeat), indent=1))
        return
    if args.what == "backfill":
        tmpl = args.template
        if tmpl is None:
            sys.path.insert(0, str(HERE))
            from bench_scale import template_offers
            work = Path(tempfile.mkdtemp(prefix="scale-load-tmpl-"))
            tmpl = work / "template.pkl"
            template_offers(work).to_pickle(tmpl)
        print(json.dumps(bench_backfill(tmpl, args.runs, args.repeat)))
        return
    trees = {"this checkout": ROOT} | ({"baseline": args.against.resolve()} if args.against else {})
    results: dict[str, list[dict]] = {k: [] for k in trees}
    load_before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, tree in trees.items():
            results[name].append(_one_process(tree, args.warehouse, args.repeat, not args.no_checkpoint,
                                              not args.no_settle, args.new_day))
            print(name, json.dumps({k: v for k, v in results[name][-1].items() if k != "profile"}), file=sys.stderr)
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after; {args.warehouse.name}; "
          f"{args.rounds} process(es) x {args.repeat} loads" + ("; each the first run of a new day" if args.new_day else ""))
    for name, rs in results.items():
        loads = [x for r in rs for x in r["load_all_ms"]]
        print(f"{name}: one nightly run ({rs[0]['offers']} offers) median {statistics.median(loads):.1f} ms, "
              f"mean {statistics.fmean(loads):.1f} ms, CPU median "
              f"{statistics.median([x for r in rs for x in r['load_cpu_all_ms']]):.1f} ms; "
              f"raw INSERT of its offers + COMMIT "
              f"{statistics.median([r['raw_ms'] for r in rs]):.1f} ms; the same rows from a DuckDB table "
              f"(no DataFrame scan): INSERT {statistics.median([r['floor_insert_ms'] for r in rs]):.1f} ms "
              f"+ COMMIT {statistics.median([r['floor_commit_ms'] for r in rs]):.1f} ms"
              + (f"; CHECKPOINT after each {statistics.median([r['checkpoint_ms'] for r in rs]):.1f} ms"
                 if rs[0].get("checkpoint_ms") is not None else "; no CHECKPOINT between loads"))
        prof = rs[-1]["profile"]
        print(f"  one load, {prof['statements']} statements, {prof['total_ms']:.1f} ms, of which Python "
              f"{prof['python_ms']:.1f} ms:")
        for step, ms in prof["steps_ms"].items():
            print(f"    {ms:7.2f} ms  {step}")


if __name__ == "__main__":
    main()

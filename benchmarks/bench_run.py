"""Wall and CPU time of `pricewatch run --replay captures` on an empty warehouse, Prefect included,
and where the time goes.

    .venv/bin/python benchmarks/bench_run.py [--runs 3] [--checkout DIR ...] [--replay captures]
        [--server own|fresh|pristine|running ...]

Each run is a fresh `python -m pricewatch.cli run --replay captures --db <new file>` from the
checkout. --server (repeatable; each run of each checkout in each mode, interleaved A B A B so
a busy machine weighs on all alike):
  own       the run's own Prefect server on a reused PREFECT_HOME slot (the default run)
  fresh     its own server on a new, empty PREFECT_HOME (a migrated template may exist)
  pristine  a new PREFECT_HOME and a new temp dir: no template, every migration runs
  running   PREFECT_API_URL set to a server this benchmark started before the runs
Per run: wall seconds, CPU seconds of the run and everything it started (user + system of the
waited children, its own server included), the 1-minute load average before it, and from the
run's Prefect log the seconds until the first flow run began (imports, checks, server start),
in flow runs (first begin to last end) and after them (server stop, exit). With a running
server, the flow and task runs it recorded give each flow run's time by task (crawl, validate,
open-warehouse, load, evaluate-claims, derive-alerts, deliver-alerts, write-report) and
`outside tasks`: the flow's own code between them (each crawl written to and read from its run
bundle, the run built, the artifacts) and Prefect's engine around them. Then the median per checkout and mode.
An older commit to compare with: `git worktree add /tmp/base <rev>` and --checkout /tmp/base.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from pricewatch.server import prefect_processes  # noqa: E402

STAMP = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) \|")


def _log_phases(log_dir: Path, started: datetime, ended: datetime) -> dict[str, float]:
    """Seconds before the first flow run began, in flow runs, after the last one ended, from
    the timestamps of the run's Prefect log (local time of day)."""
    stamps: list[datetime] = []
    for log in sorted(log_dir.glob("run-*.log")):
        for line in log.read_text(errors="replace").splitlines():
            m = STAMP.match(line)
            if m and ("Beginning flow run" in line or "Finished in state" in line):
                h, mi, s, ms = map(int, m.groups())
                t = started.replace(hour=h, minute=mi, second=s, microsecond=ms * 1000)
                stamps.append(t + timedelta(days=1) if t < started - timedelta(hours=1) else t)
    if not stamps:
        return {}
    first, last = min(stamps), max(stamps)
    return {"before_flows": (first - started).total_seconds(), "in_flows": (last - first).total_seconds(),
            "after_flows": (ended - last).total_seconds()}


def _api(api_url: str, path: str, body: dict) -> list[dict]:
    req = urllib.request.Request(api_url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def task_phases(api_url: str, since: datetime) -> dict[str, float]:
    """Seconds of the flow runs started since ``since``, by task name (the union of that task's
    runs' intervals, so parallel crawl tasks count once), and `outside tasks`: the flow runs'
    time covered by no task run."""
    flows = _api(api_url, "/flow_runs/filter", {"flow_runs": {"start_time": {"after_": since.isoformat()}},
                                                "limit": 200})
    ids = [f["id"] for f in flows]
    tasks = []
    for offset in range(0, 10_000, 200):
        page = _api(api_url, "/task_runs/filter", {"flow_runs": {"id": {"any_": ids}}, "limit": 200,
                                                   "offset": offset})
        tasks += page
        if len(page) < 200:
            break
    phases: dict[str, float] = defaultdict(float)
    for f in flows:
        f_start, f_end = _when(f["start_time"]), _when(f["end_time"])
        if f_start is None or f_end is None:
            continue
        spans = defaultdict(list)
        for t in tasks:
            if t["flow_run_id"] == f["id"] and t["start_time"] and t["end_time"]:
                spans[_task_phase(t["name"])].append((_when(t["start_time"]), _when(t["end_time"])))
        covered = []
        for name, intervals in spans.items():
            phases[name] += _union(intervals)
            covered += intervals
        phases["flow runs"] += (f_end - f_start).total_seconds()
        phases["outside tasks"] += (f_end - f_start).total_seconds() - _union(covered)
    return dict(phases)


def _task_phase(name: str) -> str:
    """crawl-<provider> -> crawl, validate-<provider> -> validate, load-3dd -> load."""
    if name.startswith(("crawl-", "validate-")):
        return name.split("-", 1)[0]
    return re.sub(r"-[0-9a-f]{3}$", "", name)


def _union(intervals: list[tuple[datetime, datetime]]) -> float:
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += (b - a).total_seconds()
            end = b
        elif b > end:
            total += (b - end).total_seconds()
            end = b
    return total


def one_run(checkout: Path, replay: str, mode: str, api_url: str | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(checkout), "PRICEWATCH_RUN_SERVER": "own",
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
        for k in ("PRICEWATCH_ALERT_URLS", "PRICEWATCH_CONFIG", "PRICEWATCH_DB", "PREFECT_API_URL", "PREFECT_HOME"):
            env.pop(k, None)
        if mode in ("fresh", "pristine"):
            env["PREFECT_HOME"] = str(Path(tmp) / "prefect-home")
        if mode == "pristine":
            (Path(tmp) / "tmp").mkdir()
            env["TMPDIR"] = str(Path(tmp) / "tmp")
        if mode == "running":
            env["PREFECT_API_URL"] = api_url
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall_started = datetime.now()
        utc_started = datetime.now(timezone.utc)
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pricewatch.cli", "run", "--replay", replay,
                               "--db", str(Path(tmp) / "pw.duckdb")], cwd=checkout, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                  "load": load, "exit": proc.returncode,
                  **_log_phases(Path(tmp) / "logs", wall_started, datetime.now())}
        if mode == "running":
            result["tasks"] = task_phases(api_url, utc_started)
            if "in_flows" in result and "flow runs" in result["tasks"]:
                # After a flow run's end is recorded: its engine's teardown, the CLI's summary.
                result["tasks"]["between flow runs"] = result["in_flows"] - result["tasks"]["flow runs"]
    return result


def start_bench_server(home: Path) -> tuple[str, subprocess.Popen]:
    port = prefect_processes.free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": api_url,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false"}
    proc = prefect_processes.start_group(prefect_processes.prefect_cmd(
        "server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui"), env, home / "server.log")
    prefect_processes.wait_healthy(api_url, proc, timeout_s=180)
    return api_url, proc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--checkout", type=Path, action="append", help="default: this checkout")
    ap.add_argument("--replay", default="captures")
    ap.add_argument("--server", action="append", choices=["own", "fresh", "pristine", "running"],
                    help="default: own")
    args = ap.parse_args()
    checkouts = [c.resolve() for c in (args.checkout or [ROOT])]
    modes = args.server or ["own"]
    server = None
    home = tempfile.TemporaryDirectory(prefix="bench-run-prefect-")
    try:
        api_url = None
        if "running" in modes:
            api_url, server = start_bench_server(Path(home.name))
        results: dict[tuple[Path, str], list[dict]] = defaultdict(list)
        print("checkout | mode | run | wall s | cpu s | load avg (1 min) | before flows s | in flows s | "
              "after flows s | exit")
        for n in range(1, args.runs + 1):
            for mode in modes:
                for c in checkouts:
                    r = one_run(c, args.replay, mode, api_url)
                    results[(c, mode)].append(r)
                    print(f"{c} | {mode} | {n} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['load']:.1f} | "
                          f"{r.get('before_flows', 0):.1f} | {r.get('in_flows', 0):.1f} | "
                          f"{r.get('after_flows', 0):.1f} | {r['exit']}", flush=True)
                    if "tasks" in r:
                        print("    " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(r["tasks"].items())), flush=True)
        for (c, mode), rs in results.items():
            med = {k: statistics.median(r[k] for r in rs if k in r) for k in
                   ("wall", "cpu", "load", "before_flows", "in_flows", "after_flows") if any(k in r for r in rs)}
            print(f"median {c} {mode} over {len(rs)} runs: " + ", ".join(f"{k} {v:.1f}" for k, v in med.items()))
            if any("tasks" in r for r in rs):
                names = sorted({k for r in rs for k in r.get("tasks", {})})
                print("    tasks (median s): " + ", ".join(
                    f"{k} {statistics.median(r['tasks'].get(k, 0) for r in rs):.1f}" for k in names))
    finally:
        if server is not None:
            prefect_processes.stop_group(server)
        home.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Wall time of `pricewatch run --replay captures` on an empty warehouse, Prefect included.

    .venv/bin/python benchmarks/bench_run.py [--runs 3] [--checkout DIR ...] [--replay captures]

Each run is a fresh `python -m pricewatch.cli run --replay captures --db <new file>` from the
checkout (its own Prefect server unless PREFECT_API_URL is set). With several --checkout
folders (e.g. an older commit unpacked by `git archive <rev> | tar -x -C DIR`), runs are
interleaved (A B A B ...) so a busy machine weighs on both alike. Prints each run's wall
time, the CPU seconds of the run and everything it started (user + system of the waited
children), the load average before it, then the median per checkout.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run(checkout: Path, replay: str) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(checkout), "PRICEWATCH_RUN_SERVER": "own"}
        for k in ("PRICEWATCH_ALERT_URLS", "PRICEWATCH_CONFIG", "PRICEWATCH_DB"):
            env.pop(k, None)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pricewatch.cli", "run", "--replay", replay,
                               "--db", str(Path(tmp) / "pw.duckdb")], cwd=checkout, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--checkout", type=Path, action="append", help="default: this checkout")
    ap.add_argument("--replay", default="captures")
    args = ap.parse_args()
    checkouts = [c.resolve() for c in (args.checkout or [ROOT])]
    walls: dict[Path, list[float]] = {c: [] for c in checkouts}
    print("checkout | run | wall s | cpu s | load avg (1 min) | exit")
    for n in range(1, args.runs + 1):
        for c in checkouts:
            load = os.getloadavg()[0]
            wall, cpu, code = one_run(c, args.replay)
            walls[c].append(wall)
            print(f"{c} | {n} | {wall:.1f} | {cpu:.1f} | {load:.1f} | {code}", flush=True)
    for c, w in walls.items():
        print(f"median {c}: {statistics.median(w):.1f} s wall over {len(w)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A night crawled by 1, 2 and 4 crawl workers on this machine (issue 22 item 5): a Prefect
server, prefect.yaml's crawl-http deployment on its pool, N process workers (each its own
PREFECT_HOME and folder), the shipped HTTP captures split into 8 provider groups (8 crawl
runs), each replayed request answered after --latency seconds (benchmarks/latency/
sitecustomize.py, in the crawl processes), bundles written to a local folder. Prints the
night's wall time per worker count and its ratio to the one-worker night.

    .venv/bin/python benchmarks/bench_workers.py --latency 0.3 --workers 1 2 4
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pricewatch.collect.replays import uses_browser  # noqa: E402
from pricewatch.server import prefect_processes as pp  # noqa: E402


def shipped_http() -> dict[str, Path]:
    found = {}
    for w in sorted((ROOT / "captures").glob("*/*.warc.gz")):
        p = w.name.split(".")[0]
        if not uses_browser(p):
            found[p] = w   # the latest date wins
    return found


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--groups", type=int, default=8)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pricewatch-bench-workers-"))
    night = tmp / "night"
    night.mkdir()
    captures = shipped_http()
    for p, w in captures.items():
        (night / f"{p}.warc.gz").symlink_to(w)
    providers = sorted(captures)
    groups = [providers[i::args.groups] for i in range(args.groups)]
    port = pp.free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = pp.prefect_env(api, tmp / "server-home", ROOT)
    server = pp.start_group(pp.prefect_cmd("server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui"),
                            env, tmp / "server.log")
    results = {}
    try:
        pp.wait_healthy(api, server, timeout_s=180)
        pp.deploy(env, ROOT, ["crawl-http"])
        pp.run_prefect(["work-pool", "set-concurrency-limit", "pricewatch-crawl-http", "8"], env, ROOT)
        for n in args.workers:
            store = tmp / f"bundles-{n}"
            workers = []
            for i in range(n):
                home = tmp / f"w{n}-{i}"
                home.mkdir()
                wenv = {**env, "PREFECT_HOME": str(home / "prefect"), "PREFECT_WORKER_QUERY_SECONDS": "1",
                        "PREFECT_WORKER_PREFETCH_SECONDS": "1", "PRICEWATCH_BENCH_LATENCY_S": str(args.latency),
                        "PYTHONPATH": f"{ROOT / 'benchmarks' / 'latency'}:{ROOT}"}
                # One flow run at a time per worker: a worker is a machine's crawl slot.
                workers.append(pp.start_group(pp.prefect_cmd("worker", "start", "--pool", "pricewatch-crawl-http",
                                                             "--limit", "1", "--name", f"w{n}-{i}"),
                                              wenv, home / "worker.log", cwd=home))
            time.sleep(8)   # the workers are up and polling
            t = time.monotonic()
            ids = []
            for g in groups:
                out = pp.run_prefect(["deployment", "run", "crawl-bundles/crawl-http", "--params",
                                      json.dumps({"providers": g, "replay": str(night), "storage": str(store)})],
                                     env, ROOT).stdout
                ids.append(re.search(r"UUID: ([0-9a-f-]{36})", out).group(1))
            while True:
                states = [_state(api, i) for i in ids]
                if all(s in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED") for s in states):
                    break
                time.sleep(0.5)
            results[n] = time.monotonic() - t
            assert all(s == "COMPLETED" for s in states), states
            for w in workers:
                pp.stop_group(w)
            print(f"{n} worker(s): {results[n]:.1f} s", flush=True)
    finally:
        pp.stop_group(server)
        shutil.rmtree(tmp, ignore_errors=True)
    base = results[args.workers[0]]
    print(f"\n{len(providers)} HTTP providers in {len(groups)} crawl runs, {args.latency * 1000:.0f} ms per request")
    print("| crawl workers | night (s) | ratio to 1 worker |\n|---|---|---|")
    for n, s in results.items():
        print(f"| {n} | {s:.1f} | {s / base:.2f} |")
    return 0


def _state(api: str, flow_run_id: str) -> str:
    with urllib.request.urlopen(f"{api}/flow_runs/{flow_run_id}", timeout=10) as r:
        return json.loads(r.read())["state"]["type"]


if __name__ == "__main__":
    sys.exit(main())

"""`pricewatch serve`: a local Prefect server, the work pool, the deployments of prefect.yaml and
a process worker, as child processes (pricewatch/server/prefect_processes.py) that all stop on
Ctrl-C or SIGTERM; the record other commands read to find the served API."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from pricewatch.server.prefect_processes import (
    POOL,
    checkout_root,
    deploy,
    ensure_pool,
    port_in_use,
    prefect_cmd,
    prefect_env,
    start_group,
    stop_group,
    wait_healthy,
    yaml_pools,
)


#: The deployments of prefect.yaml `pricewatch serve` deploys.
SINGLE_MACHINE = ["nightly", "backfill"]


@dataclass
class Stack:
    """The processes `pricewatch serve` started, stopped in reverse order."""

    procs: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    def add(self, name: str, proc: subprocess.Popen) -> subprocess.Popen:
        self.procs.append((name, proc))
        return proc

    def exited(self) -> tuple[str, int] | None:
        for name, proc in self.procs:
            if proc.poll() is not None:
                return name, proc.returncode
        return None

    def stop(self) -> None:
        for _, proc in reversed(self.procs):
            stop_group(proc)
        self.procs.clear()


class Shutdown(Exception):
    pass


def _raise_shutdown(signum, frame):
    raise Shutdown(signal.Signals(signum).name)


def serve(host: str, port: int, home: Path, api_url: str | None, pool: str = POOL,
          echo=print) -> int:
    """Runs until Ctrl-C / SIGTERM or until a child dies. Returns the exit code."""
    checkout = checkout_root()
    home = home if home.is_absolute() else checkout / home
    home.mkdir(parents=True, exist_ok=True)
    logs = home / "logs"
    own_server = api_url is None
    if own_server and port_in_use(host, port):
        # Otherwise we would deploy to whatever already answers there.
        raise RuntimeError(f"{host}:{port} is in use: pick another --port, or --api-url http://{host}:{port}/api "
                           "to deploy to the Prefect server already running there")
    api_url = api_url or f"http://{host}:{port}/api"
    env = prefect_env(api_url, home, checkout)
    stack = Stack()
    previous = {s: signal.signal(s, _raise_shutdown) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if own_server:
            echo(f"starting Prefect server on {host}:{port} (PREFECT_HOME={home}; log {logs / 'server.log'})")
            server = stack.add("server", start_group(prefect_cmd("server", "start", "--host", host, "--port", str(port)),
                                                     env, logs / "server.log", checkout))
            echo(f"server healthy after {wait_healthy(api_url, server):.1f} s")
        else:
            wait_healthy(api_url, timeout_s=30)
        t = time.monotonic()
        if pool not in yaml_pools(checkout, SINGLE_MACHINE):
            ensure_pool(env, checkout, pool)
        # One machine: the nightly and backfill; the crawl and load deployments of several
        # machines are deployed by their recipe (docs/machines.md).
        deploy(env, checkout, SINGLE_MACHINE)
        echo(f"work pool {pool!r} ready, prefect.yaml deployed ({time.monotonic() - t:.1f} s)")
        stack.add("worker", start_group(prefect_cmd("worker", "start", "--pool", pool),
                                                 env, logs / "worker.log", checkout))
        write_serve_record(home, api_url)
        ui = api_url.removesuffix("/api")
        echo(f"Prefect UI: {ui}  (runs: {ui}/runs, deployments: {ui}/deployments)")
        echo(f"pids: {' '.join(f'{n}={p.pid}' for n, p in stack.procs)}")
        echo("trigger a run now:  PREFECT_API_URL=%s prefect deployment run 'collect-prices/nightly'" % api_url)
        echo("Ctrl-C stops the worker and the server.")
        while True:
            dead = stack.exited()
            if dead:
                echo(f"{dead[0]} exited with code {dead[1]} (see {logs / (dead[0] + '.log')}); stopping")
                return 1
            time.sleep(0.5)
    except Shutdown as sig:
        echo(f"{sig}: stopping worker{' and server' if own_server else ''}")
        return 0
    finally:
        # A second Ctrl-C while stopping must not leave children behind.
        for s in previous:
            signal.signal(s, signal.SIG_IGN)
        (home / SERVE_RECORD).unlink(missing_ok=True)
        stack.stop()
        for s, handler in previous.items():
            signal.signal(s, handler)


#: What `pricewatch serve` leaves in its PREFECT_HOME while it runs: the server `pricewatch run`
#: then uses instead of starting one (see running_api_url).
SERVE_RECORD = "pricewatch-serve.json"
SERVE_HOME = ".prefect"   # `pricewatch serve --home` default, relative to the checkout


def write_serve_record(home: Path, api_url: str) -> None:
    (home / SERVE_RECORD).write_text(json.dumps({"api_url": api_url, "pid": os.getpid()}))


def served_api_url(home: Path | None = None, timeout_s: float = 1.0) -> str | None:
    """The API of a `pricewatch serve` running on ``home`` (default <checkout>/.prefect, as
    `pricewatch serve` without --home): its record there, its process alive, /api/health
    answering; else None."""
    try:
        home = home if home is not None else checkout_root() / SERVE_HOME
        record = json.loads((Path(home) / SERVE_RECORD).read_text())
        os.kill(int(record["pid"]), 0)
        url = str(record["api_url"])
        with urllib.request.urlopen(f"{url}/health", timeout=timeout_s) as resp:
            return url if resp.status == 200 else None
    except (OSError, ValueError, KeyError, TypeError, FileNotFoundError):
        return None


# --- `pricewatch run`: its own Prefect server, and what a signal does to it -------------------

#: A reused PREFECT_HOME whose database grew past this is started afresh (a CLI run's history
#: is not kept: the server is this run's only).

"""The stock Prefect commands pricewatch runs, each a child process in a process group of its own:
the server, the work pool, the deployments of prefect.yaml and a process worker (`pricewatch
serve`, pricewatch/server/serve.py), and the Prefect server of one CLI run
(pricewatch/server/run_server.py). Prefect's worker ignores SIGTERM when SIGINT was inherited as
ignored (started from a script with `&`), so each child gets a session of its own and is stopped
by signalling its whole group, TERM first, KILL after a grace period. ``enter_checkout`` is the
deployments' pull step (prefect.yaml)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from pricewatch.collect import crawl_process

POOL = "pricewatch-local"
#: The several-machines pools of prefect.yaml (docs/machines.md) and how many flow runs each
#: runs at once across all its workers: HTTP crawls are light, a browser crawl takes ~1 GB, and
#: the warehouse has one writer.
POOL_LIMITS = {"pricewatch-crawl-http": 4, "pricewatch-crawl-browser": 1, "pricewatch-load": 1}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_in_use(host: str, port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) == 0


def checkout_root() -> Path:
    """The folder holding prefect.yaml: the current one, else the checkout this package runs from."""
    for candidate in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (candidate / "prefect.yaml").is_file() and (candidate / "flows").is_dir():
            return candidate
    raise FileNotFoundError("prefect.yaml not found: run from the pricewatch checkout")


def enter_checkout(directory: str | None = None) -> dict[str, str]:
    """Prefect pull step (prefect.yaml): run the flow from this machine's pricewatch checkout,
    `directory`, else $PRICEWATCH_HOME, else the checkout the installed package lives in."""
    root = Path(directory or os.environ.get("PRICEWATCH_HOME") or Path(__file__).resolve().parents[2])
    if not ((root / "prefect.yaml").is_file() and (root / "flows" / "nightly.py").is_file()):
        raise FileNotFoundError(f"{root} is not a pricewatch checkout (no prefect.yaml / flows/nightly.py): "
                                "set PRICEWATCH_HOME in the worker's environment to the checkout")
    os.chdir(root)
    return {"directory": str(root)}


def prefect_env(api_url: str, home: Path, checkout: Path, base: dict | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.update({
        "PREFECT_API_URL": api_url,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_CLI_PROMPT": "false",
        # Where the pull step of prefect.yaml finds the flows (see enter_checkout).
        "PRICEWATCH_HOME": str(checkout),
    })
    return env


def prefect_cmd(*args: str) -> list[str]:
    # The interpreter running us, not whatever `prefect` is first on PATH (a pyenv shim's pid
    # is not the worker's).
    return [sys.executable, "-m", "prefect", *args]


def start_group(cmd: list[str], env: dict, log_path: Path, cwd: Path | None = None,
                dies_with_parent: bool = False, pass_fds: tuple[int, ...] = (),
                log_mode: str = "ab") -> subprocess.Popen:
    """Starts ``cmd`` in a session (process group) of its own, output to ``log_path``.
    dies_with_parent: the kernel TERMs it when this process dies, even by SIGKILL."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, log_mode) as log:
        return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, pass_fds=pass_fds,
                                preexec_fn=crawl_process.dies_with_parent() if dies_with_parent else None)


def stop_group(proc: subprocess.Popen, grace_s: float = 15) -> int | None:
    """TERM the process group, wait, then KILL it. Returns the exit code."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
    try:  # also whatever the leader left behind in its group (a flow run subprocess)
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return proc.wait()


def wait_healthy(api_url: str, proc: subprocess.Popen | None = None, timeout_s: float = 120) -> float:
    """Polls /api/health until the server answers; returns the seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"Prefect server exited with code {proc.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(f"{api_url}/health", timeout=2) as resp:
                if resp.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"Prefect server at {api_url} not healthy after {timeout_s:.0f} s")


def run_prefect(args: list[str], env: dict, cwd: Path, timeout_s: float = 180,
                ok_if: str | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(prefect_cmd(*args), env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout_s, start_new_session=True)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0 and not (ok_if and ok_if in output):
        raise RuntimeError(f"`prefect {' '.join(args)}` exited {proc.returncode}:\n{output[-3000:]}")
    return proc


def ensure_pool(env: dict, cwd: Path, pool: str = POOL, limit: int | None = None) -> None:
    # `deploy` refuses a work pool that does not exist yet; an existing one keeps its settings.
    run_prefect(["work-pool", "create", pool, "--type", "process"], env, cwd, ok_if="already exists")
    if limit is None:
        limit = POOL_LIMITS.get(pool)
    if limit is not None:
        run_prefect(["work-pool", "set-concurrency-limit", pool, str(limit)], env, cwd)


def yaml_pools(cwd: Path, names: list[str] | None = None) -> list[str]:
    """The work pools prefect.yaml's deployments (those named, default all) run on."""
    from pricewatch.record import yaml_file
    deployments = yaml_file.safe_load((Path(cwd) / "prefect.yaml").read_text())["deployments"]
    return list(dict.fromkeys(d["work_pool"]["name"] for d in deployments if names is None or d["name"] in names))


def deploy(env: dict, cwd: Path, names: list[str] | None = None) -> None:
    """`prefect deploy` of prefect.yaml's deployments (``names``, default all), after creating
    each work pool they name that does not exist yet."""
    for pool in yaml_pools(cwd, names):
        ensure_pool(env, cwd, pool)
    which = ["--all"] if names is None else [a for n in names for a in ("--name", n)]
    run_prefect(["--no-prompt", "deploy", *which], env, cwd)


# --- crawl runs a lost machine left: crashed, then run again (Prefect automations) -----------

#: How often a flow run tells the server it is alive (PREFECT_FLOWS_HEARTBEAT_FREQUENCY, in
#: each crawl worker's environment; Prefect's minimum) and how long a silent one may stay Running.
HEARTBEAT_S = 30
SILENT_AFTER_S = 90

#: A crawl flow run whose machine died (no heartbeat for SILENT_AFTER_S) is marked Crashed; a
#: crashed crawl run (that one, or one whose process a worker saw killed) is scheduled again
#: with its own parameters, and any worker of its pool runs it. Its providers already written
#: are not crawled again (flows/crawl.py). Matched by the deployments' tag `crawl`.
AUTOMATIONS = [
    {"name": "pricewatch: silent crawl run is crashed",
     "description": "A crawl flow run with no heartbeat for %d s (its machine died) is marked Crashed." % SILENT_AFTER_S,
     "enabled": True,
     "trigger": {"type": "event", "posture": "Proactive", "after": ["prefect.flow-run.heartbeat"],
                 "expect": ["prefect.flow-run.*"],
                 "match": {"prefect.resource.id": "prefect.flow-run.*"},
                 "match_related": {"prefect.resource.id": "prefect.tag.crawl", "prefect.resource.role": "tag"},
                 "for_each": ["prefect.resource.id"], "threshold": 1, "within": SILENT_AFTER_S},
     "actions": [{"type": "change-flow-run-state", "state": "CRASHED", "name": "Crashed",
                  "message": f"no heartbeat for {SILENT_AFTER_S} s: its machine or worker died", "force": True}]},
    {"name": "pricewatch: crashed crawl run runs again",
     "description": "A crashed crawl flow run is scheduled again with its own parameters.",
     "enabled": True,
     "trigger": {"type": "event", "posture": "Reactive", "expect": ["prefect.flow-run.Crashed"],
                 "match": {"prefect.resource.id": "prefect.flow-run.*"},
                 "match_related": {"prefect.resource.id": "prefect.tag.crawl", "prefect.resource.role": "tag"},
                 "threshold": 1, "within": 0},
     "actions": [{"type": "change-flow-run-state", "state": "SCHEDULED", "name": "AwaitingRetry",
                  "message": "crashed: run again (pricewatch automation)", "force": True}]},
]


def ensure_automations(api_url: str) -> list[str]:
    """Creates the AUTOMATIONS the server does not have yet (by name); returns their names."""
    import json

    def call(method: str, path: str, body=None):
        req = urllib.request.Request(api_url.rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read() or b"null")

    have = {a["name"] for a in call("POST", "/automations/filter", {})}
    for automation in AUTOMATIONS:
        if automation["name"] not in have:
            call("POST", "/automations/", automation)
    return [a["name"] for a in AUTOMATIONS]

"""Several machines, for real (issue 22; the recipe: docs/machines.md): a Prefect server on
PostgreSQL (Debian's postgresql, a throw-away cluster on a free port), prefect.yaml's crawl and
load deployments on their own work pools, a crawl worker and a load worker in separate processes
with separate PREFECT_HOME and working folders, and an S3-compatible store on localhost (moto's
server mode) reached through s3fs. Only the bundles cross from the crawl machine to the loader.

One night of shipped captures crawled in three provider groups on the crawl pool and loaded on
the load pool gives the warehouse a single-machine replay of the same captures gives (every
table compared); a crawl worker killed mid-crawl leaves no partial bundle, its run is marked
crashed and run again by Prefect (pricewatch/server/prefect_processes.py AUTOMATIONS) on a
worker that joins the pool; the loader down for two nights loads both, in order."""

from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from pricewatch.collect import bundles
from pricewatch.server import prefect_processes as pp
from tests.conftest import ROOT, CAPTURES, clean_env
from tests.machines import Postgres, S3Server, differences, night_folder, wait_for

GROUPS = [["thunder_compute", "vultr", "gpuwithcrypto"], ["massed_compute", "lambda_cloud", "civo"],
          ["hyperstack", "digitalocean", "crusoe"]]


def test_every_default_provider_is_in_exactly_one_crawl_deployment():
    from pricewatch.collect.replays import all_providers, uses_browser
    from pricewatch.collect.sources import default_providers
    deployments = {d["name"]: d for d in yaml.safe_load((ROOT / "prefect.yaml").read_text())["deployments"]}
    crawls = {n: d for n, d in deployments.items() if d["entrypoint"] == "flows/crawl.py:crawl"}
    listed = [p for d in crawls.values() for p in d["parameters"]["providers"]]
    assert sorted(listed) == sorted(default_providers(all_providers()))
    assert all(uses_browser(p) for p in crawls["crawl-browser"]["parameters"]["providers"])
    assert not any(uses_browser(p) for p in crawls["crawl-http"]["parameters"]["providers"])
    pools = {n: d["work_pool"]["name"] for n, d in deployments.items()}
    assert len({pools["crawl-http"], pools["crawl-browser"], pools["load"]}) == 3
    assert deployments["load"]["concurrency_limit"]["limit"] == 1


def api(url: str, method: str, path: str, body=None):
    req = urllib.request.Request(url + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null")


class Machines:
    """The server (on PostgreSQL), the store, and the workers started so far."""

    def __init__(self, root: Path):
        self.root = root
        self.pg = Postgres().start()
        self.s3 = S3Server().start()
        port = pp.free_port()
        self.api = f"http://127.0.0.1:{port}/api"
        self.env = clean_env(pp.prefect_env(self.api, root / "server-home", ROOT))
        self.env["PREFECT_API_DATABASE_CONNECTION_URL"] = self.pg.url
        self.server = pp.start_group(pp.prefect_cmd("server", "start", "--host", "127.0.0.1", "--port", str(port),
                                                    "--no-ui"), self.env, root / "server.log")
        self.started_in_s = pp.wait_healthy(self.api, self.server, timeout_s=180)
        self.workers: dict[str, object] = {}

    def machine_env(self, name: str) -> dict:
        """A machine: its own PREFECT_HOME, the server's URL, the store's URL and keys."""
        env = {k: v for k, v in self.env.items() if k != "PREFECT_API_DATABASE_CONNECTION_URL"}
        env.update(self.s3.env)
        env.update({"PREFECT_HOME": str(self.root / name / "prefect"), "PRICEWATCH_BUNDLES": self.s3.url,
                    "PREFECT_WORKER_QUERY_SECONDS": "2", "PREFECT_WORKER_PREFETCH_SECONDS": "2",
                    "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(pp.HEARTBEAT_S)})
        return env

    def start_worker(self, name: str, pool: str):
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=True)
        self.workers[name] = pp.start_group(pp.prefect_cmd("worker", "start", "--pool", pool, "--name", name),
                                            self.machine_env(name), folder / "worker.log", cwd=folder)
        return self.workers[name]

    def run(self, deployment: str, params: dict) -> str:
        out = pp.run_prefect(["deployment", "run", deployment, "--params", json.dumps(params)], self.env, ROOT).stdout
        return re.search(r"UUID: ([0-9a-f-]{36})", out).group(1)

    def state(self, flow_run_id: str) -> dict:
        return api(self.api, "GET", f"/flow_runs/{flow_run_id}")["state"]

    def wait(self, flow_run_ids: list[str], timeout_s: float = 300) -> list[dict]:
        final = ("COMPLETED", "FAILED", "CRASHED", "CANCELLED")

        def done():
            states = [self.state(i) for i in flow_run_ids]
            return states if all(s["type"] in final for s in states) else None
        try:
            return wait_for(done, timeout_s, 1.0, "flow runs finished")
        except TimeoutError:
            logs = {n: (self.root / n / "worker.log").read_text()[-3000:] for n in self.workers
                    if (self.root / n / "worker.log").exists()}
            raise AssertionError(f"{[self.state(i) for i in flow_run_ids]}\n{logs}") from None

    def stop(self) -> None:
        for proc in self.workers.values():
            pp.stop_group(proc)
        pp.stop_group(self.server)
        self.s3.stop()
        self.pg.stop()


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    m = Machines(tmp_path_factory.mktemp("machines"))
    try:
        t = time.monotonic()
        pp.deploy(m.env, ROOT, ["crawl-http", "crawl-browser", "load"])
        pp.ensure_automations(m.api)
        m.deployed_in_s = time.monotonic() - t
        m.start_worker("crawl-machine", "pricewatch-crawl-http")
        m.start_worker("load-machine", "pricewatch-load")
        yield m
    finally:
        m.stop()


def single_machine(night: Path, db_file: Path, api_url: str) -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.nightly import nightly
    with temporary_settings({PREFECT_API_URL: api_url}):
        for folder in ([night] if night.is_dir() and not any(p.is_dir() for p in night.iterdir())
                       else sorted(p for p in night.iterdir() if p.is_dir())):
            state = nightly(db_path=str(db_file), replay=str(folder), return_state=True)
            assert state.is_completed(), state.message


@pytest.mark.slow
def test_three_crawl_groups_on_the_crawl_pool_and_the_load_on_the_load_pool_give_the_single_machine_warehouse(
        machines, tmp_path):
    night = night_folder(tmp_path / "night", [p for g in GROUPS for p in g])
    pools = {p["name"]: p for p in api(machines.api, "POST", "/work_pools/filter", {})}
    assert pools["pricewatch-crawl-browser"]["concurrency_limit"] == 1
    assert pools["pricewatch-load"]["concurrency_limit"] == 1
    t = time.monotonic()
    crawls = [machines.run("crawl-bundles/crawl-http", {"providers": g, "replay": str(night)}) for g in GROUPS]
    states = machines.wait(crawls)
    assert [s["type"] for s in states] == ["COMPLETED"] * 3, states
    crawled_in = time.monotonic() - t
    refs = bundles.complete(machines.s3.url, machines.s3.options)
    assert len(refs) == 9 and len({r.night for r in refs}) == 1
    db_file = tmp_path / "load" / "pricewatch.duckdb"
    t = time.monotonic()
    [state] = machines.wait([machines.run("load-bundles/load", {"db_path": str(db_file)})])
    assert state["type"] == "COMPLETED" and state["message"] == "9/9 providers ok", state
    loaded_in = time.monotonic() - t
    single = tmp_path / "single" / "pricewatch.duckdb"
    single_machine(night, single, machines.api)
    assert differences(single, db_file) == []
    # The UI shows each crawl and load run with its artifacts.
    arts = api(machines.api, "POST", "/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": crawls}}})
    assert sorted(a["key"] for a in arts) == ["pricewatch-bundles"] * 3
    print(f"\nserver on PostgreSQL {machines.started_in_s:.1f} s, deploy {machines.deployed_in_s:.1f} s, "
          f"3 crawl runs {crawled_in:.1f} s, load {loaded_in:.1f} s")


@pytest.mark.slow
def test_the_loader_down_for_two_nights_loads_both_in_order(machines, tmp_path):
    nights = tmp_path / "nights"
    for date, providers in (("2026-08-22", ["civo", "lambda_cloud"]), ("2026-10-29", ["thunder_compute", "vultr"])):
        night_folder(nights / date, [])
        for p in providers:
            (nights / date / f"{p}.warc.gz").symlink_to(CAPTURES / date / f"{p}.warc.gz")
    s3url = machines.s3.url + "-two-nights"
    crawls = [machines.run("crawl-bundles/crawl-http", {"replay": str(nights / d), "storage": s3url})
              for d in ("2026-10-29", "2026-08-22")]   # the later night crawled first
    assert [s["type"] for s in machines.wait(crawls)] == ["COMPLETED"] * 2
    db_file = tmp_path / "load" / "pricewatch.duckdb"
    [state] = machines.wait([machines.run("load-bundles/load", {"db_path": str(db_file), "storage": s3url})])
    assert state["type"] == "COMPLETED", state
    single = tmp_path / "single" / "pricewatch.duckdb"
    single_machine(nights, single, machines.api)   # oldest first, as `pricewatch run --replay` does
    assert differences(single, db_file) == []


@pytest.mark.slow
def test_a_crawl_worker_killed_mid_crawl_leaves_no_partial_bundle_and_its_run_is_run_again(machines, tmp_path):
    night = night_folder(tmp_path / "night", ["jarvislabs", "thunder_compute"])   # a browser crawl takes seconds
    s3url = machines.s3.url + "-killed"
    run_id = machines.run("crawl-bundles/crawl-http", {"providers": ["jarvislabs"], "replay": str(night),
                                                       "storage": s3url})
    log = tmp_path.parent / "crawl-machine" / "worker.log"
    worker = machines.workers["crawl-machine"]
    wait_for(lambda: machines.state(run_id)["type"] == "RUNNING", 120, 0.5, "crawl run running")
    wait_for(lambda: any("chrom" in _cmdline(pid) for pid in _descendants(worker.pid)), 60, 0.2, "browser started")
    for pid in [worker.pid] + _descendants(worker.pid):   # the machine is lost: worker, flow run, crawl
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    worker.wait()
    assert bundles.complete(s3url, machines.s3.options) == []
    # Prefect marks the silent run crashed, then schedules it again; a machine joining the pool runs it.
    wait_for(lambda: machines.state(run_id)["type"] in ("CRASHED", "SCHEDULED", "PENDING"), pp.SILENT_AFTER_S + 120,
             2, "run crashed by the server")
    assert bundles.complete(s3url, machines.s3.options) == []
    # The second automation reacts to the Crashed state a moment later: wait for it, or the wait
    # below would take Crashed (a final state) for the end.
    wait_for(lambda: machines.state(run_id)["type"] in ("SCHEDULED", "PENDING", "RUNNING", "COMPLETED"), 120,
             1, "crashed run scheduled again by the automation")
    machines.start_worker("crawl-machine-2", "pricewatch-crawl-http")
    [state] = machines.wait([run_id], timeout_s=300)
    assert state["type"] == "COMPLETED", state
    [ref] = bundles.complete(s3url, machines.s3.options)
    assert bundles.read_bundle(ref, s3url, machines.s3.options).result.returncode == 0
    states = [s["type"] for s in api(machines.api, "GET", f"/flow_run_states/?flow_run_id={run_id}")]
    assert "CRASHED" in states and states.count("RUNNING") >= 2, (states, log)


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""

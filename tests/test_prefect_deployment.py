"""Scheduled operation on a REAL local Prefect server (SQLite, loopback, its own PREFECT_HOME):
prefect.yaml deployed with `prefect deploy`, a process worker running the nightly deployment on
the shipped captures, the registered schedule, the run's artifacts and final state, failure
notices through the alert channels, the backfill flow, and `pricewatch serve`.

Every process is started in its own session and stopped by process group (TERM, then KILL)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from pricewatch.server import prefect_processes, serve
from tests.conftest import ROOT, PrefectServer, clean_env, shipped, shipped_exchanges
from warehouse import db

POOL = "pricewatch-local"
TIMINGS: dict[str, float] = {}


def api(server: PrefectServer, method: str, path: str, body: dict | None = None):
    req = urllib.request.Request(server.api + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read() or b"null")


@pytest.fixture(scope="module")
def server(prefect_server):
    """The session's one Prefect server (tests/conftest.py)."""
    TIMINGS["server start (fresh SQLite)"] = prefect_server.started_in_s
    yield prefect_server
    print("\nPrefect timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in TIMINGS.items()))


def timed(name: str, fn, *args, **kw):
    t = time.monotonic()
    out = fn(*args, **kw)
    TIMINGS[name] = time.monotonic() - t
    return out


def cited_prices(db_path: Path) -> dict[str, float]:
    """The two prices the published pages cite: Massed Compute 8x B200, Thunder Compute A100 80GB x1."""
    con = db.connect(db_path, read_only=True)
    try:
        return dict(con.execute("""
            SELECT provider, price_per_hour::DOUBLE FROM offers
            WHERE (provider = 'massed_compute' AND gpu_model = 'B200' AND gpu_count = 8)
               OR (provider = 'thunder_compute' AND offer_key = '1x a100xl 80GB on-demand/prototyping')""").fetchall())
    finally:
        con.close()


@pytest.mark.slow   # heavy (deploy, a process worker, a full nightly run: ~30 s): CI runs it with -m slow
def test_nightly_deployment_runs_on_a_process_worker_and_fills_the_warehouse(server, tmp_path):
    env = server.env
    timed("work-pool create", prefect_processes.ensure_pool, env, ROOT)
    timed("deploy --all", prefect_processes.deploy, env, ROOT)

    deployment = api(server, "GET", "/deployments/name/collect-prices/nightly")
    [schedule] = deployment["schedules"]
    assert (schedule["schedule"]["cron"], schedule["schedule"]["timezone"], schedule["active"]) == ("0 2 * * *", "UTC", True)
    assert deployment["work_pool_name"] == POOL
    # No checkout path is stored: the worker finds its own checkout when a run starts.
    assert deployment["pull_steps"] == [{"pricewatch.server.prefect_processes.enter_checkout": {}}]
    backfill = api(server, "GET", "/deployments/name/backfill-prices/backfill")
    assert backfill["schedules"] == [] and backfill["parameters"]["archives"] == "data/archive"

    db_path = tmp_path / "warehouse.duckdb"
    seeds = tmp_path / "seeds"   # the two seed sources' shipped captures, one night
    seeds.mkdir()
    for p in ("massed_compute", "thunder_compute"):
        (seeds / f"{p}.warc.gz").symlink_to(shipped(p))
    params = {"replay": str(seeds), "db_path": str(db_path)}
    out = prefect_processes.run_prefect(["deployment", "run", "collect-prices/nightly", "--params", json.dumps(params)],
                              env, ROOT).stdout
    flow_run_id = re.search(r"UUID: ([0-9a-f-]{36})", out).group(1)

    # Started from another folder, with no PRICEWATCH_HOME: the pull step finds the checkout.
    worker_env = {k: v for k, v in env.items() if k != "PRICEWATCH_HOME"}
    worker = prefect_processes.start_group(prefect_processes.prefect_cmd("worker", "start", "--pool", POOL, "--run-once"),
                                 worker_env, tmp_path / "worker.log", cwd=tmp_path)
    t = time.monotonic()
    try:
        worker.wait(timeout=150)
    finally:
        prefect_processes.stop_group(worker)
    TIMINGS["worker --run-once (pick up + run)"] = time.monotonic() - t

    run = api(server, "GET", f"/flow_runs/{flow_run_id}")
    log = (tmp_path / "worker.log").read_text()[-3000:]
    assert run["state"]["type"] == "COMPLETED", f"{run['state']}\n{log}"
    assert run["state"]["message"] == "2/2 providers ok"
    # Cited on the published pages 2026-10-29 (../shared/published/CLAIMS.md) and in the captures.
    assert cited_prices(db_path) == {"massed_compute": 43.46, "thunder_compute": 1.09}

    artifacts = api(server, "POST", "/artifacts/filter",
                    {"artifacts": {"flow_run_id": {"any_": [flow_run_id]}}})
    [table] = [a for a in artifacts if a["key"] == "pricewatch-providers"]
    rows = {r["provider"]: r for r in json.loads(table["data"])}
    thunder_keys = set(json.loads(shipped_exchanges("thunder_compute")[1]["body"])["specs"])
    # massed_compute's real 2026-08-22 page lists 25 configurations (tests/test_massed_compute.py).
    assert {p: (r["status"], r["offers"]) for p, r in rows.items()} == {
        "massed_compute": ("ok", 25), "thunder_compute": ("ok", len(thunder_keys))}
    assert all(r["duration_s"] > 0 for r in rows.values())

    # The claims summary: counts by status as stored, and where the re-rendered report is.
    [claims] = [a for a in artifacts if a["key"] == "pricewatch-claims"]
    report = db_path.parent / "report" / "claims-report.md"
    assert report.is_file() and str(report) in claims["data"]
    con = db.connect(db_path, read_only=True)
    try:
        counts = dict(con.execute("SELECT status, count(*) FROM claim_evaluations GROUP BY 1").fetchall())
        cited = dict(con.execute("SELECT claim_id, status FROM claim_evaluations WHERE claim_id IN "
                                 "('g-cite-massed-b200x8', 'g-cite-thunder-a100')").fetchall())
    finally:
        con.close()
    assert all(f"| {status} | {n} |" in claims["data"] for status, n in counts.items())
    # Both citations are the captured prices (CLAIMS.md: $43.46/h and $1.09/h).
    assert cited == {"g-cite-massed-b200x8": "holds", "g-cite-thunder-a100": "holds"}


# --- failure behaviour: the flow run in this process, against the same server -------------

@pytest.fixture
def on_server(on_prefect):
    return on_prefect


def thunder_with_renamed_pricing_field() -> list[dict]:
    # The API renames its top-level field: the spider must report a layout error, not guess.
    ex = shipped_exchanges("thunder_compute")
    ex[0]["body"] = ex[0]["body"].replace(b'"pricing"', b'"prices"')
    return ex


def notice_receiver(httpserver, monkeypatch) -> list[dict]:
    received: list[dict] = []

    def handler(request):
        from werkzeug import Response
        received.append(json.loads(request.data))
        return Response("ok")

    httpserver.expect_request("/hook", method="POST").respond_with_handler(handler)
    monkeypatch.setenv("PRICEWATCH_ALERT_URLS", f"json://127.0.0.1:{httpserver.port}/hook")
    return received


def test_a_failed_provider_completes_the_run_and_the_state_names_it_and_why(on_server, make_warc, tmp_path,
                                                                          httpserver, monkeypatch):
    from flows.nightly import nightly
    from flows.run_report import summary_of
    received = notice_receiver(httpserver, monkeypatch)
    warc = make_warc(shipped_exchanges("massed_compute") + thunder_with_renamed_pricing_field())
    state = nightly(db_path=str(tmp_path / "w.duckdb"), replay=str(warc), write_report=False, return_state=True)

    assert state.is_completed()
    assert state.message.startswith("1/2 providers ok; not ok: thunder_compute: ")
    assert "'pricing'" in state.message  # why: the field the spider expected
    summary = summary_of(state)
    assert summary["providers"]["massed_compute"]["status"] == "ok"
    assert summary["providers"]["thunder_compute"]["status"] == "failed"
    # The warehouse has massed_compute's offers of this run.
    assert cited_prices(tmp_path / "w.duckdb") == {"massed_compute": 43.46}
    # One source failing one night is not paged (a streak of failures raises its own alert).
    assert received == []
    artifacts = api(on_server, "POST", "/artifacts/filter",
                    {"artifacts": {"flow_run_id": {"any_": [str(state.state_details.flow_run_id)]}}})
    table = {r["provider"]: r for a in artifacts if a["key"] == "pricewatch-providers" for r in json.loads(a["data"])}
    assert table["thunder_compute"]["status"] == "failed" and "'pricing'" in table["thunder_compute"]["error / findings"]


def test_a_suspect_provider_sends_a_notice(on_server, make_warc, tmp_path, httpserver, monkeypatch):
    from flows.nightly import nightly
    received = notice_receiver(httpserver, monkeypatch)
    # Massed Compute's real page with every price cell saying "Request": it parses, but an
    # offer list with no price at all is not plausible (the priced-share monitor).
    massed = shipped_exchanges("massed_compute")
    body, n = re.subn(rb"\$\$\d+\.\d+", b"Request", massed[0]["body"])
    assert n >= 23
    massed[0]["body"] = body
    warc = make_warc(massed + shipped_exchanges("thunder_compute"))
    state = nightly(db_path=str(tmp_path / "w.duckdb"), replay=str(warc), write_report=False, return_state=True)

    assert state.is_completed()
    assert "massed_compute: suspect" in state.message
    [notice] = received
    assert notice["type"] == "warning" and "suspect (massed_compute)" in notice["title"]
    assert "have a price" in notice["message"]


def test_a_run_where_no_provider_succeeded_ends_failed_and_says_why(on_server, make_warc, tmp_path,
                                                                    httpserver, monkeypatch):
    from flows.nightly import nightly
    from flows.run_report import RunFailed, summary_of
    received = notice_receiver(httpserver, monkeypatch)
    warc = make_warc(thunder_with_renamed_pricing_field())
    state = nightly(db_path=str(tmp_path / "w.duckdb"), replay=str(warc), write_report=False, return_state=True)

    assert state.is_failed()
    assert state.message.startswith("0/1 providers ok; not ok: thunder_compute: ")
    assert summary_of(state)["status"] == "failed"
    with pytest.raises(RunFailed, match="thunder_compute"):
        state.result()
    [notice] = received
    assert notice["type"] == "failure" and "FAILED" in notice["title"]
    run = api(on_server, "GET", f"/flow_runs/{state.state_details.flow_run_id}")
    assert run["state"]["type"] == "FAILED" and "thunder_compute" in run["state"]["message"]


@pytest.mark.slow   # heavy (real processes, ~15-35 s): CI runs it with -m slow
def test_backfill_replays_dated_archives_oldest_first_as_nightly_subflows(on_server, make_warc, tmp_path):
    from flows.backfill import backfill
    archives = tmp_path / "archive"
    # Two nights: the real 2026-08-22 capture, and a later night where Massed Compute's
    # 8x B200 went from $43.46 to $41.00.
    (archives / "2026-08-22").mkdir(parents=True)
    (archives / "2026-08-22" / "massed_compute.warc.gz").symlink_to(shipped("massed_compute"))
    later = []
    for e in shipped_exchanges("massed_compute"):
        later.append({**e, "captured_at": "2026-11-05T02:00:02Z", "body": e["body"].replace(b"$$43.46", b"$$41.00")})
    warc = make_warc(later)
    (archives / "2026-11-05").mkdir()
    (archives / "2026-11-05" / "massed_compute.warc.gz").symlink_to(warc)
    db_path = tmp_path / "w.duckdb"

    state = backfill(archives=str(archives), db_path=str(db_path), return_state=True)
    assert state.is_completed(), state.message
    results = state.result()
    assert [(r["snapshot"], r["state"], r["status"]) for r in results] == [
        ("2026-08-22", "Completed", "ok"), ("2026-11-05", "Completed", "ok")]
    con = db.connect(db_path, read_only=True)
    history = con.execute("""SELECT r.snapshot_date::VARCHAR, o.price_per_hour::DOUBLE FROM offers o JOIN runs r USING (run_id)
                             WHERE o.provider = 'massed_compute' AND o.gpu_model = 'B200' AND o.gpu_count = 8
                             ORDER BY r.snapshot_date""").fetchall()
    con.close()
    assert history == [("2026-08-22", 43.46), ("2026-11-05", 41.00)]
    # Rerunning a backfill changes nothing (replays have deterministic run ids).
    again = backfill(archives=str(archives), db_path=str(db_path), return_state=True)
    assert [r["loaded"] for r in again.result()] == [False, False]


# --- pricewatch serve ---------------------------------------------------------------------

@pytest.mark.slow   # heavy (real processes, ~15-35 s): CI runs it with -m slow
def test_serve_starts_server_pool_deployments_and_worker_and_stops_them_on_sigterm(tmp_path):
    port = prefect_processes.free_port()
    env = clean_env({**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    out_path = tmp_path / "serve.out"
    t = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "pricewatch.cli", "serve", "--port", str(port),
                             "--home", str(tmp_path / "prefect")], cwd=ROOT, env=env,
                            stdout=open(out_path, "wb"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while "Ctrl-C stops" not in out_path.read_text():
            assert proc.poll() is None, out_path.read_text()
            assert time.monotonic() - t < 150, out_path.read_text()
            time.sleep(0.5)
        TIMINGS["pricewatch serve ready"] = time.monotonic() - t
        out = out_path.read_text()
        assert f"Prefect UI: http://127.0.0.1:{port}" in out
        pids = {k: int(v) for k, v in re.findall(r"(server|worker)=(\d+)", out)}
        srv = PrefectServer(f"http://127.0.0.1:{port}/api", {}, tmp_path, 0.0)
        names = {d["name"] for d in api(srv, "POST", "/deployments/filter", {})}
        assert names == {"nightly", "backfill"}
        workers = api(srv, "POST", f"/work_pools/{POOL}/workers/filter", {})
        deadline = time.monotonic() + 30
        while not workers and time.monotonic() < deadline:  # the worker's first heartbeat
            time.sleep(1)
            workers = api(srv, "POST", f"/work_pools/{POOL}/workers/filter", {})
        assert workers and workers[0]["status"] == "ONLINE"
        # What `pricewatch run` looks for (in <checkout>/.prefect by default) to use this server.
        assert serve.served_api_url(tmp_path / "prefect") == srv.api

        t = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)  # serve itself, not its group: it must stop its children
        assert proc.wait(timeout=45) == 0
        TIMINGS["pricewatch serve stop"] = time.monotonic() - t
        for name, pid in pids.items():
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        assert not (tmp_path / "prefect" / serve.SERVE_RECORD).exists()
        assert serve.served_api_url(tmp_path / "prefect") is None
    finally:
        prefect_processes.stop_group(proc)

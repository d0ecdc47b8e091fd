"""Read while write: an analyst's reader process queries the warehouse in a loop, the way
`pricewatch query` does (a read-only, sandboxed connection opened per query and closed at once,
waiting while a writer holds DuckDB's lock), while the nightly load stores a run of 30,000
offers in another process. The reader never sees a half-written run, and the load is not kept
waiting for long.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

from pricewatch.collect import store
from tests.conftest import ROOT
from warehouse import db

# One reading per loop: every run the reader sees, with its stored offers and the offers its
# provider runs say it stored. A run seen without all of its offers is a half-written run.
READER = r"""
import json, sys, time
from pathlib import Path
from pricewatch.cli.query import open_query_connection
path, stop, log = Path(sys.argv[1]), Path(sys.argv[2]), open(sys.argv[3], "w", buffering=1)
SQL = '''SELECT r.run_id,
                (SELECT count(*) FROM offers o WHERE o.run_id = r.run_id) AS stored,
                (SELECT sum(p.item_count) FROM provider_runs p WHERE p.run_id = r.run_id) AS announced
         FROM runs r ORDER BY r.run_id'''
while not stop.exists():
    t0 = time.monotonic()
    con = open_query_connection(path)          # waits while the writer holds the lock
    rows = con.execute(SQL).fetchall()
    con.close()
    log.write(json.dumps({"t": time.time(), "waited_s": time.monotonic() - t0, "runs": rows}) + "\n")
    time.sleep(0.02)                           # an analyst's next keystroke
"""

PROVIDERS = ["massed_compute", "thunder_compute", "lambda_cloud"]


def frames(run_id: str, at: datetime, per_provider: int):
    run = {"run_id": run_id, "mode": "replay", "observed_at": at, "snapshot_date": at.date(), "started_at": at,
           "finished_at": at, "status": "ok", "replay_source": None, "flow_run_id": None, "summary": "synthetic"}
    provider_runs = pd.DataFrame([{
        "run_id": run_id, "provider": p, "status": "ok", "observed_at": at, "item_count": per_provider,
        "priced_count": per_provider, "unpriced_count": 0, "duplicates_dropped": 0, "http_error_count": 0,
        "retries": 0, "attempts": 1, "duration_s": 1.0, "unknown_labels": [], "warnings": [], "monitors": [],
        "error": None} for p in PROVIDERS])
    n = per_provider * len(PROVIDERS)
    offers = pd.DataFrame({
        "run_id": run_id, "provider": [PROVIDERS[i % len(PROVIDERS)] for i in range(n)],
        "offer_key": [f"1x H100 SXM 80GB on-demand/{i}" for i in range(n)], "gpu_label": "H100 SXM",
        "gpu_model": "H100", "gpu_count": 1, "vram_gb": 80.0, "form_factor": "SXM", "billing": "on-demand",
        "tier": "on-demand", "reserved_term": None, "self_service": True, "region": None, "currency": "USD",
        "price_unit": "gpu_hour", "price_per_hour": 2.0, "price_per_gpu_hour": 2.0, "is_priced": True,
        "price_text": None, "availability": None, "is_aggregator": False, "observed_at": at,
        "source_url": "https://example.test/pricing", "warc_file": "synthetic.warc.gz",
        "warc_record_id": "<urn:uuid:synthetic>", "body_sha256": "0" * 64, "held_reason": None,
        "screen_note": None, "price_raw": "$2.00"})
    return run, provider_runs, offers


@pytest.mark.slow
def test_a_reader_in_a_loop_never_sees_a_half_written_run_and_the_load_is_not_held_up(tmp_path):
    path = tmp_path / "pw.duckdb"
    first = datetime(2026, 10, 28, 2, 0, tzinfo=timezone.utc)
    con = db.connect(path)
    store.load_run(con, *frames("run-1", first, 100))
    con.close()

    stop, log = tmp_path / "stop", tmp_path / "reads.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path), str(stop), str(log)], cwd=ROOT, env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        def reads():
            return [json.loads(ln) for ln in log.read_text().splitlines()] if log.exists() else []

        deadline = time.monotonic() + 60
        while len(reads()) < 5:                          # the reader is busy before the load starts
            assert reader.poll() is None and time.monotonic() < deadline, reader.stderr.read() if reader.poll() else "slow"
            time.sleep(0.05)
        run, provider_runs, offers = frames("run-2", first + timedelta(days=1), 10_000)
        started = time.monotonic()
        con = db.connect(path, wait_s=db.load_wait_s())   # the loader's own wait and retry
        connected = time.monotonic() - started
        try:
            assert store.load_run(con, run, provider_runs, offers)
        finally:
            con.close()
        loaded = time.monotonic() - started
        load_end = time.time()
        while not any(r["t"] > load_end and len(r["runs"]) == 2 for r in reads()):
            assert reader.poll() is None and time.monotonic() < deadline, reader.stderr.read() if reader.poll() else "slow"
            time.sleep(0.05)
    finally:
        stop.touch()
        reader.wait(timeout=30)
    assert reader.returncode == 0, reader.stderr.read()

    seen = reads()
    for r in seen:   # every run the reader ever saw was whole: all of its offers, or not there at all
        assert all(stored == announced for _, stored, announced in r["runs"]), r
    assert [r["runs"] for r in seen[:1]] == [[["run-1", 300, 300]]]
    assert seen[-1]["runs"] == [["run-1", 300, 300], ["run-2", 30_000, 30_000]]
    # the writer waited at most for one short read; the load itself is one transaction of ~1 s
    assert connected < 5.0, f"the loader waited {connected:.1f} s for the reader's lock"
    assert loaded < 30.0, f"the load took {loaded:.1f} s"
    # and the reader was held up only while the load ran
    assert max(r["waited_s"] for r in seen) < loaded + 5.0

"""A crash in the middle of a load (kill -9, the OOM killer, a power cut) leaves the warehouse as
the previous run left it, and the next run loads normally: the flow's load step writes a run in
one DuckDB transaction. The crash here is real: a loader process SIGKILLed while it is writing
a large run's offers into the database file, before its COMMIT."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pricewatch.collect import judge, store
from tests.conftest import ROOT, shipped
from warehouse import db

BIG = 300_000  # offers in the crashing run: its insert takes seconds, so the kill lands inside it

# The flow's own load step (flows.tasks.load_run, without Prefect) in a process of its own.
LOADER = r"""
import pickle, sys
import pandas as pd
from flows.tasks import load_run

db_path, batch_path = sys.argv[1], sys.argv[2]
run, provider_runs, offers, facts, n = pickle.load(open(batch_path, "rb"))
big = pd.concat([offers] * -(-n // len(offers)), ignore_index=True).iloc[:n].copy()
big["offer_key"] = big["offer_key"] + "#" + pd.Series(range(n)).astype(str)
print("loading", flush=True)
print("committed" if load_run.fn(db_path, run, provider_runs, big, facts) else "skipped", flush=True)
"""


def build(crawl, as_of: datetime | None):
    outcomes = [judge.judge_crawl(crawl(p, shipped(p))) for p in ("massed_compute", "thunder_compute")]
    return judge.build_run(outcomes, "replay", datetime.now(timezone.utc), as_of, None)


def snapshot(db_path: Path) -> dict:
    con = db.connect(db_path)  # read-write, as the next run opens it (replays the WAL if any)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("runs", "provider_runs", "offers", "source_facts")}
    finally:
        con.close()


def written_bytes(db_path: Path) -> int:
    wal = Path(f"{db_path}.wal")
    return db_path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def start_loader(tmp_path: Path, db_path: Path, batch: Path, name: str):
    script = tmp_path / "loader.py"
    script.write_text(LOADER)
    out = tmp_path / f"{name}.out"
    proc = subprocess.Popen([sys.executable, str(script), str(db_path), str(batch)], cwd=ROOT,
                            stdout=open(out, "wb"), stderr=subprocess.STDOUT, start_new_session=True)
    return proc, out


@pytest.mark.slow   # heavy (real processes, ~15-35 s): CI runs it with -m slow
def test_a_load_killed_mid_transaction_leaves_the_previous_state_and_the_rerun_loads(tmp_path, crawl):
    db_path = tmp_path / "w.duckdb"
    # The previous night, loaded normally.
    run, pr, offers, facts = build(crawl, None)
    con = db.connect(db_path)
    assert store.load_run(con, run, pr, offers, facts)
    con.execute("CHECKPOINT")
    con.close()
    before = snapshot(db_path)

    # The next night: many offers.
    run2, pr2, offers2, facts2 = build(crawl, datetime(2026, 10, 30, 2, tzinfo=timezone.utc))
    assert run2["run_id"] != run["run_id"]
    batch = tmp_path / "batch.pkl"
    batch.write_bytes(pickle.dumps((run2, pr2, offers2, facts2, BIG)))

    size0 = written_bytes(db_path)
    proc, out = start_loader(tmp_path, db_path, batch, "crashed")
    try:
        deadline = time.monotonic() + 120
        while b"loading" not in out.read_bytes() or written_bytes(db_path) < size0 + 2_000_000:
            assert proc.poll() is None, f"loader ended before the kill (raise BIG?):\n{out.read_text()}"
            assert time.monotonic() < deadline, out.read_text()
            time.sleep(0.01)
        # Offers are being written into the file and nothing is committed yet: a real kill -9.
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert b"committed" not in out.read_bytes()

    after = snapshot(db_path)
    assert after == before  # not one row of the killed run, nothing of the previous one lost
    assert run2["run_id"] not in {r[0] for r in after["runs"]}

    # The rerun of the same night loads normally.
    proc, out = start_loader(tmp_path, db_path, batch, "rerun")
    assert proc.wait(180) == 0, out.read_text()
    assert out.read_text().split() == ["loading", "committed"]
    con = db.connect(db_path, read_only=True)
    try:
        per_run = dict(con.execute("SELECT run_id, count(*) FROM offers GROUP BY run_id").fetchall())
        latest = con.execute("SELECT DISTINCT run_id FROM latest_offers").fetchall()
    finally:
        con.close()
    assert per_run == {run["run_id"]: len(offers), run2["run_id"]: BIG}
    assert latest == [(run2["run_id"],)]

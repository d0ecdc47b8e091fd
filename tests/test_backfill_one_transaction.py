"""The backfill flow with one_transaction (flows/backfill.py): every dated folder judged first,
then all runs stored in ONE transaction, then each run's claims and alerts in snapshot order.

Three nights of two seed sources (the session's Prefect server, in-process flows): the shipped
captures, the same pages a week later, and a week after that with Thunder Compute's A100 80GB
at $1.05 instead of $1.09 (tests/alerting.py's variant, dated that night). Each night's
exchanges carry its own capture time, so each folder is a run of its own snapshot time.
"""

import json
import shutil

import pytest
from typer.testing import CliRunner

from flows.backfill import backfill
from pricewatch.cli.main import app
from pricewatch.evidence.archive import write_exchanges
from tests.alerting import A100_PRICING_KEY
from tests.conftest import shipped, shipped_exchanges
from tests.machines import dump
from warehouse import db

PROVIDERS = ("massed_compute", "thunder_compute")


def _night(archives, date: str, thunder_a100: float | None = None):
    folder = archives / date
    folder.mkdir(parents=True)
    for p in PROVIDERS:
        ex = [{**e, "captured_at": f"{date}T02:00:00Z"} for e in shipped_exchanges(p)]
        if p == "thunder_compute" and thunder_a100 is not None:
            pricing = json.loads(ex[0]["body"])
            pricing["pricing"][A100_PRICING_KEY] = thunder_a100
            ex[0]["body"] = json.dumps(pricing).encode()
        write_exchanges(folder / f"{p}.warc.gz", ex)


def _archives(tmp_path):
    archives = tmp_path / "captures"
    (archives / "2026-10-29").mkdir(parents=True)
    for p in PROVIDERS:
        shutil.copy(shipped(p), archives / "2026-10-29")
    _night(archives, "2026-11-05")
    _night(archives, "2026-11-12", thunder_a100=1.05)
    return archives


#: The stored rows of the claim_history view (migration 052), refreshed inside a load's
#: transaction for the evaluations made before it (warehouse/marts.py, refresh_claim_history.sql):
#: per folder the third load stores the first two runs' rows; in one transaction every load comes
#: before every evaluation, so the next load stores them. The view itself (compared) reads the
#: same rows either way.
CLAIM_HISTORY_CACHE = ("claim_history_last", "claim_history_state", "claim_history_stored")


def differences(a, b) -> list[str]:
    """tests/machines.py differences, the claim history's stored rows left out."""
    import difflib

    def kept(path):
        out, skip = [], False
        for line in dump(path):
            if line.startswith("== "):
                skip = line.split()[1] in CLAIM_HISTORY_CACHE
            if not skip:
                out.append(line)
        return out
    return [line for line in difflib.unified_diff(kept(a), kept(b), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def _run_ids(db_path) -> list[str]:
    con = db.connect(db_path, read_only=True)
    try:
        return [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY observed_at").fetchall()]
    finally:
        con.close()


@pytest.mark.slow   # four backfills of three nights (~20 s): the fast suite keeps the two below
def test_one_transaction_is_all_or_nothing_and_gives_the_per_folder_warehouse(tmp_path, on_prefect, monkeypatch):
    import warehouse.load as load
    archives = _archives(tmp_path)
    each, together = tmp_path / "each" / "w.duckdb", tmp_path / "together" / "w.duckdb"
    state = backfill(archives=str(archives), db_path=str(each), write_report=False, return_state=True)
    assert state.is_completed(), state.message

    # A failure in the middle of the store: none of the three runs is stored, the state says why.
    real, calls = load._store_run, []

    def second_fails(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full while storing the second run")
        return real(*args, **kwargs)

    monkeypatch.setattr(load, "_store_run", second_fails)
    state = backfill(archives=str(archives), db_path=str(together), one_transaction=True, write_report=False,
                     return_state=True)
    assert state.is_failed() and len(calls) == 2
    assert "disk full while storing the second run" in state.message and "none of its 3 runs stored" in state.message
    assert _run_ids(together) == []

    # The rerun with the fault gone stores all three, as the per-folder backfill stored them.
    monkeypatch.setattr(load, "_store_run", real)
    state = backfill(archives=str(archives), db_path=str(together), one_transaction=True, write_report=False,
                     return_state=True)
    assert state.is_completed(), state.message
    results = state.result()
    assert [(r["snapshot"], r["state"], r["status"], r["loaded"]) for r in results] == [
        ("2026-10-29", "Completed", "ok", True), ("2026-11-05", "Completed", "ok", True),
        ("2026-11-12", "Completed", "ok", True)]
    # The third night's price move is alerted as news (not as a backfill's history).
    assert results[2]["summary"]["alerts"]["raised"] >= 1
    assert _run_ids(together) == _run_ids(each) and len(_run_ids(each)) == 3

    # A rerun of a completed one-transaction backfill stores nothing new.
    again = backfill(archives=str(archives), db_path=str(together), one_transaction=True, write_report=False,
                     return_state=True)
    assert again.is_completed(), again.message
    assert [r["loaded"] for r in again.result()] == [False, False, False]
    # Every table and view the same as per folder (compare_replays' dump leaves out wall-clock
    # columns: started_at/finished_at of runs, created_at of alerts, flow_run_id, ...).
    assert differences(each, together) == []


def test_the_in_memory_history_is_the_warehouses_once_the_run_is_stored():
    """Each provider's trusted runs' item counts, newest first, HISTORY_RUNS of them
    (warehouse/load.py recent_item_counts); a run that is not trusted adds nothing."""
    import pandas as pd

    from flows.backfill import with_counts
    runs = pd.DataFrame({"provider": ["a", "b", "c"], "item_count": [4, 9, 0], "trusted": [True, False, None]})
    assert with_counts({"a": [3, 2, 1, 1, 1], "b": [7]}, runs) == {"a": [4, 3, 2, 1, 1], "b": [7]}
    assert with_counts({}, runs.iloc[:0]) == {}


def test_the_cli_refuses_one_transaction_without_several_dated_folders(tmp_path):
    one = tmp_path / "2026-10-29"
    one.mkdir()
    shutil.copy(shipped("massed_compute"), one)
    # A Prefect API named: the refusal comes before any server would be started or reached.
    env = {"PRICEWATCH_DB": str(tmp_path / "w.duckdb"), "PREFECT_API_URL": "http://127.0.0.1:9/api"}
    for args, why in ((["--one-transaction"], "--one-transaction only applies to a --replay of several dated folders"),
                      (["--replay", str(one), "--one-transaction"], "--one-transaction needs a --replay of several")):
        result = CliRunner().invoke(app, ["run", *args], env=env)
        assert result.exit_code == 2, result.output
        got = [ln for ln in result.stderr.splitlines() if ln.strip()]
        assert len(got) == 1 and why in got[0], result.stderr

"""The CLI contract later tooling relies on: `pricewatch run` (a Prefect flow) and `pricewatch query`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import duckdb
import pytest

from tests.conftest import ROOT, clean_env, shipped, shipped_exchanges

PRICEWATCH = [sys.executable, "-m", "pricewatch.cli"]


def pricewatch(*args, env=None, timeout=240, clean=False):
    base = {} if clean else os.environ
    return subprocess.run(PRICEWATCH + list(args), capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env={**base, **(env or {})})


@pytest.fixture(scope="module")
def loaded_db(tmp_path_factory, prefect_server):
    """One nightly run through the CLI (Prefect flow on the session's Prefect server, its lines
    to a log file). Returns the path, the run, the counts after it, the arguments of the run
    and the log file."""
    path = tmp_path_factory.mktemp("cli") / "pw.duckdb"
    seeds = tmp_path_factory.mktemp("seeds")   # the two seed sources' shipped captures, one run
    for p in ("massed_compute", "thunder_compute"):
        (seeds / f"{p}.warc.gz").symlink_to(shipped(p))
    log = path.parent / "prefect.log"
    args = ["run", "--replay", str(seeds), "--db", str(path)]
    on_server = {**clean_env(os.environ), "PREFECT_API_URL": prefect_server.api}
    first = pricewatch(*args, "--log-file", str(log), env={**on_server, "COLUMNS": "200"}, clean=True)
    counts = pricewatch("query", "SELECT (SELECT count(*) FROM runs) r, (SELECT count(*) FROM offers) o",
                        "--db", str(path), "--format", "json")
    return path, first, counts, (args, on_server), log


def test_run_loads_the_replay_and_exits_zero(loaded_db):
    path, first, _, _, _ = loaded_db
    assert first.returncode == 0, first.stdout + first.stderr
    assert "massed_compute" in first.stdout and "thunder_compute" in first.stdout


@pytest.mark.slow   # a second CLI run (~10 s); the flow's own rerun is tests/test_claims_flow.py's
def test_rerun_of_the_same_replay_changes_nothing(loaded_db):
    path, _, counts_before, (args, on_server), _ = loaded_db
    second = pricewatch(*args, env=on_server, clean=True)
    assert second.returncode == 0, second.stderr
    assert "already loaded" in second.stdout
    after = pricewatch("query", "SELECT (SELECT count(*) FROM runs) r, (SELECT count(*) FROM offers) o",
                       "--db", str(path), "--format", "json")
    assert json.loads(after.stdout) == json.loads(counts_before.stdout) == [{"r": 1, "o": 50}]  # 25 offers each


def test_query_json_is_one_array_of_row_objects(loaded_db):
    path = loaded_db[0]
    out = pricewatch("query", "SELECT provider, offer_key, price_per_hour FROM latest_offers "
                     "WHERE offer_key IN ('8x B200 SXM6 on-demand', '1x a100xl 80GB on-demand/prototyping') ORDER BY provider",
                     "--db", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [
        {"provider": "massed_compute", "offer_key": "8x B200 SXM6 on-demand", "price_per_hour": 43.46},
        {"provider": "thunder_compute", "offer_key": "1x a100xl 80GB on-demand/prototyping", "price_per_hour": 1.09},
    ]


def test_query_csv_and_the_default_database_from_the_environment(loaded_db):
    path = loaded_db[0]
    out = pricewatch("query", "SELECT gpu_model, gpu_count, provider FROM cheapest_offer "
                     "WHERE gpu_model = 'B200' AND billing = 'on-demand'", "--format", "csv",
                     env={"PRICEWATCH_DB": str(path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["gpu_model,gpu_count,provider", "B200,8,massed_compute"]


def test_query_opens_the_database_read_only(loaded_db):
    path = loaded_db[0]
    out = pricewatch("query", "DELETE FROM offers", "--db", str(path))
    assert out.returncode == 1
    assert "read-only" in out.stderr.lower()
    assert json.loads(pricewatch("query", "SELECT count(*) n FROM offers", "--db", str(path),
                                 "--format", "json").stdout) == [{"n": 50}]


@pytest.mark.slow   # a whole CLI run (~10 s); the flow's Failed state is tests/test_prefect_deployment.py's
def test_run_exits_non_zero_only_when_no_provider_succeeded(tmp_path, make_warc, prefect_server):
    # (pricewatch run's own Prefect server, started when none is named, is tested in
    # tests/test_process_faults.py; here the session's server.)
    ex = shipped_exchanges("massed_compute")
    down = make_warc([{**ex[0], "status": 503, "reason": "Service Unavailable", "body": b"down"}], "down.warc.gz")
    out = pricewatch("run", "--replay", str(down), "--db", str(tmp_path / "pw.duckdb"),
                     env={"PREFECT_API_URL": prefect_server.api})
    assert out.returncode == 1, out.stdout
    assert "failed" in out.stdout and "HTTP 503" in out.stdout


# --- what people watching `pricewatch run` see (the same run as loaded_db) -------------------

def test_run_prints_a_line_per_provider_then_the_run_with_its_alerts(loaded_db):
    out = loaded_db[1]
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    progress = [ln for ln in lines if re.match(r"^  ok\s+\w+\s+25 offers\s+\d+\.\d s$", ln)]
    assert sorted(ln.split()[1] for ln in progress) == ["massed_compute", "thunder_compute"], out.stdout
    run_line = next(n for n, ln in enumerate(lines) if ln.startswith("run replay-"))
    assert all(lines.index(ln) < run_line for ln in progress)
    assert "2/2 providers ok, 50 offers, loaded" in lines[run_line]
    # Two seed sources on an empty warehouse: nothing to compare with, no alert raised.
    assert "\n  alerts: 0 raised, 0 delivered\n" in out.stdout
    assert re.search(r"^  claims: holds \d+ · drifted \d+ · unverifiable \d+$", out.stdout, re.M)


def test_prefect_lines_go_to_the_log_file_not_the_console(loaded_db):
    out, log = loaded_db[1], loaded_db[4]
    assert "Finished in state" not in out.stdout + out.stderr
    assert f"Prefect log: {log}" in out.stderr
    text = log.read_text()
    assert "Task run 'crawl-thunder_compute' - Finished in state Completed()" in text
    assert "Flow run" in text and "Beginning flow run" in text


# --- the CLI for people: --version, -h, every statement, wide results, explore ---------------
# In-process (typer's CliRunner) on a migrated, empty warehouse: no crawl needed.

@pytest.fixture(scope="module")
def empty_db(tmp_path_factory):
    from warehouse import db, migrate
    path = tmp_path_factory.mktemp("people") / "pw.duckdb"
    db.connect(path).close()
    con = db.connect(path)
    migrate.migrate(con)
    con.close()
    return path


def cli(*args):
    from typer.testing import CliRunner

    from pricewatch.cli.main import app
    return CliRunner().invoke(app, list(args))


def test_version_and_short_help():
    r = cli("--version")
    assert r.exit_code == 0 and r.stdout.startswith("pricewatch 0.1.0 ")   # pyproject.toml: version = "0.1.0"
    for args in (["-h"], ["query", "-h"], ["export", "-h"]):
        r = cli(*args)
        assert r.exit_code == 0 and "Usage" in r.stdout, (args, r.output)


def test_every_statement_runs_and_shows_its_result(empty_db):
    r = cli("query", "SELECT 1 AS first_one; SELECT 2 AS second_one", "--db", str(empty_db))
    assert r.exit_code == 0, r.output
    assert "[1/2] SELECT 1 AS first_one" in r.stdout and "[2/2] SELECT 2 AS second_one" in r.stdout
    assert r.stdout.index("first_one") < r.stdout.index("second_one")
    r = cli("query", "SELECT 1; SELECT 2", "--db", str(empty_db), "--format", "csv")
    assert r.exit_code == 2 and "--format csv takes one statement; got 2" in r.stderr
    r = cli("query", "SELECT 1; DELETE FROM offers", "--db", str(empty_db))
    assert r.exit_code == 1 and "DELETE statements are not allowed" in r.stderr and "[1/2]" not in r.stdout


def test_wide_results_fold_into_records_and_never_cut_a_header(empty_db):
    names = [f"gpu_model_of_the_offer_number_{i:02d}" for i in range(8)]
    sql = "SELECT " + ", ".join(f"'v{i}' AS {n}" for i, n in enumerate(names))
    r = cli("query", sql, "--db", str(empty_db))
    assert r.exit_code == 0, r.output
    assert all(n in r.stdout for n in names) and "…" not in r.stdout
    assert "shown as records" in r.stdout
    narrow = cli("query", "SELECT 'B200' AS gpu_model, 8 AS gpu_count", "--db", str(empty_db))
    assert "gpu_model" in narrow.stdout and "┃ gpu_count ┃" in narrow.stdout and "records" not in narrow.stdout
    forced = cli("query", "SELECT 'B200' AS gpu_model", "--db", str(empty_db), "-x")
    assert "row 1" in forced.stdout and "gpu_model" in forced.stdout


def test_explore_opens_harlequin_read_only_on_a_snapshot(empty_db, monkeypatch):
    from pricewatch.cli import explore
    # harlequin's docs: `harlequin -r "path/to/duck.db"` opens a DuckDB file read-only (-a duckdb, the default adapter)
    assert explore.harlequin_argv("/x/pw.duckdb") == ["harlequin", "--adapter", "duckdb", "--read-only", "/x/pw.duckdb"]
    monkeypatch.setattr(explore.shutil, "which", lambda name: None)   # never start the TUI in a test
    snap = empty_db.parent / "explore" / "pw.snapshot.duckdb"
    r = cli("explore", "--db", str(empty_db), "--print-command")
    assert r.exit_code == 0 and r.stdout.strip() == f"harlequin --adapter duckdb --read-only {snap}"
    import duckdb
    con = duckdb.connect(str(snap), read_only=True)
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'cheapest_offer_daily'").fetchone()[0] == 1
    con.close()
    r = cli("explore", "--db", str(empty_db), "--live", "--print-command")
    assert r.stdout.strip() == f"harlequin --adapter duckdb --read-only {empty_db}"
    r = cli("explore", "--db", str(empty_db))
    assert r.exit_code == 1 and "harlequin is not installed (pip install -e '.[explore]')" in r.stderr


def test_query_reads_sql_from_a_file_stdin_and_after_leading_comments(tmp_path):
    """issue 21 item 9: `query -f FILE`, SQL piped in, and SQL that starts with a -- comment
    (in-process: the arguments and standard input are parsed as a shell would hand them over)."""
    from typer.testing import CliRunner

    from pricewatch.cli.main import app
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.close()
    def run(*args, stdin=None):
        return CliRunner().invoke(app, ["query", "--db", str(db), "--format", "csv", *args], input=stdin)
    done = run("-- the answer\nSELECT 42 AS answer")
    assert (done.exit_code, done.stdout) == (0, "answer\n42\n"), done.stderr
    sql = tmp_path / "q.sql"
    sql.write_text("-- from a file\nSELECT 7 AS seven;\n")
    assert run("-f", str(sql)).stdout == "seven\n7\n"
    assert run(stdin="SELECT 3 AS three").stdout == "three\n3\n"
    assert run("-", stdin="SELECT 4 AS four").stdout == "four\n4\n"
    both = run("SELECT 1", "-f", str(sql))
    assert both.exit_code == 2 and "not both" in both.stderr
    empty = run(stdin="")
    assert empty.exit_code == 2 and "empty" in empty.stderr


def test_reading_commands_wait_for_a_load_and_say_who_holds_the_lock(tmp_path):
    """issue 21 item 7: alerts (and claims, offers, evidence, report: one open_read_only) wait
    like query while a writer holds DuckDB's lock, saying once who holds it, then answer."""
    from warehouse import migrate
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    migrate.migrate(con)
    con.close()
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(3)", str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        done = subprocess.run(PRICEWATCH + ["alerts", "--db", str(db)], capture_output=True, text=True,
                              timeout=60, env=clean_env({**os.environ, "PRICEWATCH_QUERY_WAIT_S": "30"}))
    finally:
        holder.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    assert f"warehouse {db} is locked by another process" in done.stderr and "waiting up to 30 s" in done.stderr
    assert done.stderr.count("locked by") == 1


def test_report_after_a_rules_edit_evaluates_again_first_and_says_so(loaded_db, tmp_path):
    """issue 21 item 5: `pricewatch report` never renders an evaluation made under older rules
    without a word: it says the rules changed and evaluates the latest snapshot again first."""
    import shutil
    from pricewatch.claims.rules import rules_version
    db = tmp_path / "w.duckdb"
    shutil.copy(loaded_db[0], db)
    con = duckdb.connect(str(db))
    con.execute("UPDATE claim_evaluations SET rules_version = 'before-the-edit'")   # as if rules/ changed since
    con.execute("UPDATE claim_inputs SET rules_version = 'before-the-edit'")
    con.close()
    done = subprocess.run(PRICEWATCH + ["report", "--out", str(tmp_path / "r"), "--db", str(db)],
                          capture_output=True, text=True, timeout=300, env=clean_env(dict(os.environ)))
    assert done.returncode == 0, done.stderr
    assert "rules/ changed since the latest evaluation (rules before-the-edit, now " in done.stderr
    con = duckdb.connect(str(db), read_only=True)
    latest = con.execute("SELECT arg_max(rules_version, evaluated_at) FROM claim_evaluations").fetchone()[0]
    con.close()
    assert latest == rules_version()

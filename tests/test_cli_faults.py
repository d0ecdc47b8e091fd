"""The CLI under bad input, hostile text and a query that tries to get out of read-only.

Every bad input gets ONE line on stderr and a non-zero exit, before anything is crawled; text
from outside (scraped labels, errors quoting a page, query results, claims, alerts) is inert on
the console; `pricewatch query` cannot attach, copy out, read other files or change settings.
In-process through typer's CliRunner on a real DuckDB file (a tiny run loaded through the real
pipelines and loader); two real `python -m pricewatch.cli` processes prove no traceback reaches
stderr.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.cli.main import app
from pricewatch.cli.query import open_query_connection
from pricewatch.cli.run import _print_summary
from pricewatch.collect import judge, store
from spiders.base import Parsed
from tests.conftest import ROOT, shipped
from tests.inprocess import run_parsed
from warehouse import db

AT = datetime(2026, 10, 29, 2, 0, tzinfo=timezone.utc)
# Scraped text as hostile as a page can make it: rich markup (a closing tag with nothing open
# crashes rich), an ANSI clear-screen, a bell, a bidi override, and far too long.
HOSTILE = "[/] [red]H200[/red] [bold]\x1b[2J\x07\u202e" + "é" * 2000 + "[/]"
CONTROL = ("\x1b", "\x07", "\u202e")


def invoke(*args: str, env: dict | None = None):
    started = time.monotonic()
    result = CliRunner().invoke(app, list(args), env=env)
    result.seconds = time.monotonic() - started
    return result


def lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


def one_line(result) -> str:
    """The single stderr line of a refusal (the test fails if there is more, or a traceback)."""
    got = lines(result.stderr)
    assert len(got) == 1, result.stderr
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return got[0]


def short(text: str) -> str:
    """Observed text for the fault table: test folders and the checkout shortened."""
    return re.sub(r"/tmp/pytest-of-[^/]+/pytest-\d+/[^/]+/", "<tmp>/", text).replace(str(ROOT) + "/", "")


def seen(result) -> str:
    return short(f"exit {result.exit_code}, {len(lines(result.stderr))} stderr line(s): "
                 f"{lines(result.stderr)[:1]!r} ({result.seconds:.1f} s)")


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    """A real warehouse with hostile text in every place the CLI prints: an unknown GPU label
    that is console markup, a failed provider whose error quotes the page, a claim whose
    reason quotes it, an alert whose title and last error carry it."""
    path = tmp_path_factory.mktemp("wh") / "pw.duckdb"
    page = Parsed()
    page.offer(gpu_label=HOSTILE, gpu_count=1, billing="on-demand", price_raw="$2.00", price_unit="gpu_hour")
    page.offer(gpu_label="H100 SXM", gpu_count=1, vram_gb=80, billing="on-demand", price_raw="$2.10",
               price_unit="gpu_hour")
    broken = Parsed()
    broken.error(f"price cell {HOSTILE} is not a price")
    outcomes = [judge.judge_crawl(run_parsed("massed_compute", page, captured_at=AT)),
                judge.judge_crawl(run_parsed("thunder_compute", broken, captured_at=AT))]
    run, provider_runs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), None, None)
    con = db.connect(path)
    try:
        store.load_run(con, run, provider_runs, offers, facts)
        evaluate_claims(con, run["run_id"])
        claim = con.execute("SELECT claim_id FROM claim_evaluations ORDER BY claim_id LIMIT 1").fetchone()[0]
        con.execute("UPDATE claim_evaluations SET reason = ?, note = ?, current_text = ? WHERE claim_id = ?",
                    [f"thunder_compute failed: {HOSTILE}", HOSTILE, HOSTILE, claim])
        # An alert as the alert step writes it for a new label (the text is the label's).
        con.execute("""INSERT INTO alerts (alert_id, run_id, kind, subject, fingerprint, state, notify_type, title,
                                           body, details, created_at, updated_at, attempts, last_error)
                       VALUES ('a1', ?, 'new_gpu_label', ?, 'fp1', 'pending', 'info', ?, ?, '{}', ?, ?, 1, ?)""",
                    [run["run_id"], f"massed_compute|{HOSTILE}", f"massed_compute lists a new GPU label {HOSTILE}",
                     HOSTILE, AT, AT, f"receiver said {HOSTILE}"])
    finally:
        con.close()
    return path


def offers_in(path: Path) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM offers").fetchone()[0]
    finally:
        con.close()


# --- 1. bad input: one line, non-zero, nothing crawled ---------------------------------------

@pytest.mark.fault
def test_unknown_provider_is_refused_up_front(tmp_path, fault):
    target = tmp_path / "pw.duckdb"
    r = invoke("run", "--replay", str(ROOT / "captures"), "--provider", "nosuch", "--db", str(target))
    line = one_line(r)
    fault("run --provider nosuch", expected="one line naming the unknown provider and the known ones, exit 2, "
          "no crawl, no database", observed=f"{seen(r)}; database created: {target.exists()}")
    assert r.exit_code == 2
    assert "nosuch" in line and "massed_compute" in line and "thunder_compute" in line
    assert not target.exists() and "┃" not in r.stdout    # no run table: nothing ran


@pytest.mark.fault
def test_db_that_is_a_folder_is_refused_before_crawling(tmp_path, fault):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    r = invoke("run", "--replay", str(shipped("thunder_compute")), "--db", str(folder))
    line = one_line(r)
    others = {cmd[0]: invoke(*cmd, "--db", str(folder)) for cmd in (("query", "SELECT 1"), ("claims",), ("alerts",))}
    fault("--db <a folder> (run, query, claims, alerts)", expected="one line saying it is a folder, exit 2, before "
          "any crawl", observed=f"run: {seen(r)}; " + "; ".join(f"{c}: exit {o.exit_code}" for c, o in others.items()))
    assert r.exit_code == 2 and str(folder) in line and "folder" in line
    assert list(folder.iterdir()) == [] and "┃" not in r.stdout
    for o in others.values():
        assert o.exit_code == 2 and "folder" in one_line(o)


@pytest.mark.fault
def test_db_that_is_not_a_duckdb_file_is_refused_before_crawling(tmp_path, fault):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    r = invoke("run", "--replay", str(shipped("thunder_compute")), "--db", str(notes))
    line = one_line(r)
    fault("--db <a text file>", expected="one line: not a DuckDB database, exit 2, the file untouched",
          observed=f"{seen(r)}; file unchanged: {notes.read_text() == 'my notes' + chr(10)}")
    assert r.exit_code == 2 and "not a usable DuckDB database" in line
    assert notes.read_text() == "my notes\n"


@pytest.mark.fault
def test_negative_alert_limit_is_refused(warehouse, fault):
    r = invoke("alerts", "--limit", "-1", "--db", str(warehouse))
    line = one_line(r)
    word = invoke("alerts", "--limit", "many", "--db", str(warehouse))
    fault("alerts --limit -1 (and --limit many)", expected="one line: --limit must be 1 or more, exit 2",
          observed=f"{seen(r)}; 'many': exit {word.exit_code}, {len(lines(word.stderr))} line(s)")
    assert r.exit_code == 2 and "--limit" in line and "-1" in line
    assert word.exit_code == 2 and "--limit" in one_line(word)


@pytest.mark.fault
def test_report_out_that_is_a_file_is_refused(warehouse, tmp_path, fault):
    existing = tmp_path / "claims.md"
    existing.write_text("keep me\n")
    r = invoke("report", "--out", str(existing), "--db", str(warehouse))
    line = one_line(r)
    under = invoke("report", "--out", str(existing / "sub"), "--db", str(warehouse))
    fault("report --out <an existing file>", expected="one line: it is a file, exit 2, the file untouched",
          observed=f"{seen(r)}; under the file: exit {under.exit_code}; file unchanged: "
                   f"{existing.read_text() == 'keep me' + chr(10)}")
    assert r.exit_code == 2 and "is a file" in line
    assert under.exit_code == 2 and "is a file" in one_line(under)
    assert existing.read_text() == "keep me\n"


@pytest.mark.fault
@pytest.mark.parametrize("as_of, says", [
    ("yesterday", "not an ISO 8601 time"),
    ("2026-10-29T02:00:00", "needs a time zone"),
    ("2030-01-01T00:00:00Z", "in the future"),
])
def test_bad_as_of_is_one_line(as_of, says, tmp_path, fault):
    target = tmp_path / "pw.duckdb"
    r = invoke("run", "--replay", str(shipped("thunder_compute")), "--as-of", as_of, "--db", str(target))
    line = one_line(r)
    fault(f"run --as-of {as_of}", expected=f"one line: '{says}', exit 2, no run stored",
          observed=f"{seen(r)}; database created: {target.exists()}")
    assert r.exit_code == 2 and says in line and line.count("--as-of") == 1
    assert not target.exists()


@pytest.mark.fault
def test_missing_replay_path_is_one_line(tmp_path, fault):
    gone = tmp_path / "no-such-archive"
    r = invoke("run", "--replay", str(gone), "--db", str(tmp_path / "pw.duckdb"))
    line = one_line(r)
    fault("run --replay <missing path>", expected="one line naming the path, exit 2", observed=seen(r))
    assert r.exit_code == 2 and "not found" in line and str(gone) in line


def _bad_archives(tmp: Path) -> dict[str, Path]:
    good = shipped("thunder_compute").read_bytes()
    out = {}
    for name, data in {
        "truncated": good[: len(good) * 2 // 3],
        "empty": b"",
        "not a WARC": b"<html><body>502 Bad Gateway</body></html>\n",
        "corrupt gzip": good[:40] + bytes(b ^ 0x5A for b in good[40:400]) + good[400:],
        "gzip of text": gzip.compress(b"hello, this is not a WARC record\n"),
    }.items():
        p = tmp / f"{name.replace(' ', '-')}.warc.gz"
        p.write_bytes(data)
        out[name] = p
    return out


@pytest.mark.fault
def test_bad_replay_archives_are_one_line_each(tmp_path, fault):
    target = tmp_path / "pw.duckdb"
    for name, archive in _bad_archives(tmp_path).items():
        r = invoke("run", "--replay", str(archive), "--db", str(target))
        line = one_line(r)
        fault(f"run --replay <{name} WARC>", expected="one line naming the file and what is wrong, exit 2, nothing "
              "crawled or stored", observed=f"{seen(r)}; database created: {target.exists()}")
        assert r.exit_code == 2, (name, r.stderr)
        assert archive.name in line, (name, line)
        assert not target.exists() and "┃" not in r.stdout


@pytest.mark.fault
def test_replay_of_an_archive_with_no_known_provider(tmp_path, fault, make_warc):
    stranger = make_warc([{"url": "https://unknown.example/prices", "status": 200, "headers": {},
                           "body": b"{}", "captured_at": "2026-10-29T02:00:00Z"}], "stranger.warc.gz")
    r = invoke("run", "--replay", str(stranger), "--db", str(tmp_path / "pw.duckdb"))
    line = one_line(r)
    only = invoke("run", "--replay", str(shipped("thunder_compute")), "--provider", "massed_compute",
                  "--db", str(tmp_path / "pw.duckdb"))
    fault("run --replay <WARC of an unknown host> (and --provider not in the archive)",
          expected="one line: no responses of any known provider (of the one asked for, naming what it holds), exit 2",
          observed=f"{seen(r)}; --provider massed_compute on thunder's capture: {short(repr(lines(only.stderr)[:1]))}")
    assert r.exit_code == 2 and "no responses of any known provider" in line
    assert only.exit_code == 2 and "massed_compute" in one_line(only) and "thunder_compute" in one_line(only)


@pytest.mark.fault
def test_an_unexpected_error_is_one_line_and_debug_shows_it(tmp_path, fault):
    # A warehouse whose claims table is not the one the code expects: the claims engine raises.
    odd = tmp_path / "odd.duckdb"
    con = duckdb.connect(str(odd))
    con.execute("CREATE TABLE claim_evaluations (x INTEGER)")
    con.close()
    r = invoke("claims", "--db", str(odd))
    line = one_line(r)
    dbg = invoke("--debug", "claims", "--db", str(odd))
    env = invoke("claims", "--db", str(odd), env={"PRICEWATCH_DEBUG": "1"})
    fault("an error the command does not expect (claims on a foreign table)",
          expected="one line 'error: ...', exit 1; --debug / PRICEWATCH_DEBUG=1 let the exception through",
          observed=f"{seen(r)}; --debug raised {type(dbg.exception).__name__}; "
                   f"PRICEWATCH_DEBUG=1 raised {type(env.exception).__name__}")
    assert r.exit_code == 1 and line.startswith("error: ") and "--debug" in line
    assert isinstance(dbg.exception, duckdb.Error) and isinstance(env.exception, duckdb.Error)
    # the flag does not stick to the next command of the same process
    assert invoke("claims", "--db", str(odd)).exit_code == 1


@pytest.mark.slow   # ~10-15 s of real processes: CI runs it with -m slow
def test_cli_processes_print_no_traceback(tmp_path, warehouse, fault):
    """Real processes: what reaches a terminal's stderr is the one line, nothing else."""
    cmd = [sys.executable, "-m", "pricewatch.cli"]
    env = {k: v for k, v in os.environ.items() if k not in ("PRICEWATCH_DB", "PRICEWATCH_DEBUG")}
    bad = _bad_archives(tmp_path)["not a WARC"]
    runs = {
        "run --provider nosuch": ["run", "--replay", str(ROOT / "captures"), "--provider", "nosuch",
                                  "--db", str(tmp_path / "x.duckdb")],
        "run --replay <not a WARC>": ["run", "--replay", str(bad), "--db", str(tmp_path / "x.duckdb")],
        "query \"SELECT '[/red]'\"": ["query", "SELECT '[/red]' AS x", "--db", str(warehouse)],
    }
    out = {name: subprocess.run(cmd + args, capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)
           for name, args in runs.items()}
    fault("real processes: --provider nosuch, a non-WARC replay, SELECT '[/red]'",
          expected="exit 2, 2, 0; one stderr line for each refusal, no traceback",
          observed="; ".join(f"{n}: exit {p.returncode}, {len(lines(p.stderr))} stderr line(s), traceback "
                             f"{'Traceback' in p.stderr}" for n, p in out.items()))
    for name, p in out.items():
        assert "Traceback" not in p.stderr, (name, p.stderr)
    assert out["run --provider nosuch"].returncode == 2 and len(lines(out["run --provider nosuch"].stderr)) == 1
    assert out["run --replay <not a WARC>"].returncode == 2 and len(lines(out["run --replay <not a WARC>"].stderr)) == 1
    q = out["query \"SELECT '[/red]'\""]
    assert q.returncode == 0 and "[/red]" in q.stdout and q.stderr == ""


# --- 2. hostile text is inert on the console -------------------------------------------------

def assert_inert(text: str) -> None:
    assert "Traceback" not in text
    for ch in CONTROL:
        assert ch not in text, repr(ch)


@pytest.mark.fault
def test_query_results_that_look_like_markup_are_shown_not_applied(warehouse, fault):
    sql = "SELECT '[/red]' AS a, '[bold]x[/]' AS \"[red]col\", chr(27) || '[2J' || chr(7) || 'boom' AS c"
    table = invoke("query", sql, "--db", str(warehouse))
    csv = invoke("query", sql, "--db", str(warehouse), "--format", "csv")
    js = invoke("query", sql, "--db", str(warehouse), "--format", "json")
    fault("query \"SELECT '[/red]'\" (and markup / ESC / BEL in values and column names)",
          expected="table: markup shown literally, control characters dropped; csv/json: the raw values",
          observed=f"table exit {table.exit_code}, shows [/red]: {'[/red]' in table.stdout}, ESC in table: "
                   f"{chr(27) in table.stdout}; json raw: {json.loads(js.stdout)[0]['c'] == chr(27) + '[2J' + chr(7) + 'boom'}")
    assert table.exit_code == 0, table.stderr
    assert "[/red]" in table.stdout and "[bold]x[/]" in table.stdout and "[red]col" in table.stdout
    assert "[2Jboom" in table.stdout
    assert_inert(table.stdout)
    assert json.loads(js.stdout) == [{"a": "[/red]", "[red]col": "[bold]x[/]", "c": "\x1b[2J\x07boom"}]
    assert csv.stdout.splitlines()[1] == "[/red],[bold]x[/],\x1b[2J\x07boom"


@pytest.mark.fault
def test_alerts_and_claims_with_hostile_text_print(warehouse, fault):
    wide = {"COLUMNS": "2000"}   # no wrapping, so the cells can be read back whole
    alerts = invoke("alerts", "--db", str(warehouse), env=wide)
    alerts_json = invoke("alerts", "--db", str(warehouse), "--json")
    claims = invoke("claims", "--db", str(warehouse), env=wide)
    fault("scraped label / page text with [/], [red], ESC, BEL, RLO, 2000 chars in alerts and claims",
          expected="both tables print (exit 0), markup literal, control characters dropped, long text cut; "
                   "--json keeps the raw text",
          observed=f"alerts exit {alerts.exit_code}, claims exit {claims.exit_code}; '[/] [red]H200' shown: "
                   f"{'[/] [red]H200' in alerts.stdout.replace(chr(10), ' ')}; json title raw: "
                   f"{HOSTILE in json.loads(alerts_json.stdout)[0]['title']}")
    assert alerts.exit_code == 0, alerts.stderr
    assert claims.exit_code == 0, claims.stderr
    for out in (alerts.stdout, claims.stdout):
        assert_inert(out)
        assert "é" * 700 not in out.replace("\n", "").replace("│", "").replace(" ", "")
    assert "massed_compute lists a new GPU label [/] [red]H200[/red] [bold][2J" in alerts.stdout
    assert "receiver said [/] [red]H200[/red]" in alerts.stdout
    assert "thunder_compute failed: [/] [red]H200[/red] [bold][2J" in claims.stdout
    assert HOSTILE in json.loads(alerts_json.stdout)[0]["title"]


@pytest.mark.fault
def test_run_summary_with_hostile_provider_error_prints(warehouse, capsys, monkeypatch, fault):
    # The summary `pricewatch run` prints after the load, as the flow returns it, for the run
    # of the fixture (its failed provider's error quotes the page).
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute("SELECT provider, status, item_count, error FROM provider_runs "
                           "WHERE status <> 'not attempted' ORDER BY provider").fetchall()
        run_id = con.execute("SELECT run_id FROM runs").fetchone()[0]
    finally:
        con.close()
    summary = {"run_id": run_id, "status": "partial", "loaded": True, "observed_at": AT.isoformat(),
               "db": str(warehouse), "claims": {"counts": {"holds": 1}},
               "providers": {p: {"status": s, "offers": n or 0, "error": e, "duration_s": 0.1,
                                 "warnings": [] if e else [f"new GPU label {HOSTILE!r}"]}
                             for p, s, n, e in rows}}
    monkeypatch.setenv("COLUMNS", "2000")   # no wrapping, so the cells can be read back whole
    error = ""
    try:
        _print_summary(summary)
    except Exception as exc:  # what crashed `pricewatch run` after the load
        error = f"{type(exc).__name__}: {exc}"
    out = capsys.readouterr().out
    fault("run summary with a provider error quoting '[/]' markup (after the load)",
          expected="the summary table prints, markup shown literally, control characters dropped",
          observed=f"raised: {error or 'nothing'}; '[/] [red]H200' shown: {'[/] [red]H200' in out}")
    assert not error
    assert "thunder_compute: layout changed: price cell [/] [red]H200[/red] [bold][2J" in out
    assert "new GPU label '[/] [red]H200[/red]" in out
    assert_inert(out)
    assert "é" * 700 not in out


# --- 3. pricewatch query cannot escape read-only ---------------------------------------------

ESCAPES = {
    "ATTACH a hard link READ_WRITE, DELETE": "ATTACH '{link}' AS w2 (READ_WRITE); DELETE FROM w2.offers",
    "ATTACH a new file": "ATTACH '{dir}/new.duckdb' AS n",
    "COPY ... TO a file": "COPY (SELECT 'pwned') TO '{victim}'",
    "EXPORT DATABASE": "EXPORT DATABASE '{dir}/export'",
    "SET enable_external_access=true": "SET enable_external_access = true",
    "SET lock_configuration=false": "SET lock_configuration = false",
    "RESET enable_external_access": "RESET enable_external_access",
    "INSTALL": "INSTALL httpfs",
    "LOAD": "LOAD httpfs",
    "DETACH": "DETACH pw",
    "PRAGMA enable_profiling": "PRAGMA enable_profiling",
    "read_csv of another file": "SELECT * FROM read_csv('{victim}')",
    "SELECT then DELETE": "SELECT count(*) FROM offers; DELETE FROM offers",
    "CREATE TEMP TABLE": "CREATE TEMP TABLE t AS SELECT 1",
    "CHECKPOINT (CALL)": "CHECKPOINT",
    "EXPLAIN ANALYZE DELETE": "EXPLAIN ANALYZE DELETE FROM offers",
}


@pytest.fixture
def escape_scene(warehouse, tmp_path):
    link = tmp_path / "same-warehouse.duckdb"
    os.link(warehouse, link)   # the same file under another name: DuckDB cannot tell it is open
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    return {"link": link, "victim": victim, "dir": tmp_path, "offers": offers_in(warehouse)}


@pytest.mark.fault
@pytest.mark.parametrize("name", list(ESCAPES))
def test_query_cannot_escape_read_only(name, warehouse, escape_scene, fault):
    s = escape_scene
    sql = ESCAPES[name].format(link=s["link"], victim=s["victim"], dir=s["dir"])
    before = sorted(p.name for p in s["dir"].iterdir())
    r = invoke("query", sql, "--db", str(warehouse))
    line = one_line(r)
    after = sorted(p.name for p in s["dir"].iterdir())
    intact = (offers_in(warehouse) == s["offers"] and s["victim"].read_text() == "precious\n" and before == after)
    fault(f"query: {name}", expected="refused in one line, exit 1, warehouse and files untouched",
          observed=short(f"exit {r.exit_code}: {line[:90]!r}; untouched: {intact}"))
    assert r.exit_code == 1 and line.startswith("error: query ")
    assert intact


# A temp table (in memory) and a CHECKPOINT of a read-only file are harmless, so DuckDB allows
# them; only the statement check refuses those.
LAYER_TWO = [n for n in ESCAPES if n not in ("CREATE TEMP TABLE", "CHECKPOINT (CALL)")]


@pytest.mark.fault
def test_query_connection_refuses_escapes_by_itself(warehouse, escape_scene, fault):
    """The second layer alone: with the statement check bypassed, the connection itself
    (read-only, external access off, configuration locked) refuses every escape."""
    s = escape_scene
    refused, settings = {}, set()
    for name in LAYER_TWO:
        sql = ESCAPES[name].format(link=s["link"], victim=s["victim"], dir=s["dir"])
        con = open_query_connection(warehouse)
        try:
            try:
                for statement in con.extract_statements(sql):
                    con.execute(statement)
                refused[name] = "ran"
            except duckdb.Error as exc:
                refused[name] = type(exc).__name__
            settings.add(con.execute("SELECT current_setting('enable_external_access'), "
                                     "current_setting('lock_configuration')").fetchone())
        finally:
            con.close()
    intact = offers_in(warehouse) == s["offers"] and s["victim"].read_text() == "precious\n"
    kinds = sorted(set(refused.values()))
    fault(f"query connection alone, statement check bypassed ({len(LAYER_TWO)} escapes above)",
          expected="DuckDB refuses each (read-only, external access off, configuration locked); files untouched",
          observed=f"refused {sum(v != 'ran' for v in refused.values())}/{len(refused)} ({', '.join(kinds)}); "
                   f"settings after: {sorted(settings)}; untouched: {intact}")
    assert [n for n, v in refused.items() if v == "ran"] == []
    assert settings == {(False, True)}
    assert intact


@pytest.mark.parametrize("sql", [
    "SELECT provider, count(*) n FROM offers GROUP BY provider",
    "WITH o AS (SELECT * FROM offers) SELECT count(*) FROM o",
    "FROM latest_offers LIMIT 1",
    "DESCRIBE offers",
    "SHOW TABLES",
    "SUMMARIZE runs",
    "EXPLAIN SELECT * FROM offers",
    "PRAGMA table_info('offers')",
    "SELECT * FROM pragma_table_info('offers')",
    "SELECT now() AT TIME ZONE 'Asia/Tokyo'",
])
def test_reads_still_run(sql, warehouse):
    r = invoke("query", sql, "--db", str(warehouse), "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert isinstance(json.loads(r.stdout), list)


def test_bad_sql_is_one_line(warehouse):
    r = invoke("query", "SELEC 1", "--db", str(warehouse))
    assert r.exit_code == 1 and "syntax error" in one_line(r) and "LINE 1" not in r.stderr

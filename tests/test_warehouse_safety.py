"""The warehouse is safe (issue 9): a warehouse built by any earlier release migrates with its
rows kept and takes a new run; an edited landed migration is reported, not fatal; another
process holding DuckDB's one write lock makes the load wait with a bound and then keep the
night's run in a spool that the next run loads first. Real DuckDB files, a real second process
holding the lock, runs built in-process through the flow's own judge/build/load steps."""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest

from flows import tasks
from pricewatch.collect import judge, store
from spiders.base import Parsed
from tests.inprocess import run_parsed
from warehouse import db, load, migrate, spool

SCHEMAS = Path(__file__).parent / "fixtures" / "schemas"
RELEASES = json.loads((SCHEMAS / "releases.json").read_text())["sets"]
T0 = datetime(2026, 11, 1, 2, 0, tzinfo=timezone.utc)


# --- runs built the way the flow builds them ------------------------------------------------

def page(*rows: tuple[str, str]) -> Parsed:
    p = Parsed()
    for label, price in rows:
        p.offer(gpu_label=label, gpu_count=1, vram_gb=80, billing="on-demand", price_raw=price,
                price_unit="gpu_hour")
    return p


def build(day: int, price: str = "2.50"):
    """A tiny run of provider acme (two offers) observed on day `day`."""
    at = T0 + timedelta(days=day)
    outcome = judge.judge_crawl(run_parsed("acme", page(("H100 SXM", price), ("A100 SXM", "1.20")),
                                             captured_at=at))
    return judge.build_run([outcome], "replay", datetime.now(timezone.utc), None, None,
                             known_providers=["acme", "other"])


def fetch(path, sql, params=()):
    con = db.connect(path, read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


# --- 1. every earlier release migrates with its data kept -----------------------------------

def build_release_warehouse(path: Path, commit: str) -> list[int]:
    """A warehouse as that commit's migrate() left it: schema_migrations(version, name,
    applied_at), each file in its own transaction, stopping at the first that fails."""
    con = duckdb.connect(str(path))
    con.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())""")
    for f in sorted((SCHEMAS / commit).glob("*.sql")):
        version, name = re.match(r"^(\d+)_(.+)\.sql$", f.name).groups()
        con.execute("BEGIN")
        try:
            con.execute(f.read_text())
            con.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [int(version), name])
            con.execute("COMMIT")
        except duckdb.Error:
            con.execute("ROLLBACK")
            break
    insert_release_rows(con)
    recorded = [v for (v,) in con.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()]
    con.close()
    return recorded


OLD_AT = T0 - timedelta(days=3)
# (offer_key, price per hour, billing as the first release wrote it in tier, billing, term)
OLD_OFFERS = [("8x B200 on-demand", 43.46, "on-demand", "on-demand", None),
              ("8x B200 spot", 30.00, "spot", "spot", None),
              ("8x B200 reserved", 35.00, "reserved-1 month", "reserved", "1 month")]


def insert_release_rows(con) -> None:
    """One run, one provider run and three offers, in whatever columns that release had."""
    cols = {t: {r[1] for r in con.execute(f"PRAGMA table_info('{t}')").fetchall()}
            for t in ("runs", "provider_runs", "offers")}

    def insert(table, row):
        row = {k: v for k, v in row.items() if k in cols[table]}
        con.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))

    insert("runs", {"run_id": "old-run", "mode": "replay", "observed_at": OLD_AT, "snapshot_date": OLD_AT.date(),
                    "started_at": OLD_AT, "finished_at": OLD_AT, "status": "ok", "summary": "1/1 providers ok"})
    insert("provider_runs", {"run_id": "old-run", "provider": "acme", "status": "ok", "monitors": [],
                             "observed_at": OLD_AT, "item_count": 3, "priced_count": 3, "unpriced_count": 0,
                             "duplicates_dropped": 0, "http_error_count": 0, "retries": 0, "attempts": 1,
                             "duration_s": 1.5, "unknown_labels": [], "warnings": [], "error": None})
    early = "billing" not in cols["offers"]
    for key, price, old_tier, billing, term in OLD_OFFERS:
        insert("offers", {"run_id": "old-run", "provider": "acme", "offer_key": key, "gpu_label": "B200",
                          "gpu_model": "B200", "gpu_count": 8, "vram_gb": 180.0, "form_factor": "SXM",
                          "tier": old_tier if early else "standard", "billing": billing, "reserved_term": term,
                          "self_service": True, "region": None, "currency": "USD", "price_unit": "instance_hour",
                          "price_per_hour": price, "price_per_gpu_hour": price / 8, "is_priced": True,
                          "price_text": f"${price}", "availability": None, "is_aggregator": False,
                          "observed_at": OLD_AT, "source_url": "https://acme.test/pricing",
                          "warc_file": "old.warc.gz", "warc_record_id": "<urn:uuid:old>", "body_sha256": "a" * 64})


def shape(path) -> dict:
    """Tables (columns, types, NOT NULL, order), constraints and view columns of a warehouse."""
    con = db.connect(path, read_only=True)
    try:
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT internal ORDER BY 1").fetchall()]
        views = [v for (v,) in con.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
        return {
            "tables": {t: con.execute(f"PRAGMA table_info('{t}')").fetchall() for t in tables},
            "constraints": sorted(con.execute(
                "SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints()").fetchall()),
            "views": {v: [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {v}").fetchall()] for v in views},
        }
    finally:
        con.close()


@pytest.mark.slow   # ~10-15 s of real processes: CI runs it with -m slow
@pytest.mark.fault
def test_a_warehouse_of_every_earlier_release_migrates_with_its_rows_kept(tmp_path, fault):
    fresh = tmp_path / "today.duckdb"
    con = db.connect(fresh)
    migrate.migrate(con)
    con.close()
    today = shape(fresh)
    current = [v for v, _, _ in migrate.migrations()]
    seen = []
    for release in RELEASES:
        commit = release["commit"]
        path = tmp_path / f"{commit}.duckdb"
        recorded = build_release_warehouse(path, commit)
        expected_recorded = release["recorded_by_its_migrate"]
        assert recorded == (expected_recorded if expected_recorded != "all" else sorted(
            int(f.name[:3]) for f in (SCHEMAS / commit).glob("*.sql"))), commit
        con = db.connect(path)
        try:
            applied = migrate.migrate(con)
            assert sorted(applied + recorded) == current, commit
            # Loads a new run: the quality gate reads the old rows as its history.
            run, pr, offers, facts = build(0)
            assert store.load_run(con, run, pr, offers, facts), commit
            assert load.recent_item_counts(con)["acme"] == [2, 3], commit
            sha = dict(con.execute("SELECT version, sha256 FROM schema_migrations").fetchall())
        finally:
            con.close()
        assert shape(path) == today, f"{commit}: the migrated warehouse differs from a new one"
        # Migrations applied now are recorded with their text; those of the old release are not known.
        texts = {v: migrate.migration_sha256(sql) for v, _, sql in migrate.migrations()}
        assert {v: sha[v] for v in applied} == {v: texts[v] for v in applied}, commit
        assert all(sha[v] is None for v in recorded), commit
        con = db.connect(path, read_only=True)
        try:
            old = con.execute("""SELECT offer_key, price_per_hour::DOUBLE, billing, reserved_term, self_service
                                 FROM offers WHERE run_id = 'old-run' ORDER BY offer_key""").fetchall()
            runs = con.execute("SELECT run_id FROM runs ORDER BY observed_at").fetchall()
            # Every view answers (a view bound to a column an old warehouse lacks fails here).
            for view in today["views"]:
                con.execute(f"SELECT count(*) FROM {view}").fetchall()
            cheapest = con.execute("SELECT billing, price_per_hour::DOUBLE FROM cheapest_offer "
                                   "WHERE gpu_model = 'H100'").fetchall()
        finally:
            con.close()
        assert old == sorted((k, p, b, t, True) for k, p, _, b, t in OLD_OFFERS), commit
        assert runs == [("old-run",), (run["run_id"],)], commit
        assert cheapest == [("on-demand", 2.5)], commit
        seen.append(f"{commit}: {len(recorded)} recorded, {len(applied)} applied, 3 old offers kept, new run loaded")
    fault("warehouse built by each earlier release (8 migration sets; 001/003/004/005/008 edited after they "
          "were applied)",
          expected="each migrates to today's schema (same tables, constraints, views), its old rows kept "
                   "(first release's billing read from its tier), a new run loads",
          observed=f"{len(seen)}/{len(RELEASES)} migrated with the same shape as a new warehouse; "
                   + "; ".join(seen[:1]) + "; ...")


@pytest.mark.fault
def test_an_edited_landed_migration_is_reported_not_fatal(tmp_path, monkeypatch, caplog, fault):
    migrations = tmp_path / "migrations"
    shutil.copytree(db.MIGRATIONS_DIR, migrations)
    monkeypatch.setattr(db, "MIGRATIONS_DIR", migrations)
    path = tmp_path / "w.duckdb"
    con = db.connect(path)
    migrate.migrate(con)
    edited = migrations / "012_view_run_sequence.sql"
    edited.write_text(edited.read_text() + "\n-- edited after it was applied\n")
    with caplog.at_level(logging.WARNING, logger="pricewatch.warehouse"):
        again = migrate.migrate(con)
        run, pr, offers, facts = build(0)
        loaded = store.load_run(con, run, pr, offers, facts)
    con.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "pricewatch.warehouse"]
    assert again == [] and loaded
    # One line per migrate() call (migrate runs again inside load_run), naming the migration.
    assert lines and set(lines) == {lines[0]} and "\n" not in lines[0]
    assert "migration 012_view_run_sequence changed since it was applied" in lines[0] and str(path) in lines[0]
    fault("landed migration 012 edited after the warehouse applied it",
          expected="migrate() warns in one line naming the migration; nothing fails, the run loads",
          observed=f"warning {lines[0][:110]!r}...; migrate applied {again}, load returned {loaded}")


# --- 2./3. another process holds the one write lock -----------------------------------------

HOLDER = ("import duckdb, sys, time\n"
          "con = duckdb.connect(sys.argv[1])\n"
          "print('locked', flush=True)\n"
          "time.sleep(float(sys.argv[2]))\n")


class Holder:
    """A real second process with a read-write DuckDB connection on the file (an analyst)."""

    def __init__(self, path: Path, seconds: float):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(seconds)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.strip() == "locked", self.proc.stderr.read()
        self.pid = self.proc.pid

    def release(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def holders():
    started = []
    yield lambda path, seconds=60: started.append(Holder(path, seconds)) or started[-1]
    for h in started:
        h.release()


def new_warehouse(path: Path) -> dict:
    run, pr, offers, facts = build(0)
    con = db.connect(path)
    try:
        assert store.load_run(con, run, pr, offers, facts)
    finally:
        con.close()
    return run


@pytest.mark.fault
def test_an_analysts_lock_spools_the_night_and_the_next_run_loads_it(tmp_path, monkeypatch, holders, fault):
    path = tmp_path / "data" / "pricewatch.duckdb"
    new_warehouse(path)
    monkeypatch.setenv("PRICEWATCH_HISTORY_WAIT_S", "0.3")
    monkeypatch.setenv("PRICEWATCH_LOAD_WAIT_S", "0.8")
    holder = holders(path)

    opened = tasks.open_warehouse.fn(str(path))
    assert opened["history"] is None and "\n" not in opened["error"]
    assert f"warehouse {path} is locked by another process (python" in opened["error"]
    assert f"PID {holder.pid})" in opened["error"]

    nights = [build(1, "2.60"), build(2, "2.70")]
    results, waited = [], []
    for run, pr, offers, facts in nights:
        t = time.monotonic()
        results.append(tasks.load_run.fn(str(path), run, pr, offers, facts))
        waited.append(time.monotonic() - t)
    spool = path.parent / "spool"
    for (run, *_), res, w in zip(nights, results, waited):
        assert not res.loaded and res.spool == str(spool / run["run_id"])
        assert res.error == (f"warehouse locked by another process (python{sys.version_info[0]}."
                             f"{sys.version_info[1]}, PID {holder.pid}): {path}; run {run['run_id']} kept in "
                             f"{spool / run['run_id']}, loaded by the next run")
        assert 0.8 <= w < 5
    assert sorted(p.name for p in spool.iterdir()) == sorted(r["run_id"] for r, *_ in nights)

    holder.release()
    tonight = build(3, "2.80")
    res = tasks.load_run.fn(str(path), *tonight)
    assert res.loaded and res.unspooled == [r["run_id"] for r, *_ in nights]  # oldest first
    assert list(spool.iterdir()) == []
    stored = fetch(path, """SELECT r.run_id, count(o.offer_key), max(o.price_per_hour)::DOUBLE
                            FROM runs r LEFT JOIN offers o USING (run_id) GROUP BY r.run_id, r.observed_at
                            ORDER BY r.observed_at""")
    assert [(r, n) for r, n, _ in stored][1:] == [(r["run_id"], 2) for r, *_ in nights + [tonight]]
    assert [p for *_, p in stored] == [2.5, 2.6, 2.7, 2.8]
    fault("an analyst's read-write session (a second process) holds the warehouse during the run",
          expected="history read and load wait with a bound, then the run is kept in data/spool/<run_id>/ "
                   "with a one-line message naming the file and PID; the next run loads the spool first, "
                   "oldest first, and removes it",
          observed=f"history: {opened['error'][:60]}...; load waited {waited[0]:.1f} s, then "
                   f"{res.unspooled and len(results)} runs spooled ('{results[0].error[:48]}...'); after release "
                   f"the next load stored {len(res.unspooled)} spooled runs then its own, spool empty, "
                   f"{len(stored)} runs with 2 offers each")


@pytest.mark.fault
def test_a_lock_released_during_the_wait_loads_normally(tmp_path, monkeypatch, holders, fault):
    path = tmp_path / "w.duckdb"
    new_warehouse(path)
    monkeypatch.setenv("PRICEWATCH_LOAD_WAIT_S", "20")
    holders(path, seconds=0.8)  # the analyst closes the session after 0.8 s
    t = time.monotonic()
    res = tasks.load_run.fn(str(path), *build(1))
    waited = time.monotonic() - t
    assert res.loaded and res.spool is None and not (tmp_path / "spool").exists()
    assert 0.3 < waited < 10
    fault("analyst's session closed while the load waits for the lock",
          expected="the load waits, then stores the run; nothing spooled",
          observed=f"stored after {waited:.1f} s, spool folder {'absent' if not (tmp_path / 'spool').exists() else 'present'}")


def test_the_lock_message_is_one_line_naming_file_and_holder():
    text = ('IO Error: Could not set lock on file "/srv/data/pricewatch.duckdb": Conflicting lock is held in '
            '/usr/bin/python3.12 (PID 4242) by user ana. See also https://duckdb.org/docs/current/connect/concurrency')
    exc = db.lock_error(duckdb.IOException(text), "x.duckdb")
    assert str(exc) == "warehouse /srv/data/pricewatch.duckdb is locked by another process (python3.12, PID 4242, user ana)"
    assert exc.pid == 4242 and isinstance(exc, duckdb.IOException)
    bare = db.lock_error(duckdb.IOException('IO Error: Could not set lock on file "/a.duckdb": odd'), "/a.duckdb")
    assert str(bare) == "warehouse /a.duckdb is locked by another process"
    assert db.lock_error(duckdb.IOException("IO Error: disk full"), "x") is None


@pytest.mark.fault
def test_a_crash_between_the_spools_commit_and_its_removal_loads_nothing_twice(tmp_path, fault):
    path = tmp_path / "w.duckdb"
    new_warehouse(path)
    run, pr, offers, facts = build(1)
    kept = spool.spool_run(path, run, pr, offers, facts, reason="test")
    con = db.connect(path)
    try:
        assert store.load_run(con, *spool.read_spool(kept))  # committed; the process dies before rmtree
        (kept.parent / ".incoming-half-written-123").mkdir()  # a spool write cut short
        results = store.load_spooled(con, path)
    finally:
        con.close()
    assert results == [{"run_id": run["run_id"], "path": str(kept), "loaded": False, "error": None}]
    assert not kept.exists() and [p.name for p in kept.parent.iterdir()] == [".incoming-half-written-123"]
    count = fetch(path, "SELECT count(*) FROM offers WHERE run_id = ?", [run["run_id"]])[0][0]
    assert count == len(offers)
    fault("crash after a spooled run was committed, before its spool folder was removed; a half-written spool",
          expected="the next load stores nothing twice and removes the spool; the half-written one is ignored",
          observed=f"load_spooled: loaded={results[0]['loaded']}, spool removed={not kept.exists()}, "
                   f"{count} offers of the run (once), half-written folder left untouched")


@pytest.mark.fault
def test_a_spooled_run_that_cannot_load_stays_and_does_not_block_the_others(tmp_path, fault):
    path = tmp_path / "w.duckdb"
    new_warehouse(path)
    bad, good = build(1), build(2)
    bad[2].loc[0, "price_per_hour"] = -1.0  # violates offers' CHECK: the load fails
    bad_dir = spool.spool_run(path, *bad, reason="test")
    good_dir = spool.spool_run(path, *good, reason="test")
    con = db.connect(path)
    try:
        results = store.load_spooled(con, path)
    finally:
        con.close()
    assert [r["loaded"] for r in results] == [False, True]
    assert bad_dir.exists() and not good_dir.exists()
    assert results[0]["error"].startswith(f"spooled run {bad[0]['run_id']} not loaded (") and "\n" not in results[0]["error"]
    assert "Constraint Error: CHECK constraint failed on table \"offers\"" in results[0]["error"]  # the refusal itself, not a rollback notice
    assert fetch(path, "SELECT count(*) FROM runs WHERE run_id = ?", [bad[0]["run_id"]])[0][0] == 0
    fault("a spooled run the warehouse refuses (a price violating a CHECK)",
          expected="it stays in the spool with a one-line error; the later spooled run still loads",
          observed=f"{results[0]['error'][:90]}...; next spool loaded={results[1]['loaded']}")


def test_a_spooled_run_is_stored_exactly_as_a_direct_load_would_store_it(tmp_path):
    run, pr, offers, facts = build(1)
    direct, spooled = tmp_path / "a" / "w.duckdb", tmp_path / "b" / "w.duckdb"
    for p in (direct, spooled):
        new_warehouse(p)
    con = db.connect(direct)
    store.load_run(con, run, pr, offers, facts)
    con.close()
    kept = spool.spool_run(spooled, run, pr, offers, facts, reason="test")
    assert json.loads((kept / "manifest.json").read_text())["counts"] == {
        "provider_runs": len(pr), "offers": len(offers), "facts": len(facts)}
    con = db.connect(spooled)
    store.load_spooled(con, spooled)
    con.close()
    for table in ("runs", "provider_runs", "offers", "source_facts"):
        sql = f"SELECT * FROM {table} WHERE run_id = ? ORDER BY ALL"
        assert fetch(spooled, sql, [run["run_id"]]) == fetch(direct, sql, [run["run_id"]]), table
    assert len(fetch(direct, "SELECT * FROM offers WHERE run_id = ?", [run["run_id"]])) == len(offers)

"""Loads into a real DuckDB file through the flow's own steps (crawl process -> judge -> build -> load),
without Prefect: snapshots, evidence, idempotency, failures that are not data, history views."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from pricewatch.collect import judge, replays, store
from pricewatch.evidence.archive import sha256_hex
from spiders.base import Parsed
from tests.conftest import migrated_warehouse, shipped, shipped_exchanges
from tests.inprocess import run_parsed
from warehouse import db, migrate
from warehouse.load import recent_item_counts

MASSED_B200 = "8x B200 SXM6 on-demand"          # $43.46 per instance-hour on the real 2026-08-22 page
THUNDER_A100 = "1x a100xl 80GB on-demand/prototyping"


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> Path:
    """One replay folder with the two seed sources' shipped captures (Massed Compute's real
    2026-08-22 page, Thunder Compute's composed 2026-10-29 API answers)."""
    folder = tmp_path_factory.mktemp("seeds")
    for p in ("massed_compute", "thunder_compute"):
        (folder / f"{p}.warc.gz").symlink_to(shipped(p))
    return folder


def load(db_path: Path, replay: Path, crawl, as_of: str | None = None, providers=None) -> dict:
    """The nightly flow's steps, in order, for a replay."""
    if not Path(db_path).exists():
        migrated_warehouse(db_path)
    con = db.connect(db_path)
    migrate.migrate(con)
    history = recent_item_counts(con)
    outcomes = []
    for p in providers or replays.providers_in_archive(replay):
        outcomes.append(judge.judge_crawl(crawl(p, replay), history.get(p, [])))
    as_of_dt = datetime.fromisoformat(as_of.replace("Z", "+00:00")) if as_of else None
    run, pr, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), as_of_dt, replay,
                                               captured_at=replays.archive_capture_times(replay),
                                               known_providers=replays.all_providers())
    loaded = store.load_run(con, run, pr, offers, facts)
    con.close()
    return {"run": run, "loaded": loaded, "outcomes": {o.provider: o for o in outcomes}}


def rows(db_path, sql, params=()):
    con = db.connect(db_path, read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def table_counts(db_path):
    return {t: rows(db_path, f"SELECT count(*) FROM {t}")[0][0]
            for t in ("runs", "provider_runs", "offers", "source_facts", "schema_migrations")}


def test_migrations_are_numbered_applied_once_and_recorded(tmp_path):
    con = db.connect(tmp_path / "w.duckdb")
    first = migrate.migrate(con)
    assert first == [v for v, _, _ in migrate.migrations()] and first == sorted(first)
    assert migrate.migrate(con) == []
    recorded = [v for (v,) in con.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()]
    assert recorded == first
    views = {n for (n,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    assert {"latest_offers", "offer_price_history", "price_changes", "cheapest_offer"} <= views


def test_replayed_snapshot_is_dated_by_the_warc_records_and_every_price_has_evidence(tmp_path, crawl, seeds):
    path = tmp_path / "w.duckdb"
    result = load(path, seeds, crawl, providers=["massed_compute", "thunder_compute"])
    # The run is as old as its oldest evidence; each provider is dated by its own records
    # (captured_at in captures/src/<date>/<provider>/exchanges.yaml).
    assert result["run"]["snapshot_date"].isoformat() == "2026-08-22"
    observed = dict(rows(path, """SELECT provider, strftime(observed_at, '%Y-%m-%dT%H:%M:%SZ') FROM provider_runs
                                  WHERE status <> 'not attempted'"""))
    assert observed == {"massed_compute": "2026-08-22T12:00:00Z", "thunder_compute": "2026-10-29T02:00:04Z"}
    evidence = rows(path, "SELECT DISTINCT warc_file, warc_record_id, body_sha256, source_url FROM offers")
    for warc_file, record_id, sha, url in evidence:
        # Stored relative to the archive root (<date>/<file>), here the replayed folder.
        from pricewatch.evidence.warc_common import warc_candidates
        with open(warc_candidates(warc_file, [seeds])[0], "rb") as fh:
            match = [(r.rec_headers.get_header("WARC-Target-URI"), sha256_hex(r.raw_stream.read()))
                     for r in ArchiveIterator(fh) if r.rec_headers.get_header("WARC-Record-ID") == record_id]
        assert match == [(url, sha)], record_id


def test_rerunning_the_same_replay_leaves_the_warehouse_unchanged(tmp_path, crawl, seeds):
    path = tmp_path / "w.duckdb"
    assert load(path, seeds, crawl, providers=["massed_compute", "thunder_compute"])["loaded"]
    before = table_counts(path), rows(path, "SELECT * FROM offers ORDER BY provider, offer_key")
    again = load(path, seeds, crawl, providers=["massed_compute", "thunder_compute"])
    assert again["loaded"] is False
    assert (table_counts(path), rows(path, "SELECT * FROM offers ORDER BY provider, offer_key")) == before


def test_as_of_sets_the_observation_time_so_history_can_be_rebuilt_in_order(tmp_path, crawl, seeds):
    path = tmp_path / "w.duckdb"
    load(path, seeds, crawl, as_of="2026-10-01T00:00:00Z", providers=["massed_compute"])
    load(path, seeds, crawl, as_of="2026-10-29T00:00:00Z", providers=["massed_compute"])
    assert rows(path, "SELECT DISTINCT strftime(observed_at, '%Y-%m-%d') FROM offers ORDER BY 1") == [
        ("2026-10-01",), ("2026-10-29",)]
    # Same prices on both dates: one spell per offer, still current.
    spell = rows(path, """SELECT strftime(valid_from, '%Y-%m-%d'), valid_to, observations
                          FROM offer_price_history WHERE offer_key = '8x B200 SXM6 on-demand'""")
    assert spell == [("2026-10-01", None, 2)]


def test_unpriced_rows_are_stored_with_their_text_never_as_zero(tmp_path, crawl, seeds):
    path = tmp_path / "w.duckdb"
    load(path, seeds, crawl, providers=["massed_compute"])
    unpriced = dict(rows(path, "SELECT offer_key, price_text FROM offers WHERE NOT is_priced"))
    # The real page prints "Request" for 8x H100 (80GB) and 8x L40 (48GB).
    assert unpriced == {"8x H100 (80GB) on-demand": "Request", "8x L40 (48GB) on-demand": "Request"}
    assert rows(path, "SELECT count(*) FROM offers WHERE price_per_hour = 0 OR price_per_gpu_hour = 0") == [(0,)]
    # An unpriced offer is never "the cheapest": 8x L40 has no price at all, and the 8x "H100 (80GB)"
    # "Request" row (its class "H100 (form factor not stated)") has no cheapest. Like is compared with
    # like (issue 23): the cheapest 8x H100 NVL is the NVL row ("$$23.36"), the cheapest 8x H100 SXM
    # the "H100 SXM5 (80GB)" row ("×8" "$$25.12"), never one of them for both.
    assert rows(path, "SELECT count(*) FROM cheapest_offer WHERE gpu_model = 'L40' AND gpu_count = 8") == [(0,)]
    assert rows(path, "SELECT comparable_class, offer_key, price_per_hour::DOUBLE FROM cheapest_offer "
                      "WHERE gpu_model = 'H100' AND gpu_count = 8 AND billing = 'on-demand' ORDER BY 1") == [
        ("H100 NVL", "8x H100 NVL (94GB) on-demand #NVLink", 23.36),
        ("H100 SXM", "8x H100 SXM5 (80GB) on-demand", 25.12)]


def changed_price_warc(make_warc, date: str, old: bytes, new: bytes, name: str) -> Path:
    ex = shipped_exchanges("massed_compute")
    assert ex[0]["body"].count(old) == 1
    ex[0]["body"] = ex[0]["body"].replace(old, new)
    ex[0]["captured_at"] = f"{date}T02:00:02Z"
    return make_warc(ex, name)


def test_price_history_and_changes_record_old_new_and_when(tmp_path, crawl, make_warc, seeds):
    path = tmp_path / "w.duckdb"
    load(path, seeds, crawl, providers=["massed_compute"])
    later = changed_price_warc(make_warc, "2026-11-05", b"$$43.46", b"$$41.90", "mc-1105.warc.gz")
    load(path, later, crawl, providers=["massed_compute"])
    change = rows(path, """SELECT old_price_per_hour::DOUBLE, new_price_per_hour::DOUBLE, change_pct::DOUBLE, strftime(changed_at, '%Y-%m-%d')
                           FROM price_changes WHERE offer_key = '8x B200 SXM6 on-demand'""")
    assert change == [(pytest.approx(43.46), pytest.approx(41.90), pytest.approx(-3.59), "2026-11-05")]
    spells = rows(path, """SELECT price_per_hour::DOUBLE, strftime(valid_from, '%Y-%m-%d'), strftime(valid_to, '%Y-%m-%d')
                           FROM offer_price_history WHERE offer_key = '8x B200 SXM6 on-demand' ORDER BY valid_from""")
    assert spells == [(pytest.approx(43.46), "2026-08-22", "2026-11-05"), (pytest.approx(41.90), "2026-11-05", None)]
    assert rows(path, "SELECT count(*) FROM price_changes WHERE offer_key <> '8x B200 SXM6 on-demand'") == [(0,)]


def test_changed_layout_fails_that_provider_keeps_its_last_prices_and_loads_the_others(tmp_path, crawl, make_warc, seeds):
    path = tmp_path / "w.duckdb"
    load(path, seeds, crawl, providers=["massed_compute", "thunder_compute"])
    mc = shipped_exchanges("massed_compute")
    mc[0]["body"] = b"<html><body><h1>Pricing</h1><p>New pricing experience coming soon.</p></body></html>"
    th = shipped_exchanges("thunder_compute")
    th[0]["body"] = th[0]["body"].replace(b'"a100xl_x1_prototyping": 1.09', b'"a100xl_x1_prototyping": 1.12')
    for ex in mc + th:
        ex["captured_at"] = "2026-11-05T02:00:00Z"
    result = load(path, make_warc(mc + th, "broken.warc.gz"), crawl)
    assert result["run"]["status"] == "partial"
    status, error, items = rows(path, """SELECT status, error, item_count FROM provider_runs
                                         WHERE provider = 'massed_compute' ORDER BY observed_at DESC LIMIT 1""")[0]
    assert status == "failed" and items == 0
    assert "massed_compute" in error and "self.__next_f.push" in error
    latest = dict(rows(path, "SELECT provider || ':' || offer_key, price_per_hour::DOUBLE FROM latest_offers"))
    assert latest[f"massed_compute:{MASSED_B200}"] == pytest.approx(43.46)  # the last good snapshot
    assert latest[f"thunder_compute:{THUNDER_A100}"] == pytest.approx(1.12)  # loaded normally
    assert rows(path, "SELECT count(*) FROM price_changes WHERE provider = 'massed_compute'") == [(0,)]


def test_http_503_then_success_is_retried_within_the_crawl(tmp_path, crawl, make_warc, seeds):
    ex = shipped_exchanges("massed_compute")
    unavailable = {**ex[0], "status": 503, "reason": "Service Unavailable",
                   "headers": {"Content-Type": "text/html", "Retry-After": "5"}, "body": b"<h1>503</h1>"}
    result = crawl("massed_compute", make_warc([unavailable] + ex, "flaky.warc.gz"))
    outcome = judge.judge_crawl(result)
    assert outcome.status == "ok" and len(outcome.offers) == 25
    assert result.report["retries"] == 1 and result.report["http_status_counts"]["503"] == 1


def test_http_503_always_fails_the_provider_with_the_status_and_url(tmp_path, crawl, make_warc, seeds):
    ex = shipped_exchanges("massed_compute")
    unavailable = {**ex[0], "status": 503, "reason": "Service Unavailable", "body": b"<h1>503</h1>",
                   "headers": {"Content-Type": "text/html"}}
    path = tmp_path / "w.duckdb"
    result = load(path, make_warc([unavailable], "down.warc.gz"), crawl)
    outcome = result["outcomes"]["massed_compute"]
    assert outcome.status == "failed"
    assert "HTTP 503" in outcome.error and "https://vm.massedcompute.com/pricing" in outcome.error
    assert result["run"]["status"] == "failed"
    assert rows(path, "SELECT count(*) FROM offers") == [(0,)]
    assert rows(path, "SELECT status, retries FROM provider_runs WHERE status <> 'not attempted'") == [("failed", 3)]


def test_same_offer_with_two_prices_fails_instead_of_picking_one():
    # Two copies of one row (a page's mobile card and desktop row) that disagree on the price.
    page = Parsed()
    for price in ("$43.46", "$39.99"):
        page.offer(gpu_label="B200 SXM6", gpu_count=8, billing="on-demand", price_raw=price, price_unit="instance_hour")
    outcome = judge.judge_crawl(run_parsed("massed_compute", page))
    assert outcome.status == "failed"
    assert MASSED_B200 in outcome.error and "two prices" in outcome.error


def test_an_archive_replays_only_the_providers_it_holds(tmp_path):
    assert replays.providers_in_archive(shipped("thunder_compute")) == ["thunder_compute"]


def test_a_failed_replay_is_dated_by_its_records_and_replaying_it_again_adds_nothing(tmp_path, crawl, make_warc):
    ex = shipped_exchanges("massed_compute")
    down = {**ex[0], "status": 503, "reason": "Service Unavailable", "body": b"<h1>503</h1>",
            "headers": {"Content-Type": "text/html"}, "captured_at": "2026-11-07T02:00:09Z"}
    warc = make_warc([down], "down-1107.warc.gz")
    path = tmp_path / "w.duckdb"
    first = load(path, warc, crawl)
    assert first["run"]["status"] == "failed"
    assert first["run"]["observed_at"].isoformat() == "2026-11-07T02:00:09+00:00"   # not the wall clock
    again = load(path, warc, crawl)
    assert again["run"]["run_id"] == first["run"]["run_id"] and again["loaded"] is False
    assert rows(path, "SELECT count(*) FROM runs") == [(1,)]
    # Every known provider has a status in the run's record.
    statuses = dict(rows(path, "SELECT provider, status FROM provider_runs"))
    assert statuses["massed_compute"] == "failed" and set(statuses) == set(replays.all_providers())
    assert {s for p, s in statuses.items() if p != "massed_compute"} == {"not attempted"}


def test_item_count_collapse_is_suspect_and_never_becomes_the_latest(tmp_path, crawl, make_warc, seeds):
    path = tmp_path / "w.duckdb"
    load(path, seeds, crawl, providers=["thunder_compute"])
    th = shipped_exchanges("thunder_compute")
    # The pricing map shrinks to 2 GPU keys of 25: parsed fine, but not plausible.
    th[0]["body"] = b'{"pricing": {"a100xl_x1_prototyping": 0.55, "h100_x1_prototyping": 1.10, "disk_gb": 0.0001}}'
    for e in th:
        e["captured_at"] = "2026-11-05T02:00:00Z"
    result = load(path, make_warc(th, "shrunk.warc.gz"), crawl)
    outcome = result["outcomes"]["thunder_compute"]
    assert outcome.status == "suspect" and "item count 2" in outcome.monitors[0]
    latest = dict(rows(path, "SELECT offer_key, price_per_hour::DOUBLE FROM latest_offers"))
    assert latest[THUNDER_A100] == pytest.approx(1.09) and len(latest) == 25
    assert rows(path, "SELECT count(*) FROM offers WHERE price_per_hour = 0.55") == [(1,)]  # kept as evidence

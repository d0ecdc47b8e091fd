"""Price spells stored at load (warehouse/spells.py, migration 025) give the same history as the
window-function views they replaced. The oracle is the landed migration 015 itself (landed
migrations are never edited): its offer_price_history / price_changes, created here under other
names, recompute the history from every raw observation; the stored spells must equal them
row for row, on the shipped captures' history and on a synthetic one with absences,
reappearances, held readings, unpriced text, failed, suspect and not-attempted provider runs,
and runs loaded out of snapshot order."""

from __future__ import annotations

import copy
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest

from pricewatch.collect import judge, replays, store
from tests.conftest import CAPTURES, migrated_warehouse, shipped
from warehouse import db, migrate, spells

ORACLE_FILE = Path(db.MIGRATIONS_DIR) / "015_view_offer_history_with_absences.sql"
LATEST_ORACLE_FILE = Path(db.MIGRATIONS_DIR) / "014_view_latest_offers_trusted.sql"
HISTORY_COLUMNS = ("provider, offer_key, gpu_model, gpu_count, billing, tier, price_per_hour, price_per_gpu_hour, "
                   "price_text, started_by, valid_from, valid_to, last_seen_at, observations, first_run_id")
CHANGE_COLUMNS = ("provider, offer_key, gpu_model, gpu_count, billing, tier, event, old_price_per_hour, "
                  "new_price_per_hour, old_price_text, new_price_text, change_pct, last_seen_old_at, absent_since, "
                  "changed_at, run_id")


def install_oracle(con) -> None:
    """Migration 015's views as oracle_offer_price_history / oracle_price_changes (temp views)."""
    sql = ORACLE_FILE.read_text()
    sql = sql.replace("CREATE OR REPLACE VIEW offer_price_history", "CREATE OR REPLACE TEMP VIEW oracle_offer_price_history")
    sql = sql.replace("CREATE OR REPLACE VIEW price_changes", "CREATE OR REPLACE TEMP VIEW oracle_price_changes")
    sql = sql.replace("FROM offer_price_history", "FROM oracle_offer_price_history")
    assert sql.count("oracle_") == 3
    con.execute(sql)
    sql = LATEST_ORACLE_FILE.read_text()
    sql = sql.replace("CREATE OR REPLACE VIEW latest_provider_runs", "CREATE OR REPLACE TEMP VIEW oracle_latest_provider_runs")
    sql = sql.replace("JOIN latest_provider_runs", "JOIN oracle_latest_provider_runs")
    sql = sql.replace("CREATE OR REPLACE VIEW latest_offers", "CREATE OR REPLACE TEMP VIEW oracle_latest_offers")
    sql = sql.replace("CREATE OR REPLACE VIEW held_offers", "CREATE OR REPLACE TEMP VIEW oracle_held_offers")
    assert sql.count("oracle_") == 5
    con.execute(sql)


def same_history(con) -> tuple[int, int]:
    """Asserts stored == oracle for the history views and the latest offers (migrations 014 and
    015 recompute them from every observation); returns (spells, changes)."""
    install_oracle(con)
    for view in ("latest_offers", "held_offers"):
        # latest_offers also carries each offer's comparable class (issue 23), which 014 did not
        extra = " EXCLUDE (comparable_class)" if view == "latest_offers" else ""
        stored = con.execute(f"SELECT *{extra} FROM {view} ORDER BY ALL").fetchall()
        assert stored == con.execute(f"SELECT * FROM oracle_{view} ORDER BY ALL").fetchall(), view
    for view, cols in (("offer_price_history", HISTORY_COLUMNS), ("price_changes", CHANGE_COLUMNS)):
        stored = con.execute(f"SELECT {cols} FROM {view} ORDER BY ALL").fetchall()
        oracle = con.execute(f"SELECT {cols} FROM oracle_{view} ORDER BY ALL").fetchall()
        assert stored == oracle, f"{view}: stored spells differ from the window-function oracle"
    return (con.execute("SELECT count(*) FROM offer_price_history").fetchone()[0],
            con.execute("SELECT count(*) FROM price_changes").fetchone()[0])


IN_FORCE_ORACLE_FILE = Path(db.MIGRATIONS_DIR) / "041_view_offers_in_force_daily.sql"
COMPARABILITY_FILE = Path(db.MIGRATIONS_DIR) / "050_spells_carry_comparability.sql"


def same_marts(con) -> int:
    """The daily marts read off the spells' own comparability columns (migration 050) and their
    stored days (051) answer as migration 041 (which joined each spell to its first reading in
    offers) computed in full; returns the rows of offers_in_force_daily."""
    sql = IN_FORCE_ORACLE_FILE.read_text()
    start = sql.index("CREATE OR REPLACE MACRO offers_in_force_after")
    con.execute(sql[start:sql.index("CREATE OR REPLACE VIEW", start)].replace(
        "CREATE OR REPLACE MACRO offers_in_force_after", "CREATE OR REPLACE TEMP MACRO oracle_offers_in_force_after"))
    in_force = con.execute("SELECT * FROM offers_in_force_daily ORDER BY ALL").fetchall()
    assert in_force == con.execute("SELECT * FROM oracle_offers_in_force_after(DATE '0001-01-01') ORDER BY ALL").fetchall()
    for mart in ("cheapest_offer_daily", "provider_price_index"):
        assert (con.execute(f"SELECT * FROM {mart} ORDER BY ALL").fetchall()
                == con.execute(f"SELECT * FROM {mart}_after(DATE '0001-01-01') ORDER BY ALL").fetchall()), mart
    # every spell carries its first reading's currency, self-service and aggregator flags, and its
    # form factor (migration 062)
    assert con.execute("""SELECT count(*) FILTER (WHERE s.currency IS NOT DISTINCT FROM o.currency
                                                    AND s.self_service IS NOT DISTINCT FROM o.self_service
                                                    AND s.is_aggregator IS NOT DISTINCT FROM o.is_aggregator
                                                    AND s.form_factor IS NOT DISTINCT FROM o.form_factor), count(*)
                          FROM price_spells s LEFT JOIN offers o
                            ON o.run_id = s.first_run_id AND o.provider = s.provider AND o.offer_key = s.offer_key
                       """).fetchone() == (n := con.execute("SELECT count(*) FROM price_spells").fetchone()[0],) * 2
    return len(in_force)


# --- the shipped captures, replayed as a history ---------------------------------------------

def test_spells_of_the_shipped_captures_match_the_window_views(tmp_path, crawl):
    """Every shipped capture (one real subprocess replay each, cached for the session) in its
    dated run; then Massed Compute's real page again two nights later with one offer gone and
    one price changed, then as recorded (the offer reappears, the price goes back)."""
    path = migrated_warehouse(tmp_path / "w.duckdb")
    con = db.connect(path)
    migrate.migrate(con)
    known = replays.all_providers()
    by_date: dict[str, list] = {}
    for warc in sorted(CAPTURES.glob("*/*.warc.gz")):
        by_date.setdefault(warc.parent.name, []).append(warc.name.removesuffix(".warc.gz"))
    started = datetime.now(timezone.utc)
    for date, providers in sorted(by_date.items()):
        outcomes = [judge.judge_crawl(crawl(p, shipped(p))) for p in providers if shipped(p).parent.name == date]
        run, pr, offers, facts = judge.build_run(outcomes, "replay", started, None, None, known_providers=known)
        assert store.load_run(con, run, pr, offers, facts)
    massed = crawl("massed_compute", shipped("massed_compute"))
    # The real page lists "8x B200 SXM6 on-demand" at $43.46 per instance-hour (2026-08-22).
    items = {i["offer_key"]: i for i in massed.items}
    assert float(items["8x B200 SXM6 on-demand"]["price_per_hour"]) == 43.46
    gone = sorted(k for k in items if k != "8x B200 SXM6 on-demand")[0]
    variant = copy.deepcopy(massed)
    variant.items = [i for i in variant.items if i["offer_key"] != gone]
    for i in variant.items:
        if i["offer_key"] == "8x B200 SXM6 on-demand":
            i["price_per_hour"], i["price_per_gpu_hour"] = 41.0, 5.125
    at = datetime(2026, 8, 24, 2, tzinfo=timezone.utc)
    for day, result in ((0, variant), (1, massed)):
        outcome = judge.judge_crawl(result)
        run, pr, offers, facts = judge.build_run([outcome], "replay", started, at + timedelta(days=day), None,
                                                   known_providers=known)
        assert store.load_run(con, run, pr, offers, facts)
    n_spells, n_changes = same_history(con)
    events = con.execute("""SELECT offer_key, event, old_price_per_hour, new_price_per_hour FROM price_changes
                            WHERE provider = 'massed_compute' ORDER BY changed_at, event, offer_key""").fetchall()
    assert [(k, e, o if o is None else float(o), float(n)) for k, e, o, n in events] == [
        ("8x B200 SXM6 on-demand", "changed", 43.46, 41.0),
        ("8x B200 SXM6 on-demand", "changed", 41.0, 43.46),
        (gone, "reappeared", float(items[gone]["price_per_hour"]), float(items[gone]["price_per_hour"]))]
    assert n_spells >= len(items) + 3 and n_changes == 3
    con.close()


# --- a synthetic history with every kind of run ------------------------------------------------

T0 = datetime(2026, 1, 1, 2, tzinfo=timezone.utc)


def synthetic_runs(n_runs: int, seed: int):
    """Runs of 3 providers x 12 offers: each night a provider is ok (mostly), suspect, failed or
    not attempted; an offer is present (mostly), absent, or held by the gate; its price moves
    now and then, and it sometimes turns into 'Contact sales' and back."""
    rng = random.Random(seed)
    price = {(p, k): 1.0 + k * 0.5 for p in ("a", "b", "c") for k in range(12)}
    out = []
    for n in range(n_runs):
        at = T0 + timedelta(hours=6 * n)
        run_id = f"syn-{seed}-{n:03d}"
        prs, offers = [], []
        for p in ("a", "b", "c"):
            status = rng.choices(["ok", "suspect", "failed", "not attempted"], [0.75, 0.1, 0.1, 0.05])[0]
            rows = []
            if status in ("ok", "suspect"):
                for k in range(12):
                    if rng.random() < 0.12:
                        continue                                   # absent tonight
                    if rng.random() < 0.12:
                        price[(p, k)] = round(price[(p, k)] * rng.choice([0.9, 1.1, 1.3]), 4)
                    unpriced = rng.random() < 0.05
                    held = None if rng.random() > 0.1 else "moved +30.0% from the last trusted price"
                    pph = None if unpriced else price[(p, k)] * 2
                    rows.append({"run_id": run_id, "provider": p, "offer_key": f"2x G{k} on-demand",
                                 "gpu_label": f"G{k}", "gpu_model": None if k == 11 else f"G{k}", "gpu_count": 2,
                                 "vram_gb": 80.0, "form_factor": "SXM", "billing": "on-demand", "tier": "on-demand",
                                 "reserved_term": None, "region": None,
                                 # comparability varies by offer (and offer 5 turns self-service halfway)
                                 "self_service": not (k == 3 or (k == 5 and n >= n_runs // 2)),
                                 "currency": "EUR" if k == 2 else "USD",
                                 "price_unit": "instance_hour", "price_per_hour": pph,
                                 "price_per_gpu_hour": None if unpriced else pph / 2, "is_priced": not unpriced,
                                 "price_text": "Contact sales" if unpriced else None, "availability": None,
                                 "is_aggregator": p == "c" and k == 4, "observed_at": at, "source_url": f"https://{p}.test/",
                                 "warc_file": "syn.warc.gz", "warc_record_id": f"<urn:uuid:{run_id}-{p}>",
                                 "body_sha256": "0" * 64, "held_reason": held, "screen_note": None,
                                 "price_raw": None if unpriced else f"${pph}"})
            offers += rows
            prs.append({"run_id": run_id, "provider": p, "status": status, "observed_at": at,
                        "item_count": len(rows), "priced_count": len(rows), "unpriced_count": 0,
                        "duplicates_dropped": 0, "http_error_count": 0, "retries": 0, "attempts": 1,
                        "duration_s": 1.0, "unknown_labels": [], "warnings": [], "monitors": [],
                        "error": None if status == "ok" else f"{p}: {status}"})
        ok = [p for p in prs if p["status"] == "ok"]
        run = {"run_id": run_id, "mode": "replay", "observed_at": at, "snapshot_date": at.date(), "started_at": at,
               "finished_at": at, "status": "ok" if len(ok) == 3 else ("partial" if ok else "failed"),
               "replay_source": None, "flow_run_id": None, "summary": "synthetic"}
        offers_df = pd.DataFrame(offers)
        if len(offers_df):
            for col in ("price_per_hour", "price_per_gpu_hour", "vram_gb"):
                offers_df[col] = offers_df[col].astype("float64")
        out.append((run, pd.DataFrame(prs), offers_df, None))
    return out


@pytest.fixture(scope="module")
def synthetic_db(tmp_path_factory):
    path = migrated_warehouse(tmp_path_factory.mktemp("spells") / "w.duckdb")
    con = db.connect(path)
    migrate.migrate(con)
    yield con
    con.close()


def test_spells_advanced_run_by_run_match_the_window_views_as_the_history_grows(synthetic_db):
    con = synthetic_db
    runs = synthetic_runs(24, seed=11)
    kinds = set()
    for n, (run, pr, offers, facts) in enumerate(runs):
        assert store.load_run(con, run, pr, offers, facts)
        if n % 6 == 5:
            same_history(con)
            same_marts(con)
        kinds |= set(pr["status"])
    n_spells, n_changes = same_history(con)
    # the history compares offers that are not comparable (EUR, sales-only, an aggregator's) and some that are
    assert 0 < same_marts(con) < con.execute("SELECT count(*) FROM price_spells").fetchone()[0]
    assert con.execute("SELECT count(DISTINCT (currency, self_service, is_aggregator)) FROM price_spells").fetchone()[0] == 4
    # migration 050's backfill of the columns gives what the loads set
    sql = COMPARABILITY_FILE.read_text()
    update = sql[sql.index("UPDATE price_spells"):sql.index(";", sql.index("UPDATE price_spells"))]
    loaded = con.execute("SELECT * FROM price_spells ORDER BY ALL").fetchall()
    con.execute("BEGIN")
    con.execute("UPDATE price_spells SET currency = NULL, self_service = NULL, is_aggregator = NULL")
    con.execute(update)
    assert con.execute("SELECT * FROM price_spells ORDER BY ALL").fetchall() == loaded
    con.execute("ROLLBACK")
    events = dict(con.execute("SELECT event, count(*) FROM price_changes GROUP BY 1").fetchall())
    # The history exercises what it claims to: every provider status, both events, held readings.
    assert kinds == {"ok", "suspect", "failed", "not attempted"}
    assert events.get("changed", 0) > 10 and events.get("reappeared", 0) > 10
    assert con.execute("SELECT count(*) FROM offers WHERE held_reason IS NOT NULL").fetchone()[0] > 10
    assert con.execute("SELECT count(*) FROM price_changes WHERE new_price_text IS NOT NULL").fetchone()[0] > 0
    # One latest spell per offer, spell numbers without gaps.
    assert con.execute("""SELECT count(*) FROM (SELECT provider, offer_key, count(*) FILTER (is_latest) AS l,
                                                       max(spell_no) = count(*) AS gapless
                                                FROM price_spells GROUP BY ALL) WHERE l <> 1 OR NOT gapless""").fetchone()[0] == 0
    # A rerun adds nothing; a rebuild from the raw observations gives the same rows.
    before = con.execute("SELECT * FROM price_spells ORDER BY ALL").fetchall()
    assert not store.load_run(con, *runs[-1][:3])
    con.execute("BEGIN")
    spells.rebuild(con)
    con.execute("COMMIT")
    assert con.execute("SELECT * FROM price_spells ORDER BY ALL").fetchall() == before


def test_runs_loaded_out_of_snapshot_order_and_as_one_backfill_give_the_same_spells(tmp_path):
    runs = synthetic_runs(16, seed=5)
    shuffled = runs[:]
    random.Random(3).shuffle(shuffled)
    con = db.connect(migrated_warehouse(tmp_path / "shuffled.duckdb"))
    migrate.migrate(con)
    for run, pr, offers, facts in shuffled:
        store.load_run(con, run, pr, offers, facts)
    same_history(con)
    same_marts(con)   # the stored days invalidated by each late run and stored again
    spells_shuffled = con.execute("SELECT * FROM price_spells ORDER BY ALL").fetchall()
    con.close()
    con = db.connect(migrated_warehouse(tmp_path / "backfill.duckdb"))
    migrate.migrate(con)
    assert store.load_runs(con, runs) == [r[0]["run_id"] for r in runs]
    same_history(con)
    same_marts(con)
    assert con.execute("SELECT * FROM price_spells ORDER BY ALL").fetchall() == spells_shuffled
    con.close()


def test_an_offer_twice_in_one_run_is_refused_naming_it(tmp_path):
    run, pr, offers, _ = synthetic_runs(1, seed=2)[0]
    twice = pd.concat([offers, offers.head(1)], ignore_index=True)
    con = db.connect(migrated_warehouse(tmp_path / "w.duckdb"))
    migrate.migrate(con)
    first = offers.iloc[0]
    with pytest.raises(ValueError, match=f"offer stored twice in one run: {first.provider} '{first.offer_key}'"):
        store.load_run(con, run, pr, twice)
    assert con.execute("SELECT count(*) FROM offers").fetchone()[0] == 0
    con.close()


def test_a_failed_backfill_stores_none_of_its_runs(tmp_path):
    runs = synthetic_runs(6, seed=2)
    bad_run, bad_pr, bad_offers, _ = runs[4]
    bad_offers = bad_offers.copy()
    bad_offers.loc[0, "price_per_hour"] = -1.0          # violates CHECK (price_per_hour > 0)
    con = db.connect(migrated_warehouse(tmp_path / "w.duckdb"))
    migrate.migrate(con)
    with pytest.raises(Exception, match="(?i)constraint"):
        store.load_runs(con, runs[:4] + [(bad_run, bad_pr, bad_offers, None)])
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM price_spells").fetchone()[0] == 0
    con.close()

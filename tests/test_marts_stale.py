"""The daily marts say how old each source's reading is and whether it was stale (issue 21 item 6),
and their market-wide figures leave stale sources out unless asked (the *_with_stale columns).
A hand-made history: providers a, b and c each sell one 1x G1 on demand, a at $2.00, b at $4.00,
c at $1.00 an hour; a run at 02:00 every day from 2026-03-01 to 2026-03-05; a and b are ok every
night, c is ok on 03-01 only and fails after. The stale limit is mart_settings' default, 48 hours."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pandas as pd
import pytest

from pricewatch.collect import store
from tests.conftest import migrated_warehouse
from warehouse import db

T0 = datetime(2026, 3, 1, 2, tzinfo=timezone.utc)
PRICES = {"a": 2.0, "b": 4.0, "c": 1.0}


def night(n: int) -> tuple:
    at = T0 + timedelta(days=n)
    run_id = f"stale-{n}"
    status = {"a": "ok", "b": "ok", "c": "ok" if n == 0 else "failed"}
    offers = [{"run_id": run_id, "provider": p, "offer_key": "1x G1 on-demand", "gpu_label": "G1", "gpu_model": "G1",
               "gpu_count": 1, "vram_gb": 80.0, "form_factor": "SXM", "billing": "on-demand", "tier": "on-demand",
               "reserved_term": None, "region": None, "self_service": True, "currency": "USD",
               "price_unit": "instance_hour", "price_per_hour": price, "price_per_gpu_hour": price, "is_priced": True,
               "price_text": None, "availability": None, "is_aggregator": False, "observed_at": at,
               "source_url": f"https://{p}.test/", "warc_file": "stale.warc.gz", "warc_record_id": f"<urn:uuid:{run_id}-{p}>",
               "body_sha256": "0" * 64, "held_reason": None, "screen_note": None, "price_raw": f"${price}"}
              for p, price in PRICES.items() if status[p] == "ok"]
    prs = [{"run_id": run_id, "provider": p, "status": s, "observed_at": at, "item_count": int(s == "ok"),
            "priced_count": int(s == "ok"), "unpriced_count": 0, "duplicates_dropped": 0, "http_error_count": 0,
            "retries": 0, "attempts": 1, "duration_s": 1.0, "unknown_labels": [], "warnings": [], "monitors": [],
            "error": None if s == "ok" else f"{p}: HTTP 503", "trusted": s == "ok"} for p, s in status.items()]
    run = {"run_id": run_id, "mode": "replay", "observed_at": at, "snapshot_date": at.date(), "started_at": at,
           "finished_at": at, "status": "partial" if n else "ok", "replay_source": None, "flow_run_id": None,
           "summary": "stale"}
    return run, pd.DataFrame(prs), pd.DataFrame(offers), None


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    con = db.connect(migrated_warehouse(tmp_path_factory.mktemp("stale") / "w.duckdb"))
    for n in range(5):
        assert store.load_run(con, *night(n))
    yield con
    con.close()


def test_a_stale_source_is_flagged_with_its_age_and_left_out_of_the_market(con):
    rows = con.execute("""SELECT day, provider, reading_age_days, source_stale, price_index, market_median_per_gpu_hour,
                                 market_providers, market_median_with_stale_per_gpu_hour, market_providers_with_stale,
                                 price_index_with_stale
                          FROM provider_price_index WHERE day IN (DATE '2026-03-03', DATE '2026-03-04')
                          ORDER BY day, provider""").fetchall()
    assert [(d, p, age, stale, idx, float(m), n, float(mw), nw, iw) for d, p, age, stale, idx, m, n, mw, nw, iw in rows] == [
        # 03-03 02:00: c's last good reading is 03-01 02:00, 48 hours: not older than the limit, still in the market
        (date(2026, 3, 3), "a", 0.0, False, 100.0, 2.0, 3, 2.0, 3, 100.0),     # median(1, 2, 4) = 2
        (date(2026, 3, 3), "b", 0.0, False, 200.0, 2.0, 3, 2.0, 3, 200.0),
        (date(2026, 3, 3), "c", 2.0, False, 50.0, 2.0, 3, 2.0, 3, 50.0),
        # 03-04: 72 hours, stale: the market is a and b, median(2, 4) = 3; asked, c again: median(1, 2, 4) = 2
        (date(2026, 3, 4), "a", 0.0, False, 66.7, 3.0, 2, 2.0, 3, 100.0),     # 100 x 2 / 3
        (date(2026, 3, 4), "b", 0.0, False, 133.3, 3.0, 2, 2.0, 3, 200.0),    # 100 x 4 / 3
        (date(2026, 3, 4), "c", 3.0, True, 33.3, 3.0, 2, 2.0, 3, 50.0),       # 100 x 1 / 3
    ]


def test_cheapest_offer_daily_flags_a_stale_cheapest_and_its_median_leaves_it_out(con):
    rows = con.execute("""SELECT day, comparable_class, min_price_per_hour, min_provider, min_reading_age_days,
                                 min_source_stale, median_price_per_hour, median_price_with_stale_per_hour,
                                 offers, stale_offers
                          FROM cheapest_offer_daily ORDER BY day""").fetchall()
    assert [(d, k, float(lo), p, age, st, float(med), float(medw), n, ns)
            for d, k, lo, p, age, st, med, medw, n, ns in rows] == [
        (date(2026, 3, 1), "G1", 1.0, "c", 0.0, False, 2.0, 2.0, 3, 0),
        (date(2026, 3, 2), "G1", 1.0, "c", 1.0, False, 2.0, 2.0, 3, 0),
        (date(2026, 3, 3), "G1", 1.0, "c", 2.0, False, 2.0, 2.0, 3, 0),
        (date(2026, 3, 4), "G1", 1.0, "c", 3.0, True, 3.0, 2.0, 3, 1),
        # the latest day, computed on read from latest_offers: c keeps its last trusted price, 4 days old
        (date(2026, 3, 5), "G1", 1.0, "c", 4.0, True, 3.0, 2.0, 3, 1),
    ]


def test_the_stale_limit_is_the_setting_source_freshness_reads(con):
    con.execute("BEGIN")
    try:
        con.execute("UPDATE mart_settings SET stale_after_hours = 100")
        # the latest day is computed on read with the new limit: c is 96 hours old on 03-05, not stale
        assert con.execute("""SELECT source_stale, market_providers FROM provider_price_index
                              WHERE day = DATE '2026-03-05' AND provider = 'c'""").fetchall() == [(False, 3)]
    finally:
        con.execute("ROLLBACK")

"""The scale benchmarks' generated history (benchmarks/scale_history.py: build() writes runs,
provider_runs and offers in SQL, prepare() derives the rest) gives the tables the product's own
load path gives for the same runs (issue 24 must-show 1), in both shapes, on a few runs: each run
read back from the generated warehouse and loaded through warehouse/load.py's nightly path (one
run a transaction, the quality gate screening every offer) into a new warehouse."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import migrated_warehouse
from warehouse import db

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.scale_history import build, prepare  # noqa: E402

# Two hand-written "real" offers of one provider (the benchmark's template is every shipped
# capture's offers; the generator keeps them as they are and fills each run with synthetic ones).
TEMPLATE = pd.DataFrame([
    {"provider": "lambda_cloud", "offer_key": key, "gpu_label": label, "gpu_model": model, "gpu_count": count,
     "vram_gb": vram, "form_factor": "SXM", "billing": "on-demand", "tier": "on-demand", "reserved_term": None,
     "self_service": True, "region": None, "currency": "USD", "price_unit": "instance_hour",
     "price_per_hour": price, "price_per_gpu_hour": price / count, "is_priced": True, "price_text": None,
     "availability": None, "is_aggregator": False, "source_url": "https://lambda.ai/pricing",
     "warc_file": "lambda_cloud.warc.gz", "warc_record_id": "<urn:uuid:x>", "body_sha256": "0" * 64,
     "price_raw": f"${price}"}
    for key, label, model, count, vram, price in (("8x H100 SXM", "H100 SXM", "H100", 8, 80.0, 23.92),
                                                  ("1x A100 SXM 40GB", "A100 SXM 40GB", "A100 40GB", 1, 40.0, 1.29))])
RUNS = 6
# Each table's rows in a fixed order, without what only says when a row was written.
TABLES = {
    "runs": ("run_id", ()),
    "provider_runs": ("run_id, provider", ()),
    "offers": ("run_id, provider, offer_key", ()),
    "price_spells": ("provider, offer_key, spell_no", ()),
    "current_offers": ("provider, offer_key", ()),
    "trusted_offers": ("provider, offer_key", ()),
    "cheapest_offer_daily_stored": ("ALL", ("refreshed_at",)),
    "provider_price_index_stored": ("ALL", ("refreshed_at",)),
    "daily_marts_days": ("ALL", ("refreshed_at",)),
    "gpu_catalog": ("ALL", ()),
    "gpu_aliases": ("ALL", ()),
    "sources": ("ALL", ("synced_at",)),
}


def rows(con, table: str) -> list[tuple]:
    order, skip = TABLES[table]
    cols = [c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                                      "ORDER BY column_index", [table]).fetchall() if c not in skip]
    listed = ", ".join(f'"{c}"' for c in cols)
    return con.execute(f"SELECT {listed} FROM {table} ORDER BY {order}").fetchall()


@pytest.mark.slow   # two small histories through the load path: ~10 s
@pytest.mark.parametrize("shape", ["nightly", "15min"])
def test_the_generated_history_is_what_the_load_path_stores(tmp_path, shape):
    gen = db.connect(migrated_warehouse(tmp_path / "gen.duckdb"))
    # SHAPES: nightly {"step": timedelta(days=1), "sources": 30, "offers": 300},
    #         15min {"step": timedelta(minutes=15), "sources": 50, "offers": 30}
    # nightly: round((30 x 300 - 2) / 300) = 30 synthetic providers of 300 offers and lambda_cloud's 2;
    # 15min: 50 sources, lambda_cloud and 49 synthetic of 30 offers.
    providers, per_provider, per_run, step = {"nightly": (31, 300, 30 * 300 + 2, timedelta(days=1)),
                                              "15min": (50, 30, 49 * 30 + 2, timedelta(minutes=15))}[shape]
    info = build(gen, TEMPLATE, (RUNS - 1) * per_run, shape, held=False)
    prepare(gen, claims=False)
    assert (info["runs"], info["offers_per_run"]) == (RUNS, per_run)
    times = [t for (t,) in gen.execute("SELECT observed_at FROM runs ORDER BY 1").fetchall()]
    assert {b - a for a, b in zip(times, times[1:])} == {step}
    assert gen.execute("SELECT count(DISTINCT provider) FROM provider_runs").fetchone()[0] == providers
    assert gen.execute("SELECT count(DISTINCT offer_key) FROM offers "
                       "WHERE provider = 'synthetic_00'").fetchone()[0] == per_provider

    from pricewatch.collect import store
    prod = db.connect(migrated_warehouse(tmp_path / "prod.duckdb"))
    offer_cols = [c for c in gen.execute("SELECT * FROM offers LIMIT 0").df().columns
                  if c not in ("held_reason", "screen_note")]   # the gate decides them on the load path
    for (run_id,) in gen.execute("SELECT run_id FROM runs ORDER BY observed_at").fetchall():
        run = gen.execute("SELECT * FROM runs WHERE run_id = ?", [run_id]).df().to_dict("records")[0]
        pr = gen.execute("SELECT * FROM provider_runs WHERE run_id = ?", [run_id]).df()
        offers = gen.execute(f"SELECT {', '.join(offer_cols)} FROM offers WHERE run_id = ?", [run_id]).df()
        assert store.load_run(prod, run, pr, offers)
    for table in TABLES:
        assert rows(gen, table) == rows(prod, table), table
    # the gate held no reading of these runs (build(held=False) holds none either)
    assert prod.execute("SELECT count(*) FROM offers WHERE held_reason IS NOT NULL").fetchone()[0] == 0

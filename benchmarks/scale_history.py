"""The synthetic history of the scale benchmarks (issues 11 and 24), generated in DuckDB SQL, not
Python loops, in one of two shapes (SHAPES): a run every 15 minutes of 50 sources, or one run a
night of 30 sources, as prefect.yaml schedules it. The real offers of every shipped capture (one
replay each) are the template: the real providers keep their real offers and keys, so the
published claims cite real offers; synthetic providers fill the rest. Per run ~3 % of prices
move, ~1 % of offers are missing, ~2 % vanish for good over the history, ~3 % of provider runs
fail or are suspect, ~0.1 % of readings are held by the gate.

build() writes runs, provider_runs and offers; prepare() then writes what the loads would have
(the catalog and sources tables, synced as each load syncs them; the spells and latest offers by the same set-based SQL migration 025 and a backfill run:
warehouse/spells.py rebuild; the stored marts: warehouse/marts.py refresh), evaluates the claims of
the latest runs with the real engine and copies their evaluations and inputs to every earlier
run for volume, and derives the alerts of the run before the latest. tests/test_bench_shapes.py
checks that build() + prepare() give the tables the product's own load path gives for the same
runs, on a few nights of each shape.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

N_PROVIDERS = 30
OFFERS_PER_PROVIDER = 300
STEP = timedelta(minutes=15)
# The two shapes of issue 24: a run every 15 minutes of 50 sources (~1,450 offers a run: a year is
# ~50M offer rows), and one run a night, as prefect.yaml schedules it, of 30 sources of ~300 offers
# (~9,000 a night: three years are ~10M). sources: providers in a run, the real ones included;
# offers: of each synthetic provider.
SHAPES = {"15min": {"step": timedelta(minutes=15), "sources": 50, "offers": 30},
          "nightly": {"step": timedelta(days=1), "sources": N_PROVIDERS, "offers": OFFERS_PER_PROVIDER}}
END = datetime(2026, 11, 30, 2, tzinfo=timezone.utc)


def template_offers(work: Path):
    """The offers of every shipped capture (a real replay crawl each), one frame."""
    import pandas as pd

    from pricewatch.collect import crawl_process, judge
    outcomes = []
    for capture in sorted((ROOT / "captures").glob("*/*.warc.gz")):
        provider = capture.name.removesuffix(".warc.gz")
        outcomes.append(judge.judge_crawl(crawl_process.run_crawl(provider, work / provider, replay=capture)))
    _, _, offers, _ = judge.build_run([o for o in outcomes if o.status == "ok"], "replay",
                                        datetime.now(timezone.utc), END, None)
    return offers if len(offers) else pd.DataFrame()


def build(con, tmpl, n_rows: int, shape: str = "nightly", held: bool = True) -> dict:
    """The synthetic history, generated in SQL from the template: n_rows offer rows of runs of
    `shape` (SHAPES); held: ~0.1 % of readings held (False: none, as tests/test_bench_shapes.py
    loads them through the product's load path, whose gate would not have held them)."""
    step, sources, per_provider = SHAPES[shape]["step"], SHAPES[shape]["sources"], SHAPES[shape]["offers"]
    con.register("tmpl_in", tmpl)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE real_tmpl AS
        SELECT provider, offer_key, gpu_label, gpu_model, gpu_count, vram_gb, form_factor, billing, tier,
               reserved_term, self_service, region, currency, price_unit, price_per_hour, price_per_gpu_hour,
               is_priced, price_text, availability, is_aggregator, source_url, warc_file, warc_record_id,
               body_sha256, price_raw
        FROM tmpl_in
        QUALIFY row_number() OVER (PARTITION BY provider, offer_key ORDER BY warc_file DESC) = 1""")
    con.unregister("tmpl_in")
    real = [p for (p,) in con.execute("SELECT DISTINCT provider FROM real_tmpl ORDER BY 1").fetchall()]
    n_real = con.execute("SELECT count(*) FROM real_tmpl").fetchone()[0]
    # Synthetic providers of `per_provider` offers fill each run: nightly up to 30 x 300 offers,
    # every 15 minutes up to 50 sources.
    if shape == "15min":
        n_synthetic = max(5, sources - len(real))
    else:
        n_synthetic = max(5, round((sources * per_provider - n_real) / per_provider))
    per_run = n_real + n_synthetic * per_provider
    n_runs = max(2, n_rows // per_run + 1)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE tmpl AS
        SELECT *, row_number() OVER () AS k FROM (
            SELECT * FROM real_tmpl
            UNION ALL BY NAME
            SELECT 'synthetic_' || lpad(p::VARCHAR, 2, '0') AS provider,
                   g.gpu_count || 'x ' || g.label || ' #' || o AS offer_key, g.label AS gpu_label,
                   g.model AS gpu_model, g.gpu_count, g.vram AS vram_gb, 'SXM' AS form_factor,
                   CASE WHEN o % 5 = 0 THEN 'spot' ELSE 'on-demand' END AS billing,
                   CASE WHEN o % 5 = 0 THEN 'spot' ELSE 'on-demand' END AS tier, NULL AS reserved_term,
                   true AS self_service, 'region-' || (o % 7) AS region, 'USD' AS currency,
                   'instance_hour' AS price_unit,
                   CASE WHEN o % 50 = 7 THEN NULL ELSE round(g.base * g.gpu_count * (0.8 + (o % 9) * 0.05), 4) END AS price_per_hour,
                   CASE WHEN o % 50 = 7 THEN NULL ELSE round(g.base * (0.8 + (o % 9) * 0.05), 4) END AS price_per_gpu_hour,
                   o % 50 <> 7 AS is_priced, CASE WHEN o % 50 = 7 THEN 'Contact sales' END AS price_text,
                   NULL AS availability, false AS is_aggregator,
                   'https://synthetic-' || p || '.example/pricing' AS source_url,
                   'synthetic/' || p || '.warc.gz' AS warc_file, '<urn:uuid:synthetic-' || p || '>' AS warc_record_id,
                   repeat('0', 64) AS body_sha256, '$' || g.base AS price_raw
            FROM range(?) r(p)
            CROSS JOIN range(?) q(o)
            JOIN (VALUES (0, 'H100 SXM', 'H100', 80.0, 2.5, 1), (1, 'H100 SXM', 'H100', 80.0, 2.5, 8),
                         (2, 'A100 80GB', 'A100 80GB', 80.0, 1.4, 1), (3, 'B200', 'B200', 180.0, 5.0, 8),
                         (4, 'L40S', 'L40S', 48.0, 0.9, 1), (5, 'H200', 'H200', 141.0, 3.5, 8))
                 g(i, label, model, vram, base, gpu_count) ON g.i = o % 6
        )""", [n_synthetic, per_provider])
    start = END - step * (n_runs - 1)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE gen_runs AS
        SELECT r AS n, 'bench-' || lpad(r::VARCHAR, 7, '0') AS run_id,
               ?::TIMESTAMPTZ + r * to_seconds(?::BIGINT) AS observed_at
        FROM range(?) t(r)""", [start, int(step.total_seconds()), n_runs])
    con.execute("""
        CREATE OR REPLACE TEMP TABLE gen_provider_runs AS
        SELECT r.n, r.run_id, p.provider, r.observed_at,
               CASE WHEN r.n >= ? - 3 THEN 'ok'                        -- the latest runs are good
                    WHEN hash(r.n, p.provider) % 100 < 2 THEN 'failed'
                    WHEN hash(r.n, p.provider) % 100 < 3 THEN 'suspect' ELSE 'ok' END AS status
        FROM gen_runs r CROSS JOIN (SELECT DISTINCT provider FROM tmpl) p""", [n_runs])
    t = time.perf_counter()
    con.execute("BEGIN")
    con.execute("""
        INSERT INTO runs (run_id, mode, observed_at, snapshot_date, started_at, finished_at, status, summary)
        SELECT run_id, 'replay', observed_at, (observed_at AT TIME ZONE 'UTC')::DATE, observed_at, observed_at,
               'ok', 'bench' FROM gen_runs""")
    con.execute("""
        INSERT INTO provider_runs (run_id, provider, status, observed_at, item_count, priced_count, unpriced_count,
                                   duplicates_dropped, http_error_count, retries, attempts, duration_s,
                                   unknown_labels, warnings, monitors, error, trusted)
        SELECT run_id, provider, status, observed_at, 0, 0, 0, 0, 0, 0, 1, 1.0, [], [],
               CASE WHEN status = 'suspect' THEN ['item count'] ELSE [] END,
               CASE WHEN status = 'failed' THEN provider || ': HTTP 503' END, status = 'ok'
        FROM gen_provider_runs""")
    # ~3 % of prices move per run: each offer's price level changes every ~33 runs (its own phase).
    con.execute("""
        INSERT INTO offers BY NAME
        SELECT pr.run_id, t.provider, t.offer_key, t.gpu_label, t.gpu_model, t.gpu_count, t.vram_gb, t.form_factor,
               t.billing, t.tier, t.reserved_term, t.self_service, t.region, t.currency, t.price_unit,
               round(t.price_per_hour * m.f, 4) AS price_per_hour,
               round(t.price_per_hour * m.f / t.gpu_count, 4) AS price_per_gpu_hour,
               t.is_priced, t.price_text, t.availability, t.is_aggregator, pr.observed_at, t.source_url,
               t.warc_file, t.warc_record_id, t.body_sha256, t.price_raw,
               CASE WHEN ? AND hash(pr.n, t.k, 'held') % 1000 = 0 THEN 'bench: held' END AS held_reason
        FROM gen_provider_runs pr
        JOIN tmpl t USING (provider)
        CROSS JOIN LATERAL (SELECT CASE WHEN pr.n >= ? - 3 THEN 1.0
                                        ELSE 1 + 0.02 * ((hash(t.k, (pr.n + t.k * 7) // 33) % 11)::INTEGER - 5) END AS f) m
        WHERE pr.status <> 'failed'
          AND hash(pr.n, t.k) % 100 <> 0                     -- ~1 % missing from a run
          AND NOT (t.k % 50 = 3 AND pr.n > ? * (t.k % 7 + 1) / 8)   -- ~2 % vanish for good
        ORDER BY pr.observed_at, t.provider                  -- as nightly loads store them
        """, [held, n_runs, n_runs])
    con.execute("COMMIT")
    raw_s = time.perf_counter() - t
    n = con.execute("SELECT count(*) FROM offers").fetchone()[0]
    return {"shape": shape, "runs": n_runs, "offers": n, "offers_per_run": per_run, "real_providers": len(real),
            "synthetic_providers": n_synthetic, "generate_s": raw_s}


def prepare(con, claims: bool = True) -> dict:
    """After build(): the spells and latest offers, the stored marts, and (claims) the claims
    and alerts, each step committed. Returns the seconds of each step and the run ids the
    benchmarks use (past: one never evaluated; last)."""
    from pricewatch.alerts.derive import derive_alerts
    from pricewatch.claims.evaluate import evaluate_claims
    from pricewatch.record.config import AlertConfig
    from pricewatch.collect import store
    from warehouse import marts, spells
    from warehouse.resources import sync_catalog, sync_sources
    out = {}
    t = time.perf_counter()
    con.execute("BEGIN")
    res = store.resources()          # the catalog and the sources, as every load syncs them (the
    sync_catalog(con, res)           # comparable classes read the catalog)
    sync_sources(con, res)
    spells.rebuild(con)
    con.execute("COMMIT")
    out["spells_backfill_s"] = time.perf_counter() - t
    runs = [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY observed_at").fetchall()]
    out["last_run"], out["past_run"] = runs[-1], runs[len(runs) // 2]
    if claims:
        # The real engine on the latest runs; their evaluations and inputs copied to every earlier
        # run (but the past one) for volume, as if each run had been evaluated.
        for r in runs[-3:]:
            evaluate_claims(con, r)
        t = time.perf_counter()
        for table, time_col in (("claim_evaluations", "snapshot_at"), ("claim_inputs", None)):
            changed = (f"r.observed_at AS {time_col}, CASE WHEN hash(r.run_id, e.claim_id) % 20 = 0 "
                       "THEN 'drifted' ELSE e.status END AS status" if time_col else "r.run_id AS run_id")
            replace = f"r.run_id AS run_id, {changed}" if time_col else changed
            con.execute(f"""
                INSERT INTO {table} BY NAME
                SELECT e.* REPLACE ({replace})
                FROM {table} e CROSS JOIN runs r
                WHERE e.run_id = ? AND r.observed_at < (SELECT min(snapshot_at) FROM claim_evaluations
                                                       WHERE run_id IN (SELECT unnest(?::VARCHAR[])))
                  AND r.run_id <> ?""", [runs[-3], runs[-3:], out["past_run"]])
        out["claims_copy_s"] = time.perf_counter() - t
        out["claim_evaluations"] = con.execute("SELECT count(*) FROM claim_evaluations").fetchone()[0]
        out["claim_inputs"] = con.execute("SELECT count(*) FROM claim_inputs").fetchone()[0]
        derive_alerts(con, runs[-2], AlertConfig())
    t = time.perf_counter()
    con.execute("BEGIN")
    marts.refresh(con)          # the state the loads leave: complete days and earlier evaluations stored
    con.execute("COMMIT")
    out["marts_refresh_s"] = time.perf_counter() - t
    con.execute("CHECKPOINT")
    return out

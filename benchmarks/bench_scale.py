"""The warehouse at scale (issue 11): a synthetic history of N offer rows shaped like the real
captures, every analyst view and mart, the claims and the alerts on it, each against a baseline
measured in the same run.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 1000000 10000000] [--repeat 3]

Each size is built in its own process (peak memory is that process's), in DuckDB SQL, not Python
loops: the real offers of every shipped capture (one replay each) are the template of 30
providers x ~300 offers (the real providers keep their real offers and keys, so the published
claims cite real offers; synthetic providers fill the rest), observed every 15 minutes; each
night ~3 % of prices move, ~1 % of offers are missing from a run, ~2 % vanish for good, ~3 % of
provider runs fail or are suspect, ~0.1 % of readings are held by the gate. The spells are
backfilled by the same set-based SQL migration 025 runs on an existing warehouse.

Figures (medians of --repeat runs), each with its baseline in the same run:
  * every view and mart, materialised in full (CREATE TEMP TABLE AS SELECT *); the history views
    also against the window-function views they replaced (migration 015, as oracle_*), and one
    offer's history both ways;
  * latest_claim_status; all claims evaluated as of a past run (evaluate_claims on a run not yet
    evaluated, rolled back after each repeat); derive_alerts for the latest run (rolled back);
  * one nightly run loaded after the history (1,500 offers), vs the raw INSERT of its offers;
  * a backfill (load_runs, one transaction) vs a raw INSERT of the same rows into the same table,
    and a row-by-row insert (executemany) of a sample;
  * file size, with and without the offers primary key, and peak RSS.
Prints Markdown tables (the README quotes them).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

N_PROVIDERS = 30
OFFERS_PER_PROVIDER = 300
STEP = timedelta(minutes=15)
END = datetime(2026, 11, 30, 2, tzinfo=timezone.utc)
MEMORY_LIMIT = os.environ.get("BENCH_MEMORY_LIMIT", "8GB")   # DuckDB spills beyond it (shared 24 GiB machine)


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


def timed(fn, repeat: int) -> float:
    """Median wall time of fn() in ms."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def build(con, tmpl, n_rows: int) -> dict:
    """The synthetic history, generated in SQL from the template."""
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
    # Synthetic providers of 300 offers fill each run up to 30 x 300 offers.
    n_synthetic = max(5, round((N_PROVIDERS * OFFERS_PER_PROVIDER - n_real) / OFFERS_PER_PROVIDER))
    n_runs = max(2, n_rows // (N_PROVIDERS * OFFERS_PER_PROVIDER) + 1)
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
        )""", [n_synthetic, OFFERS_PER_PROVIDER])
    start = END - STEP * (n_runs - 1)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE gen_runs AS
        SELECT r AS n, 'bench-' || lpad(r::VARCHAR, 7, '0') AS run_id, ?::TIMESTAMPTZ + r * INTERVAL 15 MINUTE AS observed_at
        FROM range(?) t(r)""", [start, n_runs])
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
               CASE WHEN hash(pr.n, t.k, 'held') % 1000 = 0 THEN 'bench: held' END AS held_reason
        FROM gen_provider_runs pr
        JOIN tmpl t USING (provider)
        CROSS JOIN LATERAL (SELECT CASE WHEN pr.n >= ? - 3 THEN 1.0
                                        ELSE 1 + 0.02 * ((hash(t.k, (pr.n + t.k * 7) // 33) % 11)::INTEGER - 5) END AS f) m
        WHERE pr.status <> 'failed'
          AND hash(pr.n, t.k) % 100 <> 0                     -- ~1 % missing from a run
          AND NOT (t.k % 50 = 3 AND pr.n > ? * (t.k % 7 + 1) / 8)   -- ~2 % vanish for good
        ORDER BY pr.observed_at, t.provider                  -- as nightly loads store them
        """, [n_runs, n_runs])
    con.execute("COMMIT")
    raw_s = time.perf_counter() - t
    n = con.execute("SELECT count(*) FROM offers").fetchone()[0]
    return {"runs": n_runs, "offers": n, "real_providers": len(real), "synthetic_providers": n_synthetic,
            "generate_s": raw_s}


def oracle_views(con) -> None:
    sql = (Path(ROOT) / "warehouse/migrations/015_view_offer_history_with_absences.sql").read_text()
    sql = sql.replace("CREATE OR REPLACE VIEW offer_price_history", "CREATE OR REPLACE TEMP VIEW oracle_offer_price_history")
    sql = sql.replace("CREATE OR REPLACE VIEW price_changes", "CREATE OR REPLACE TEMP VIEW oracle_price_changes")
    sql = sql.replace("FROM offer_price_history", "FROM oracle_offer_price_history")
    con.execute(sql)


def one_size(n_rows: int, repeat: int, tmpl_path: Path) -> dict:
    import pandas as pd

    from pricewatch.alerts.derive import derive_alerts
    from pricewatch.claims.evaluate import evaluate_claims
    from pricewatch.record.config import AlertConfig
    from warehouse import db, migrate, spells

    out: dict = {"size": n_rows, "times": {}, "baselines": {}}
    path = Path(tempfile.mkdtemp(prefix="bench-scale-")) / "scale.duckdb"
    con = db.connect(path)
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")   # the old window views at 10M peaked at 18 GB
    migrate.migrate(con)
    tmpl = pd.read_pickle(tmpl_path)
    out.update(build(con, tmpl, n_rows))
    t = time.perf_counter()
    con.execute("BEGIN")
    spells.rebuild(con)
    con.execute("COMMIT")
    out["spells_backfill_s"] = time.perf_counter() - t
    con.execute("CHECKPOINT")
    runs = [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY observed_at").fetchall()]
    last, past = runs[-1], runs[len(runs) // 2]
    # Claims: the real engine on the latest runs; earlier evaluations copied for volume.
    for r in runs[-3:]:
        evaluate_claims(con, r)
    con.execute("""
        INSERT INTO claim_evaluations BY NAME
        SELECT e.* REPLACE (r.run_id AS run_id, r.observed_at AS snapshot_at,
               CASE WHEN hash(r.run_id, e.claim_id) % 20 = 0 THEN 'drifted' ELSE e.status END AS status)
        FROM claim_evaluations e CROSS JOIN runs r
        WHERE e.run_id = ? AND r.observed_at < (SELECT min(snapshot_at) FROM claim_evaluations) AND r.run_id <> ?""",
                [runs[-3], past])
    out["claim_evaluations"] = con.execute("SELECT count(*) FROM claim_evaluations").fetchone()[0]
    derive_alerts(con, runs[-2], AlertConfig())
    con.execute("CHECKPOINT")
    if keep := os.environ.get("BENCH_KEEP"):      # --keep: the built warehouse, for measuring by hand
        import shutil
        con.close()
        dest = Path(keep) / f"scale-{n_rows}.duckdb"
        shutil.copyfile(path, dest)
        path.unlink()
        return {"size": n_rows, "kept": str(dest), "past_run": past, "last_run": last}
    from benchmarks.scale_marts import (
        bench_marts,  # every view and mart, the marts against
    )
    marts = bench_marts(con, repeat)                    # their landed definitions (041-045)
    for v, secs in marts.items():
        if v.startswith("baseline_"):
            out["baselines"][f"view {v.removeprefix('baseline_')}"] = secs * 1000
        elif v in ("claim_evaluations", "price_spells"):
            out["floors"] = {**out.get("floors", {}), v: secs * 1000}
        elif v.startswith("marts.refresh"):
            out["times"][v + " (what a load pays)"] = secs * 1000
        else:
            out["times"][f"view {v}"] = secs * 1000
    from benchmarks.scale_marts import materialise
    oracle_views(con)
    old_repeat = repeat if n_rows <= 2_000_000 else 1
    for v in ("offer_price_history", "price_changes"):
        out["baselines"][f"view {v}"] = timed(lambda: materialise(con, f"oracle_{v}"), old_repeat)
    key = con.execute("SELECT provider, offer_key FROM price_spells ORDER BY spell_no DESC LIMIT 1").fetchone()
    one = "SELECT * FROM {} WHERE provider = ? AND offer_key = ?"
    out["times"]["one offer's offer_price_history"] = timed(
        lambda: con.execute(one.format("offer_price_history"), list(key)).fetchall(), repeat)
    out["baselines"]["one offer's offer_price_history"] = timed(
        lambda: con.execute(one.format("oracle_offer_price_history"), list(key)).fetchall(), old_repeat)

    from benchmarks.scale_claims import bench_claims
    claims = bench_claims(con, past, last, max(repeat, 5))
    for what, t in claims["times"].items():
        out["times"][what] = t["ms"]
        out["first_call_ms"] = {**out.get("first_call_ms", {}), what: t["first_ms"]}
    con.execute("CHECKPOINT")
    con.close()
    from benchmarks.scale_load import (
        bench_nightly_load,  # its own connection, on this file
    )
    out["nightly"] = bench_nightly_load(path, max(repeat, 7))
    out["file_mb"] = path.stat().st_size / 1e6
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["pk"] = pk_cost(path)
    path.unlink()
    return out


def nightly_frames(con, n: int, providers: int = 5):
    """A new run of `providers` real-shaped providers (1,500 offers), after the history."""
    import pandas as pd

    at = con.execute("SELECT max(observed_at) FROM runs").fetchone()[0] + STEP
    run_id = f"bench-nightly-{n:03d}"
    offers = con.execute(f"""
        SELECT ? AS run_id, * EXCLUDE (run_id, observed_at), ?::TIMESTAMPTZ AS observed_at FROM offers
        WHERE run_id = (SELECT max(run_id) FROM runs WHERE run_id LIKE 'bench-0%')
          AND provider IN (SELECT DISTINCT provider FROM offers WHERE provider LIKE 'synthetic_%' ORDER BY 1 LIMIT {providers})
        """, [run_id, at]).df()
    offers = offers.drop(columns=["held_reason", "screen_note"])
    pr = pd.DataFrame([{"run_id": run_id, "provider": p, "status": "ok", "observed_at": at, "item_count": int(c),
                        "priced_count": int(c), "unpriced_count": 0, "duplicates_dropped": 0, "http_error_count": 0,
                        "retries": 0, "attempts": 1, "duration_s": 1.0, "unknown_labels": [], "warnings": [],
                        "monitors": [], "error": None} for p, c in offers.groupby("provider").size().items()])
    run = {"run_id": run_id, "mode": "replay", "observed_at": at, "snapshot_date": at.date(), "started_at": at,
           "finished_at": at, "status": "ok", "replay_source": None, "flow_run_id": None, "summary": "bench"}
    from warehouse import load
    return run, pr, offers[load.OFFER_COLUMNS[:-3] + ["price_raw"]]


def pk_cost(path: Path) -> dict:
    """What a PRIMARY KEY (run_id, provider, offer_key) on offers would cost (migration 027 dropped
    it): the warehouse's offers copied into two fresh files, without and with the key, side by
    side: each file's size and the time of the insert."""
    import duckdb
    out = {}
    for name, key in (("without", False), ("with", True)):
        copy = path.with_name(f"offers-{name}-pk.duckdb")
        con = duckdb.connect(str(copy))
        con.execute("SET enable_progress_bar = false")
        con.execute(f"ATTACH '{path}' AS src (READ_ONLY)")
        con.execute("CREATE TABLE offers AS SELECT * FROM src.offers LIMIT 0")
        if key:
            con.execute("ALTER TABLE offers ADD PRIMARY KEY (run_id, provider, offer_key)")
        t = time.perf_counter()
        con.execute("INSERT INTO offers SELECT * FROM src.offers")
        con.execute("CHECKPOINT")
        out[f"insert_s_{name}_pk"] = time.perf_counter() - t
        con.execute("DETACH src")
        con.close()
        out[f"file_mb_{name}_pk"] = copy.stat().st_size / 1e6
        copy.unlink()
    return out


def bench_backfill(tmpl_path: Path, n_runs: int, repeat: int) -> dict:
    """load_runs (one transaction) of n_runs nightly runs of 1,500 offers vs a raw INSERT of the
    same rows into the same table (a fresh file each), and executemany of a sample."""
    import pandas as pd

    from pricewatch.collect import store
    from warehouse import db, load, migrate, spells
    tmpl = pd.read_pickle(tmpl_path)
    base = None
    results = {"backfill_s": [], "raw_s": [], "rebuild_s": [], "rows": 0}
    for _ in range(repeat):
        work = Path(tempfile.mkdtemp(prefix="bench-backfill-"))
        con = db.connect(work / "gen.duckdb")
        migrate.migrate(con)
        build(con, tmpl, n_runs * N_PROVIDERS * OFFERS_PER_PROVIDER)
        five = [p for (p,) in con.execute("SELECT DISTINCT provider FROM offers WHERE provider LIKE 'synthetic_%' "
                                          "ORDER BY 1 LIMIT 5").fetchall()]
        runs = []
        for (run_id,) in con.execute("SELECT run_id FROM runs ORDER BY observed_at").fetchall():
            run = con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id]).df().to_dict("records")[0]
            pr = con.execute("SELECT * FROM provider_runs WHERE run_id = ? AND list_contains(?, provider)",
                             [run_id, five]).df()
            offers = con.execute("SELECT * FROM offers WHERE run_id = ? AND list_contains(?, provider)",
                                 [run_id, five]).df()
            runs.append((run, pr, offers))
        con.close()
        all_offers = pd.concat([r[2] for r in runs], ignore_index=True)[load.OFFER_COLUMNS]
        results["rows"] = len(all_offers)
        con = db.connect(work / "raw.duckdb")
        migrate.migrate(con)
        t = time.perf_counter()
        con.execute("BEGIN")
        con.execute("INSERT INTO offers BY NAME SELECT * FROM all_offers")
        con.execute("COMMIT")
        results["raw_s"].append(time.perf_counter() - t)
        if base is None:
            sample = all_offers.head(2000)
            cols = load.OFFER_COLUMNS
            con.execute("DELETE FROM offers")
            t = time.perf_counter()
            con.execute("BEGIN")
            con.executemany(f"INSERT INTO offers ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                            [[None if pd.isna(v) else v for v in row] for row in sample.itertuples(index=False)])
            con.execute("COMMIT")
            base = (time.perf_counter() - t) / len(sample)
        con.close()
        warm = db.connect(work / "warm.duckdb")   # the first load of a process reads the spider classes
        migrate.migrate(warm)                          # and the catalog (~1 s): not the backfill's cost
        store.load_runs(warm, runs[:3])
        warm.close()
        con = db.connect(work / "backfill.duckdb")
        migrate.migrate(con)
        t = time.perf_counter()
        store.load_runs(con, runs)
        results["backfill_s"].append(time.perf_counter() - t)
        # the set-based rebuild of the batch's spells alone (warehouse/sql/spells_rebuild.sql), on the stored rows
        con.execute("BEGIN")
        t = time.perf_counter()
        spells.rebuild(con, five)
        results["rebuild_s"].append(time.perf_counter() - t)
        con.execute("ROLLBACK")
        con.close()
    return {"runs": n_runs, "rows": results["rows"], "backfill_s": statistics.median(results["backfill_s"]),
            "raw_s": statistics.median(results["raw_s"]), "row_by_row_s": base * results["rows"],
            "spells_rebuild_s": statistics.median(results["rebuild_s"])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backfill-runs", type=int, default=200)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--template", help=argparse.SUPPRESS)
    ap.add_argument("--backfill", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--keep", metavar="DIR", help="only build each size's warehouse and keep it in DIR "
                    "(scale-N.duckdb; the past and latest run ids printed), for measuring by hand")
    args = ap.parse_args()
    if args.keep:
        os.environ["BENCH_KEEP"] = str(Path(args.keep).resolve())
    if args.one:
        print(json.dumps(one_size(args.one, args.repeat, Path(args.template)), default=str))
        return
    if args.backfill:
        print(json.dumps(bench_backfill(Path(args.template), args.backfill_runs, args.repeat)))
        return
    if args.template:       # a template of an earlier invocation (the replays are the slow part)
        tmpl_path = Path(args.template)
    else:
        work = Path(tempfile.mkdtemp(prefix="bench-scale-tmpl-"))
        tmpl_path = work / "template.pkl"
        template_offers(work).to_pickle(tmpl_path)
        print(f"template: {tmpl_path}", file=sys.stderr)
    me = [sys.executable, __file__, "--template", str(tmpl_path), "--repeat", str(args.repeat)]
    results = [json.loads(subprocess.run(me + ["--one", str(n)], check=True, capture_output=True, text=True,
                                         env=os.environ).stdout.splitlines()[-1]) for n in args.sizes]
    if args.keep:
        print(json.dumps(results, indent=1))
        return
    backfill = json.loads(subprocess.run(me + ["--backfill", "--backfill-runs", str(args.backfill_runs)], check=True,
                                         capture_output=True, text=True).stdout.splitlines()[-1])
    raw = Path(tempfile.gettempdir()) / "bench_scale.json"
    raw.write_text(json.dumps({"sizes": results, "backfill": backfill}, default=str, indent=1))
    print(f"raw figures: {raw}", file=sys.stderr)
    report(results, backfill)


def report(results: list[dict], backfill: dict) -> None:
    head = " | ".join(f"{r['offers'] / 1e6:.1f}M rows" for r in results)
    print(f"| what | {head} | growth |\n|---|" + "---|" * len(results) + "---|")
    keys = list(results[-1]["times"])
    def name(key: str) -> str:   # a view's row count differs per size: "view x (1,234 rows)" -> "view x"
        return key.split(" (")[0] if key.startswith("view ") else key
    for k in keys:
        label = name(k)
        cells, vals = [], []
        for r in results:
            match = next((v for kk, v in r["times"].items() if name(kk) == label), None)
            vals.append(match)
            base = r["baselines"].get(label)
            cells.append("-" if match is None else f"{match:.0f} ms" + (f" (old {base:.0f} ms, {base / match:.0f}x)" if base else ""))
        growth = f"{vals[-1] / vals[0]:.1f}x" if vals[0] and vals[-1] else "-"
        print(f"| {k if len(results) == 1 else label} | " + " | ".join(cells) + f" | {growth} |")
    for what, key in (("one nightly run loaded (ms)", "load_ms"), ("  its CPU time (ms)", "load_cpu_ms"),
                      ("  raw INSERT + COMMIT of its offers (ms)", "raw_ms"),
                      ("  floor: the same rows INSERTed from a DuckDB table (ms)", "floor_insert_ms"),
                      ("  floor: their COMMIT (ms)", "floor_commit_ms"),
                      ("  the CHECKPOINT after it, as its process closes the warehouse (ms)", "checkpoint_ms")):
        print(f"| {what} | " + " | ".join(f"{r['nightly'].get(key) or 0:.0f}" for r in results) + " | |")
    print("| statements of one nightly load | " + " | ".join(
        f"{r['nightly'].get('profile', {}).get('statements', '-')}" for r in results) + " | |")
    for table in ("claim_evaluations", "price_spells"):
        print(f"| floor: `{table}` copied whole (no view of it can be cheaper) | " + " | ".join(
            f"{r.get('floors', {}).get(table, 0):.0f} ms" for r in results) + " | |")
    for what in results[-1].get("first_call_ms", {}):
        print(f"| {what}, the first call of a process | " + " | ".join(
            f"{r.get('first_call_ms', {}).get(what, 0):.0f} ms" for r in results) + " | |")
    print("| spells backfill, set-based (migration 025) | " + " | ".join(f"{r['spells_backfill_s']:.1f} s" for r in results) + " | |")
    print("| generate the history in SQL | " + " | ".join(f"{r['generate_s']:.1f} s ({r['runs']} runs)" for r in results) + " | |")
    print("| claim evaluations stored | " + " | ".join(f"{r['claim_evaluations']:,}" for r in results) + " | |")
    print("| warehouse file | " + " | ".join(f"{r['file_mb']:.0f} MB" for r in results) + " | |")
    if all("pk" in r for r in results):
        print("| offers alone, no key / with PRIMARY KEY: file | " + " | ".join(
            f"{r['pk']['file_mb_without_pk']:.0f} / {r['pk']['file_mb_with_pk']:.0f} MB" for r in results) + " | |")
        print("| offers alone, no key / with PRIMARY KEY: insert | " + " | ".join(
            f"{r['pk']['insert_s_without_pk']:.1f} / {r['pk']['insert_s_with_pk']:.1f} s" for r in results) + " | |")
    print("| peak RSS | " + " | ".join(f"{r['peak_rss_mb']:.0f} MB" for r in results) + " | |")
    print()
    b = backfill
    print(f"Backfill of {b['runs']} runs ({b['rows']:,} offers): load_runs {b['backfill_s']:.2f} s "
          f"({b['rows'] / b['backfill_s']:,.0f} offers/s) vs raw INSERT {b['raw_s']:.2f} s "
          f"({b['rows'] / b['raw_s']:,.0f} offers/s): {100 * b['raw_s'] / b['backfill_s']:.0f} % of raw; "
          f"row by row (executemany, extrapolated) {b['row_by_row_s']:.1f} s.")


if __name__ == "__main__":
    main()

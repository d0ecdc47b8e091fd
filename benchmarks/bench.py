"""Benchmarks: how long the nightly job's parts take on this machine.

    .venv/bin/python benchmarks/bench.py [--days 365] [--offers-per-run 1500]

Prints a Markdown table (the README quotes it). Measures:
  1. a replay crawl per shipped provider capture (a real `scrapy crawl` process each);
  2. loading a year of nightly runs into a fresh DuckDB file, one transaction per run
     (synthetic offers shaped like the real ones), and the resulting file size;
  3. the analyst views on that year of history.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd

from pricewatch.collect import crawl_process, store
from warehouse import db, migrate

ROOT = Path(__file__).resolve().parent.parent


def bench_crawls(rows: list) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-crawl-"))
    for capture in sorted((ROOT / "captures").glob("*/*.warc.gz"), key=lambda p: p.name):
        provider = capture.name.removesuffix(".warc.gz")
        times, n = [], 0
        for _ in range(2):
            r = crawl_process.run_crawl(provider, work / provider, replay=capture)
            times.append(r.duration_s)
            n = len(r.items)
        rows.append((f"replay crawl `{provider}` ({n} offers, own process)", f"{min(times):.2f} s"))


def synthetic_run(day: int, start: datetime, n_offers: int, rng: random.Random):
    observed = start + timedelta(days=day)
    run_id = f"bench-{day:04d}"
    providers = [f"provider_{i:02d}" for i in range(14)]
    per = n_offers // len(providers)
    offers = []
    for p in providers:
        for k in range(per):
            base = 0.5 + (k % 40) * 0.25
            # ~3% of prices move on a given night
            price = round(base * (1 + (0.05 if rng.random() < 0.03 else 0.0) * rng.choice([-1, 1])), 4)
            count = [1, 2, 4, 8][k % 4]
            offers.append({
                "run_id": run_id, "provider": p, "offer_key": f"{p}-{k}", "gpu_label": "H100 SXM5",
                "gpu_model": "H100", "gpu_count": count, "vram_gb": 80.0, "form_factor": "SXM",
                "billing": "on-demand", "tier": "on-demand", "reserved_term": None, "self_service": True,
                "region": "us-east", "currency": "USD", "price_unit": "gpu_hour",
                "price_per_hour": price * count, "price_per_gpu_hour": price, "is_priced": True,
                "price_text": None, "price_raw": f"${price}", "availability": None, "is_aggregator": False, "observed_at": observed,
                "source_url": f"https://{p}.example/pricing", "warc_file": f"data/archive/{p}.warc.gz",
                "warc_record_id": f"<urn:uuid:{day}-{p}>", "body_sha256": "0" * 64,
            })
    provider_runs = pd.DataFrame([{
        "run_id": run_id, "provider": p, "status": "ok", "observed_at": observed, "item_count": per,
        "priced_count": per, "unpriced_count": 0, "duplicates_dropped": 0, "http_error_count": 0,
        "retries": 0, "attempts": 1, "duration_s": 3.0, "unknown_labels": [], "warnings": [],
        "monitors": [], "error": None} for p in providers])
    run = {"run_id": run_id, "mode": "replay", "observed_at": observed, "snapshot_date": observed.date(),
           "started_at": observed, "finished_at": observed, "status": "ok", "replay_source": None,
           "flow_run_id": None, "summary": "bench"}
    return run, provider_runs, pd.DataFrame(offers)


def bench_warehouse(rows: list, days: int, n_offers: int) -> None:
    rng = random.Random(7)
    path = Path(tempfile.mkdtemp(prefix="bench-db-")) / "bench.duckdb"
    con = db.connect(path)
    migrate.migrate(con)
    start = datetime(2025, 11, 1, 2, tzinfo=timezone.utc)
    load_times = []
    for day in range(days):
        run, pr, offers = synthetic_run(day, start, n_offers, rng)
        t = time.perf_counter()
        store.load_run(con, run, pr, offers)
        load_times.append(time.perf_counter() - t)
    total = con.execute("SELECT count(*) FROM offers").fetchone()[0]
    rows.append((f"load one nightly run ({n_offers} offers, one transaction), median of {days}",
                 f"{statistics.median(load_times) * 1000:.0f} ms"))
    rows.append((f"load {days} runs ({total:,} offers) in all", f"{sum(load_times):.1f} s "
                 f"({total / sum(load_times):,.0f} offers/s)"))
    for view in ("latest_offers", "cheapest_offer", "price_changes", "offer_price_history"):
        t = time.perf_counter()
        n = len(con.execute(f"SELECT * FROM {view}").df())
        rows.append((f"`SELECT * FROM {view}` over {days} days ({n:,} rows)", f"{(time.perf_counter() - t) * 1000:.0f} ms"))
    con.execute("CHECKPOINT")
    con.close()
    rows.append(("DuckDB file after a year", f"{path.stat().st_size / 1e6:.0f} MB"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--offers-per-run", type=int, default=1500)
    ap.add_argument("--skip-crawls", action="store_true")
    args = ap.parse_args()
    rows: list[tuple[str, str]] = []
    if not args.skip_crawls:
        bench_crawls(rows)
    bench_warehouse(rows, args.days, args.offers_per_run)
    print("| what | time |\n|---|---|")
    for what, value in rows:
        print(f"| {what} | {value} |")


if __name__ == "__main__":
    main()

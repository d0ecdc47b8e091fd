"""Benchmark: reading a hundreds-of-MB AWS EC2 offer file, streamed vs ``json.loads``.

    .venv/bin/python benchmarks/bench_hyperscaler_stream.py [--mb 400] [--crawl [--old] [--baseline DIR]] [--keep [--reuse]]

1. Writes a synthetic offer file of about ``--mb`` MB to /tmp (the documented offer-file shape:
   ``products`` then ``terms.OnDemand`` / ``terms.Reserved``; mostly non-GPU and non-Linux-shared
   SKUs, as in a real region file, plus the GPU instance types of spiders/instance_types.py).
   It is written piece by piece, never held whole.
2. In a fresh process each (so peak RSS is the reading's own): ``json.loads`` of the body, and
   ``spiders.aws.parse_offer_file`` of the same document read from its file (ijson over the
   file, the spider's path: the body is spooled to a temp file, spiders/streaming.py).
   Each prints CPU time (the figure to compare on a shared machine), wall time, peak RSS
   (``ru_maxrss``) minus the process's RSS before the body was read, and, from a second run
   under tracemalloc, the peak of the reading's own allocations (the body's bytes excluded).
3. ``--crawl``: the engine path, each a real ``scrapy crawl aws -a regions=us-east-1`` process
   (its CPU time, user + system, the figure to compare on a shared machine; wall time; and
   peak RSS, from ``/usr/bin/time``): a **live** crawl downloading the file
   from a local HTTP server (``python -m http.server``: a real download over a socket, nothing
   mocked) and archiving it (WARC, then its WACZ), then a **replay** of the WARC it wrote.
   Each streamed (the spider's path: network/archive -> temp file -> WARC record -> parser) and,
   with ``--old``, also with ``-a stream=0`` (Scrapy's in-memory path: the body held whole,
   the record gzipped by warcio at level 9, the replayed payload read into memory), in the
   same run, with the ratio. ``--baseline DIR``: also the replay crawl of the file archived
   under its real URL by this checkout and by the checkout in DIR (the code before streaming:
   ``git archive e9d14b9^ | tar -x -C DIR``). The offers of all crawls must agree.

Prints a Markdown table with the ratios streamed / json.loads.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OTHER_FAMILIES = ["c7i", "m7i", "r7i", "c6g", "m6g", "r6g", "t3", "t4g", "x2idn", "i4i", "c5", "m5", "r5", "z1d",
                  "inf2", "trn1", "hpc7g", "d3", "u-6tb1", "c7gn"]
SIZES = ["large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge", "metal"]
OS = ["Linux", "Windows", "RHEL", "SUSE", "Red Hat Enterprise Linux with HA", "Ubuntu Pro"]
TENANCY = ["Shared", "Dedicated", "Host"]
SOFTWARE = ["NA", "SQL Web", "SQL Std", "SQL Ent"]
CAPACITY = ["Used", "UnusedCapacityReservation", "AllocatedCapacityReservation"]


def _gpu_types():
    from spiders.instance_types import _AWS_FAMILIES
    return [f"{family}.{size}" for family, sizes in _AWS_FAMILIES.items() for size in sizes]


def _sku(n: int) -> str:
    return f"{n:016X}"[-16:]


def _variants(rng: random.Random, target_skus: int):
    """(sku, instanceType, os, tenancy, software, capacity): GPU types in every variant, then
    random non-GPU variants up to the target count."""
    n = 0
    for itype in _gpu_types():
        for os_ in OS:
            for tenancy in TENANCY:
                for sw in SOFTWARE:
                    for cap in CAPACITY:
                        n += 1
                        yield _sku(n), itype, os_, tenancy, sw, cap
    while n < target_skus:
        n += 1
        yield (_sku(n), f"{rng.choice(OTHER_FAMILIES)}.{rng.choice(SIZES)}", rng.choice(OS), rng.choice(TENANCY),
               rng.choice(SOFTWARE), rng.choice(CAPACITY))


def write_offer_file(path: Path, mb: int) -> dict:
    """A synthetic AmazonEC2 offer file of about ``mb`` MB. Returns counts."""
    rng = random.Random(13)
    target = int(mb * 1024 * 1024 / 10800)   # ~10.8 KB per SKU (product + OnDemand + 6 Reserved terms)
    skus = list(_variants(rng, target))
    with open(path, "w") as out:
        out.write('{\n  "formatVersion" : "v1.0",\n  "disclaimer" : "synthetic (pricewatch benchmark)",\n'
                  '  "offerCode" : "AmazonEC2",\n  "version" : "20260928000000",\n'
                  '  "publicationDate" : "2026-09-28T00:00:00Z",\n  "products" : {\n')
        for i, (sku, itype, os_, tenancy, sw, cap) in enumerate(skus):
            product = {"sku": sku, "productFamily": "Compute Instance", "attributes": {
                "servicecode": "AmazonEC2", "location": "US East (N. Virginia)", "locationType": "AWS Region",
                "instanceType": itype, "currentGeneration": "Yes",
                "instanceFamily": "GPU instance" if itype[0] in "pg" and itype.split(".")[0][1:2].isdigit() else "General purpose",
                "vcpu": "192", "physicalProcessor": "AMD EPYC 7R13 Processor", "clockSpeed": "3.6 GHz",
                "memory": "2048 GiB", "storage": "8 x 3840 NVMe SSD", "networkPerformance": "3200 Gigabit",
                "processorArchitecture": "64-bit", "tenancy": tenancy, "operatingSystem": os_,
                "licenseModel": "No License required", "usagetype": f"BoxUsage:{itype}", "operation": "RunInstances",
                "availabilityzone": "NA", "capacitystatus": cap, "classicnetworkingsupport": "false",
                "dedicatedEbsThroughput": "80000 Mbps", "ecu": "NA", "enhancedNetworkingSupported": "Yes",
                "gpuMemory": "NA", "intelAvxAvailable": "No", "marketoption": "OnDemand", "normalizationSizeFactor": "384",
                "preInstalledSw": sw, "processorFeatures": "AMD Turbo", "regionCode": "us-east-1",
                "servicename": "Amazon Elastic Compute Cloud", "vpcnetworkingsupport": "true"}}
            out.write(f'    "{sku}" : ' + json.dumps(product, indent=6)[:-1] + "    }" + (",\n" if i < len(skus) - 1 else "\n"))
        out.write('  },\n  "terms" : {\n    "OnDemand" : {\n')
        for i, (sku, *_rest) in enumerate(skus):
            price = f"{rng.uniform(0.01, 120):.10f}"
            term = {f"{sku}.JRTCKXETXF": {"offerTermCode": "JRTCKXETXF", "sku": sku,
                                          "effectiveDate": "2026-09-01T00:00:00Z", "priceDimensions": {
                f"{sku}.JRTCKXETXF.6YS6EN2CT7": {"rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                                                 "description": f"${price} per On Demand instance hour",
                                                 "beginRange": "0", "endRange": "Inf", "unit": "Hrs",
                                                 "pricePerUnit": {"USD": price}, "appliesTo": []}},
                                          "termAttributes": {}}}
            out.write(f'      "{sku}" : ' + json.dumps(term, indent=8)[:-1] + "      }" + (",\n" if i < len(skus) - 1 else "\n"))
        out.write('    },\n    "Reserved" : {\n')
        for i, (sku, *_rest) in enumerate(skus):
            terms = {}
            for code, length, option in (("4NA7Y494T4", "1yr", "No Upfront"), ("HU7G6KETJZ", "1yr", "Partial Upfront"),
                                         ("6QCMYABX3D", "1yr", "All Upfront"), ("BPH4J8HBKS", "3yr", "No Upfront"),
                                         ("38NPMPTW36", "3yr", "Partial Upfront"), ("NQ3QZPMQV9", "3yr", "All Upfront")):
                dims = {f"{sku}.{code}.6YS6EN2CT7": {"rateCode": f"{sku}.{code}.6YS6EN2CT7", "description": "hourly",
                                                    "beginRange": "0", "endRange": "Inf", "unit": "Hrs",
                                                    "pricePerUnit": {"USD": f"{rng.uniform(0.01, 80):.10f}"}, "appliesTo": []}}
                if option != "No Upfront":
                    dims[f"{sku}.{code}.2TG2D8R56U"] = {"rateCode": f"{sku}.{code}.2TG2D8R56U", "description": "Upfront Fee",
                                                       "unit": "Quantity", "pricePerUnit": {"USD": "12345"}, "appliesTo": []}
                terms[f"{sku}.{code}"] = {"offerTermCode": code, "sku": sku, "effectiveDate": "2026-09-01T00:00:00Z",
                                          "priceDimensions": dims, "termAttributes": {
                                              "LeaseContractLength": length, "OfferingClass": "standard",
                                              "PurchaseOption": option}}
            out.write(f'      "{sku}" : ' + json.dumps(terms, indent=8)[:-1] + "      }" + (",\n" if i < len(skus) - 1 else "\n"))
        out.write("    }\n  }\n}\n")
    return {"skus": len(skus), "bytes": path.stat().st_size}


def _rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure(mode: str, path: str, traced: bool) -> None:
    """In a child process: read the body, then the reading under test; prints one JSON line.
    ``traced``: under tracemalloc (its peak; tracemalloc slows allocation-heavy code several
    times, so times and RSS come from an untraced run)."""
    import tracemalloc
    if mode == "stream":
        from spiders.aws import OFFERS, parse_offer_file
        body = Path(path)                   # what the spider parses: the body's temp file
    else:
        body = Path(path).read_bytes()      # what Scrapy's in-memory path hands the callback
    before = _rss_kib()
    if traced:
        tracemalloc.start()
    t, cpu = time.perf_counter(), time.process_time()
    if mode == "json":
        doc = json.loads(body)
        kept = sum(1 for p in doc["products"].values() if p["attributes"].get("instanceFamily") == "GPU instance")
    else:
        parsed = parse_offer_file(body, OFFERS.format(region="us-east-1"))
        kept = len(parsed.offers)
        assert not parsed.errors, parsed.errors[:2]
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    print(json.dumps({"mode": mode, "wall_s": wall, "cpu_s": cpu, "rss_peak_mib": _rss_kib() / 1024,
                      "rss_over_body_mib": (_rss_kib() - before) / 1024, "tracemalloc_peak_mib": peak / 2**20,
                      "kept": kept}))


def child(mode: str, path: Path) -> dict:
    """The untraced run's figures, with the tracemalloc peak of a second, traced run."""
    runs = []
    for traced in ("", "traced"):
        out = subprocess.run([sys.executable, __file__, "--measure", mode, str(path), traced or "untraced"],
                             capture_output=True, text=True, check=True, cwd=ROOT)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {**runs[0], "tracemalloc_peak_mib": runs[1]["tracemalloc_peak_mib"]}


STANDIN = json.dumps({"spiders.middlewares.WarcArchiveMiddleware": 950,
                      "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
                      "spiders.faults.NetworkFaultMiddleware": 550,
                      "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None})


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _scrapy(work: Path, name: str, args: list[str], cwd: Path = ROOT) -> dict:
    """One `scrapy crawl aws` process (of the checkout ``cwd``): wall time, peak RSS, offers,
    exit code, temp files it left."""
    items = work / f"{name}.jsonl"
    t = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", sys.executable, "-m", "scrapy", "crawl", "aws",
                           "-a", "regions=us-east-1", "-s", "LOG_LEVEL=ERROR", "-s", f"PRICEWATCH_SPOOL_DIR={work / 'spool'}",
                           "-o", f"{items}:jsonlines"] + args, capture_output=True, text=True, cwd=cwd)
    wall = time.perf_counter() - t
    lines = proc.stderr.strip().splitlines()
    last = lines[-1].split() if lines else []
    peak_kib, cpu = (int(last[0]), float(last[1]) + float(last[2])) if len(last) == 3 else (-1, float("nan"))
    offers = sorted((o["offer_key"], o["price_raw"], o["capture"]["body_sha256"])
                    for o in map(json.loads, items.open()) if "offer_key" in o) if items.exists() else []
    if proc.returncode or not offers:
        print(f"{name}: exit {proc.returncode}\n" + "\n".join(lines[-15:]), file=sys.stderr)
    left = list((work / "spool").rglob("*.body")) if (work / "spool").exists() else []
    return {"name": name, "crawl_s": wall, "cpu_s": cpu, "rss_mib": peak_kib / 1024, "offers": offers, "rc": proc.returncode,
            "temp_files_left": len(left)}


def baseline_replays(work: Path, path: Path, baseline: Path) -> list[dict]:
    """The file archived under its real URL (as a crawl of AWS would), replayed by this
    checkout and by ``baseline`` (a checkout before streaming), in the same run."""
    from pricewatch.evidence.streamed_body import Spool
    from pricewatch.evidence.warc_write import WarcArchiveWriter
    from spiders.aws import OFFERS
    spool = Spool(work)
    with open(path, "rb") as fh:
        spool.copy_from(fh)
    body = spool.finish([("Content-Type", "application/json"), ("Content-Length", str(path.stat().st_size))])
    writer = WarcArchiveWriter(work / "real-url" / "aws.warc.gz", provider="aws")
    writer.write_streamed(OFFERS.format(region="us-east-1"), 200, "OK", body.headers, body)
    writer.close()
    body.remove()
    return [_scrapy(work, "replay (real URL), this checkout", ["-a", "source=offer-file", "-s", f"PRICEWATCH_REPLAY={writer.path}"]),
            _scrapy(work, f"replay (real URL), baseline {baseline.name}", ["-a", "source=offer-file", "-s", f"PRICEWATCH_REPLAY={writer.path}"],
                    cwd=baseline)]


def crawls(path: Path, old: bool, baseline: Path | None = None) -> list[dict]:
    """Live download from a local HTTP server, then replay of the WARC it wrote; streamed, and
    with ``old`` also Scrapy's in-memory path (``-a stream=0``); with ``baseline``, the replay
    of a checkout before streaming too."""
    work = Path(tempfile.mkdtemp(prefix="bench-aws-", dir="/tmp"))
    site = work / "site" / "us-east-1"
    site.mkdir(parents=True)
    (site / "index.json").symlink_to(path)
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(work / "site")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = []
    try:
        time.sleep(1.0)
        for mode in (["stream"] + (["memory"] if old else [])):
            archive = work / f"archive-{mode}"
            flag = ["-a", "stream=0"] if mode == "memory" else []
            flag += ["-a", f"offers_url=http://127.0.0.1:{port}/{{region}}/index.json",
                     "-s", f"DOWNLOADER_MIDDLEWARES={STANDIN}", "-s", "AUTOTHROTTLE_ENABLED=False"]
            live = _scrapy(work, f"live-{mode}", flag + ["-s", f"PRICEWATCH_ARCHIVE_DIR={archive}"])
            warcs = sorted(archive.rglob("*.warc.gz"))
            live["warc_mib"] = warcs[0].stat().st_size / 2**20 if warcs else 0
            out.append(live)
            if warcs:
                out.append(_scrapy(work, f"replay-{mode}", flag + ["-s", f"PRICEWATCH_REPLAY={warcs[0]}"]))
        server.terminate()
        server.wait(10)
        if baseline:
            out += baseline_replays(work, path, baseline)
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    return out


def _print_crawls(rows: list[dict]) -> None:
    by = {r["name"]: r for r in rows}
    print("\n| `scrapy crawl aws -a regions=us-east-1` (own process) | CPU | wall | peak RSS | offers | WARC | temp files left |"
          "\n|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        warc = f"{r['warc_mib']:.0f} MiB" if "warc_mib" in r else ""
        print(f"| {r['name']} | {r['cpu_s']:.1f} s | {r['crawl_s']:.1f} s | {r['rss_mib']:.0f} MiB | {len(r['offers'])} | "
              f"{warc} | {r['temp_files_left']} |")
    pairs = [(f"{kind}: streamed / in-memory", by.get(f"{kind}-stream"), by.get(f"{kind}-memory"))
             for kind in ("live", "replay")]
    if len(rows) > 2 and rows[-1]["name"].startswith("replay (real URL), baseline"):
        pairs.append(("replay: this checkout / baseline", rows[-2], rows[-1]))
    for label, s, m in pairs:
        if s and m:
            print(f"| {label} | {s['cpu_s'] / m['cpu_s']:.2f} | {s['crawl_s'] / m['crawl_s']:.2f} | "
                  f"{s['rss_mib'] / m['rss_mib']:.2f} | | | |")
    same = len({tuple((k, p) for k, p, _ in r["offers"]) for r in rows}) == 1
    digests = {d for r in rows for _, _, d in r["offers"]}
    print(f"\nall crawls gave the same offers: {same}; body sha256 of the offers' evidence: {sorted(digests)}")


def parse_table(info: dict, path: Path) -> None:
    loads, stream = child("json", path), child("stream", path)
    rows = [("body held in memory", f"{info['bytes'] / 2**20:.0f} MiB", "none (read from its file)", "")]
    for label, key, unit in (("CPU time", "cpu_s", "s"), ("wall time", "wall_s", "s"), ("peak RSS added by the reading (over the body, if held)", "rss_over_body_mib", "MiB"),
                             ("tracemalloc peak of the reading", "tracemalloc_peak_mib", "MiB"),
                             ("peak RSS of the process", "rss_peak_mib", "MiB")):
        ratio = stream[key] / loads[key] if loads[key] else float("nan")
        rows.append((label, f"{loads[key]:.1f} {unit}", f"{stream[key]:.1f} {unit}", f"{ratio:.3f}"))
    print(f"| {info['skus']} SKUs, {info['bytes'] / 2**20:.0f} MiB | json.loads | streamed (ijson, parse_offer_file) "
          "| streamed / json.loads |\n|---|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\nGPU offers kept by the streamed parse: {stream['kept']} (json.loads found {loads['kept']} GPU products)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=400)
    ap.add_argument("--crawl", action="store_true")
    ap.add_argument("--old", action="store_true", help="with --crawl: also Scrapy's in-memory path")
    ap.add_argument("--baseline", type=Path, help="with --crawl: a checkout before streaming (e.g. "
                    "`git archive e9d14b9^ | tar -x -C DIR`), whose replay crawl of the file is measured too")
    ap.add_argument("--no-parse", action="store_true", help="skip the json.loads / parse comparison")
    ap.add_argument("--keep", action="store_true", help="keep the offer file (and --reuse it next time)")
    ap.add_argument("--reuse", action="store_true", help="reuse a kept offer file of the same --mb")
    ap.add_argument("--measure", nargs=3, metavar=("MODE", "PATH", "TRACED"))
    args = ap.parse_args()
    if args.measure:
        mode, path, traced = args.measure
        measure(mode, path, traced == "traced")
        return
    path = Path("/tmp/pricewatch-bench-AmazonEC2-us-east-1.json")
    t = time.perf_counter()
    sizes = path.with_suffix(".json.info")
    if args.reuse and path.exists() and sizes.exists() and json.loads(sizes.read_text()).get("mb") == args.mb:
        info = json.loads(sizes.read_text())
    else:
        info = {**write_offer_file(path, args.mb), "mb": args.mb}
        sizes.write_text(json.dumps(info))
    print(f"wrote {path}: {info['bytes'] / 2**20:.0f} MiB, {info['skus']} SKUs in {time.perf_counter() - t:.0f} s",
          file=sys.stderr)
    try:
        if not args.no_parse:
            parse_table(info, path)
        if args.crawl:
            _print_crawls(crawls(path, args.old, args.baseline))
    finally:
        if not args.keep:
            path.unlink(missing_ok=True)
            sizes.unlink(missing_ok=True)


if __name__ == "__main__":
    main()

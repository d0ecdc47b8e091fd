"""`pricewatch evidence`: a stored price, one command from its archived proof; the WACZ
packages and the replay server of `--open`.

A real warehouse loaded from the real replay of Massed Compute's shipped capture (its real
2026-08-22 pricing page), real WARC files, a real HTTP server. Expected values are read off
the capture's source by a person:

    $ sha256sum captures/src/2026-08-22/massed_compute/pricing.html
    85bd806d66fdd9a1d2ef27ef68e85776fc2a033df30003600358df1deea56d20
    $ grep -o '.\\{30\\}\\$\\$43\\.46.\\{20\\}' captures/src/2026-08-22/massed_compute/pricing.html
    t-pricing-ink\\",\\"children\\":[\\"$$43.46\\",[\\"$\\",\\"small\\",n      (once in the page)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from datetime import datetime, timezone
from decimal import Decimal

import pytest
from warcio.archiveiterator import ArchiveIterator

from pricewatch.collect import judge, replays, store
from pricewatch.evidence import lookup as evidence
from pricewatch.evidence import wacz
from pricewatch.evidence.warc_read import read_file
from pricewatch.server.evidence_viewer import EvidenceServer
from tests.conftest import CAPTURES, ROOT, shipped
from warehouse import db, migrate

PAGE_SHA256 = "85bd806d66fdd9a1d2ef27ef68e85776fc2a033df30003600358df1deea56d20"
B200_KEY = "8x B200 SXM6 on-demand"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, crawl):
    """The warehouse after replaying captures/2026-08-22/massed_compute.warc.gz."""
    path = tmp_path_factory.mktemp("evidence") / "w.duckdb"
    replay = shipped("massed_compute")
    con = db.connect(path)
    migrate.migrate(con)
    outcome = judge.judge_crawl(crawl("massed_compute", replay))
    run, pr, offers, facts = judge.build_run([outcome], "replay", datetime.now(timezone.utc), None, replay,
                                               captured_at=replays.archive_capture_times(replay),
                                               known_providers=replays.all_providers())
    assert store.load_run(con, run, pr, offers, facts)
    con.close()
    return path


@pytest.fixture
def con(warehouse):
    c = db.connect(warehouse, read_only=True)
    yield c
    c.close()


def test_an_offer_points_to_its_record_relative_to_the_archive_root_and_the_sha256_checks(con, warehouse):
    stored = {r[0] for r in con.execute("SELECT DISTINCT warc_file FROM offers").fetchall()}
    assert stored == {"2026-08-22/massed_compute.warc.gz"}    # not this machine's absolute path
    ev = evidence.of_offer(con, warehouse, provider="massed_compute", offer_key=B200_KEY)
    assert ev.ok, ev.problem
    assert ev.file.resolve() == (CAPTURES / "2026-08-22" / "massed_compute.warc.gz").resolve()
    assert ev.recomputed_sha256 == ev.row["body_sha256"] == PAGE_SHA256
    r = ev.exchange.response
    assert (r.url, r.status, ev.exchange.status_line) == ("https://vm.massedcompute.com/pricing", 200, "200 OK")
    assert r.ref.captured_at.isoformat() == "2026-08-22T12:00:00+00:00"      # captured_at in exchanges.yaml
    assert ("Content-Type", "text/html; charset=utf-8") in r.headers
    assert ev.exchange.request_line == "GET /pricing HTTP/1.1"
    assert ev.exchange.warcinfo["pricewatch-provider"] == "massed_compute"
    before, match, after = ev.excerpt
    assert ev.printed == match == "$43.46" and ev.found_in == "response body"
    assert before.endswith('t-pricing-ink\\",\\"children\\":[\\"$') and after.startswith('\\",[\\"$\\",\\"small\\",n')
    # The row id names the same reading.
    by_row = evidence.of_offer(con, warehouse, row_id=ev.row["offer_row"])
    assert (by_row.row["offer_key"], by_row.file, by_row.excerpt) == (B200_KEY, ev.file, ev.excerpt)
    with pytest.raises(LookupError, match="no stored offer: massed_compute offer 'nosuch'"):
        evidence.of_offer(con, warehouse, provider="massed_compute", offer_key="nosuch")


def test_old_rows_with_absolute_paths_still_resolve_and_a_moved_archive_is_found(con, warehouse, tmp_path):
    row = dict(evidence.of_offer(con, warehouse, provider="massed_compute", offer_key=B200_KEY).row)
    # A row stored by an earlier release, on the machine that crawled (absolute path).
    absolute = {**row, "warc_file": str((CAPTURES / "2026-08-22" / "massed_compute.warc.gz").resolve())}
    assert evidence.check("old row", absolute, []).ok
    # The same row read on another machine: the <date>/<file> tail is looked up under the roots.
    elsewhere = {**row, "warc_file": "/home/crawler/pricewatch/data/archive/2026-08-22/massed_compute.warc.gz"}
    assert str(evidence.check("moved", elsewhere, [CAPTURES]).file.resolve()) == absolute["warc_file"]
    gone = evidence.check("gone", {**row, "warc_file": "2026-08-22/massed_compute.warc.gz"}, [tmp_path])
    assert not gone.ok and "is under none of" in gone.problem and "--archive" in gone.problem


def test_a_claim_shows_the_evidence_of_each_input(warehouse, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copy(warehouse, path)
    con = db.connect(path)
    run_id, row = con.execute("SELECT run_id, rowid FROM offers WHERE offer_key = ?", [B200_KEY]).fetchone()
    # One evaluation with two inputs: the cited offer (stored) and one the run never saw.
    con.execute("""INSERT INTO claim_evaluations (run_id, claim_id, claim_group, page, kind, status, tolerance,
                       snapshot_at, evaluated_at, published_text, rules_version, trigger)
                   VALUES (?, 'g-test.b200', 'g-test', 'test', 'cited_offer', 'holds', 'cents',
                           '2026-08-22 12:00:00+00', now(), '$43.46', 'v1', 'run')""", [run_id])
    for name, key, status in (("cited offer", B200_KEY, "ok"), ("other", "9x nosuch", "never_seen")):
        con.execute("""INSERT INTO claim_inputs (run_id, claim_id, input_name, role, provider, offer_key,
                           input_status, used, offer_run_id, rules_version)
                       VALUES (?, 'g-test.b200', ?, 'cited', 'massed_compute', ?, ?, ?, ?, 'v1')""",
                    [run_id, name, key, status, status == "ok", run_id if status == "ok" else None])
    blocks = evidence.of_claim(con, "g-test.b200", path)
    con.close()
    assert [b.row["input_name"] for b in blocks] == ["cited offer", "other"]
    assert blocks[0].ok and blocks[0].row["offer_row"] == row and blocks[0].excerpt[1] == "$43.46"
    assert blocks[1].exchange is None and blocks[1].ok and blocks[1].note == "no evidence stored: input never_seen"


def test_the_command_prints_the_evidence_and_a_sha256_mismatch_is_a_loud_error(warehouse, tmp_path):
    cmd = [sys.executable, "-m", "pricewatch.cli", "evidence", B200_KEY, "--provider", "massed_compute"]
    ok = subprocess.run(cmd + ["--db", str(warehouse)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "stored = recomputed: OK" in ok.stdout and PAGE_SHA256 in ok.stdout and "GET /pricing HTTP/1.1" in ok.stdout
    assert "captures/2026-08-22/massed_compute.warc.gz" in ok.stdout and "$43.46" in ok.stdout
    # The warehouse says the body had another sha256 than the archive holds.
    bad = tmp_path / "bad.duckdb"
    shutil.copy(warehouse, bad)
    con = db.connect(bad)
    con.execute("UPDATE offers SET body_sha256 = ? WHERE offer_key = ?", ["0" * 64, B200_KEY])
    con.close()
    mismatch = subprocess.run(cmd + ["--db", str(bad), "--json"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert mismatch.returncode == 1
    assert "SHA256 MISMATCH: stored " + "0" * 64 in mismatch.stderr and PAGE_SHA256 in mismatch.stderr
    assert "Traceback" not in mismatch.stderr
    assert json.loads(mismatch.stdout)[0]["sha256"] == {"stored": "0" * 64, "recomputed": PAGE_SHA256}


def test_the_printed_text_is_found_across_markup_and_a_number_only_whole():
    assert evidence.find_printed("<td>$2.49<span> /hr</span>", "$2.49 /hr")[1] == "$2.49<span> /hr"
    assert evidence.find_printed("10.89, 0.895, 0.89]", "0.89") == ("10.89, 0.895, ", "0.89", "]")
    assert evidence.find_printed("$43.467", "$43.46") is None


def test_a_script_printed_price_shows_its_value_in_the_json_it_came_from():
    # captures/src/2026-10-29/jarvislabs/server_meta.json line 50, the A100-80GB vm entry:
    #     "spot_price": 0.89,
    # which the page's script prints as "$0.89/hr" (money(v) in pricing-7c41d2e9.js).
    warc = CAPTURES / "2026-10-29" / "jarvislabs.warc.gz"
    (meta,) = [r for r in read_file(warc) if r.url.endswith("/misc/server_meta")]
    row = {"warc_file": meta.ref.warc_file, "warc_record_id": meta.ref.record_id, "body_sha256": meta.ref.body_sha256,
           "source_url": meta.url, "price_raw": "$0.89/hr", "price_per_hour": Decimal("0.890000")}
    ev = evidence.check("spot", row, [CAPTURES])
    assert ev.ok and ev.row["warc_file"] == "2026-10-29/jarvislabs.warc.gz", ev.problem
    assert ev.excerpt[1] == "0.89" and ev.excerpt[0].endswith('"spot_price": ')
    assert ev.found_in == "response body (the value; the page printed '$0.89/hr')"


def test_wacz_of_a_capture_validates_and_lists_the_documents_not_their_parts(tmp_path):
    # captures/src/2026-10-29/jarvislabs/exchanges.yaml: the page, its stylesheet, its script, server_meta.
    warc = CAPTURES / "2026-10-29" / "jarvislabs.warc.gz"
    out = wacz.package_run([warc], tmp_path, "r1")     # a run's WACZ, in the dated folder of its WARCs
    assert out == tmp_path / "2026-10-29" / "run-r1.wacz"
    valid, said = wacz.validate(out)
    assert valid, said
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        pages = [json.loads(line) for line in z.read("pages/pages.jsonl").decode().splitlines()[1:]]
        package = json.loads(z.read("datapackage.json"))
        cdxj = gzip.decompress(z.read("indexes/index.cdx.gz")).decode()
    assert {"archive/jarvislabs.warc.gz", "indexes/index.cdx.gz", "pages/pages.jsonl", "datapackage.json",
            "datapackage-digest.json"} <= names
    assert [p["url"] for p in pages] == ["https://jarvislabs.ai/pricing", "https://backendn.jarvislabs.net/misc/server_meta"]
    hashes = {r["path"]: r["hash"] for r in package["resources"]}
    assert hashes["archive/jarvislabs.warc.gz"] == "sha256:" + hashlib.sha256(warc.read_bytes()).hexdigest()
    assert "ai,jarvislabs)/pricing 20261029020011" in cdxj            # CDXJ: SURT, timestamp, JSON


def test_open_serves_the_wacz_and_the_archived_bodies(con, warehouse, tmp_path):
    ev = evidence.of_offer(con, warehouse, provider="massed_compute", offer_key=B200_KEY)
    server = EvidenceServer([ev], tmp_path, viewer=None)
    try:
        index = urllib.request.urlopen(server.url, timeout=10).read().decode()
        raw = urllib.request.urlopen(server.url + "raw/0", timeout=10)
        body, csp = raw.read(), raw.headers["Content-Security-Policy"]
        served = urllib.request.urlopen(server.url + "evidence.wacz", timeout=10).read()
        part = urllib.request.urlopen(urllib.request.Request(server.url + "evidence.wacz",
                                                             headers={"Range": "bytes=0-3"}), timeout=10)
        assert (part.status, part.read()) == (206, b"PK\x03\x04")
    finally:
        server.close()
    assert "8x B200 SXM6 on-demand" in index and PAGE_SHA256 in index and "<mark>$43.46</mark>" in index
    assert hashlib.sha256(body).hexdigest() == PAGE_SHA256 and csp.startswith("sandbox")
    (tmp_path / "served.wacz").write_bytes(served)
    assert wacz.validate(tmp_path / "served.wacz")[0]


def test_every_shipped_capture_starts_with_a_warcinfo_record():
    files = sorted(CAPTURES.glob("*/*.warc.gz"))
    assert len(files) >= 15
    first = {}
    for f in files:
        with open(f, "rb") as fh:
            record = next(iter(ArchiveIterator(fh)))
            first[f"{f.parent.name}/{f.name}"] = record.rec_type
    assert {k for k, v in first.items() if v != "warcinfo"} == set()


@pytest.mark.slow
def test_open_replays_a_script_rendered_page_in_a_browser(tmp_path):
    """ReplayWeb.page (fetched with npm on first use) replays Jarvislabs' shipped capture from the
    WACZ in headless Chromium: the page's script runs again and fills the spot cell from the
    archived server_meta (A100-80GB "spot_price": 0.89 -> "$0.89/hr", pricing-7c41d2e9.js money())."""
    from playwright.sync_api import sync_playwright

    from pricewatch.server.evidence_viewer import ensure_viewer
    from spiders.settings import CHROMIUM_ARGS, PLAYWRIGHT_LAUNCH_OPTIONS
    viewer, how = ensure_viewer()
    assert viewer is not None, how
    warc = CAPTURES / "2026-10-29" / "jarvislabs.warc.gz"
    (page,) = [r for r in read_file(warc) if r.url == "https://jarvislabs.ai/pricing"]
    row = {"warc_file": page.ref.warc_file, "warc_record_id": page.ref.record_id, "body_sha256": page.ref.body_sha256,
           "source_url": page.url, "price_raw": "$1.49/hr"}
    server = EvidenceServer([evidence.check("page", row, [CAPTURES])], tmp_path, viewer=viewer)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=PLAYWRIGHT_LAUNCH_OPTIONS["executable_path"], headless=True,
                                        args=CHROMIUM_ARGS)
            tab = browser.new_page()
            tab.goto(server.url)
            # The replayed page is a frame of the viewer (inside its shadow DOM); Playwright pierces it.
            replayed = tab.frame_locator("replay-web-page iframe").frame_locator("iframe")
            # The script marks the table data-live-prices="loaded" once it has filled it.
            replayed.locator('[data-live-prices="loaded"]').wait_for(state="attached", timeout=30000)
            text = replayed.locator("td.price.spot").nth(2).inner_text()     # the third row: A100 80GB
            browser.close()
    finally:
        server.close()
    assert text == "$0.89/hr"

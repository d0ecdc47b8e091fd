"""report.html (pricewatch/reports/), opened in headless Chromium from a file:// URL with the
network cut off (every request that is not file:// is aborted and recorded).

One warehouse for the module: the shipped captures replayed in order (every HTTP provider of each
dated folder through the session `crawl` fixture, the real Scrapy replay; the one browser
provider, jarvislabs, is left out to keep this module fast: it is recorded as not attempted),
each run evaluated; then one more night of Arrakis (our own price page, parsed in-process from
the shipped page with two edits) in which

* H100's cheapest listing moves from $1.65 to $1.59 (the shipped page prints
  "| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |"; page 2 prints "$1.65" for it), and
* a hostile listing appears: an RTX 4090 whose provider id is ``<script>alert('pw')</script>``
  (after a right-to-left override character), its source URL ``javascript:alert('pw')``,
  at $0.39 per GPU-hour, cheaper than the $0.41 page 2 prints for the RTX 4090.

`pricewatch report` (write_report, which calls the HTML report) writes the report of that night.
Set PRICEWATCH_REPORT_SCREENSHOT=docs/report.png to save the README's screenshot from this test.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest
from playwright.sync_api import sync_playwright

from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.collect import judge, replays, store
from pricewatch.collect.replays import uses_browser
from pricewatch.reports.claims_report import write_report
from spiders.arrakis import parse_page
from tests.conftest import CAPTURES, CAPTURES_SRC
from tests.inprocess import capture_ref, run_parsed
from warehouse import db

ARRAKIS_URL = "https://arrakis.cloud/ja/gpus.html.md"
NIGHT = datetime(2026, 11, 1, 17, 40, tzinfo=timezone.utc)
HOSTILE = "<script>alert('pw')</script>"
HOSTILE_URL = "javascript:alert('pw')"
BIDI = "\u202e"     # right-to-left override: would show the text after it reversed
EVIDENCE_BASE = "https://evidence.example.org/archive"
# The GPUs the two published pages name (rules/published/: page 1's table rows L40S, A100 80GB,
# H100, H200, B200, RTX 4090; page 2's RTX 3090, RTX 4090, L40S, RTX 6000 Ada, RTX A6000, A100,
# H100, RTX PRO 6000, H200, B200, B300): one "cheapest per GPU" chart each.
PAGE_GPUS = ["L40S", "A100 80GB", "H100", "H200", "B200", "RTX 4090", "RTX 3090", "RTX 6000 Ada", "RTX A6000",
             "RTX PRO 6000", "B300"]


def _load(con, results, captured_at=None) -> str:
    outcomes = [judge.judge_crawl(r) for r in results]
    run, prs, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), None, None,
                                                captured_at=captured_at, known_providers=replays.all_providers())
    store.load_run(con, run, prs, offers, facts)
    evaluate_claims(con, run["run_id"])
    return run["run_id"]


def _night_of_arrakis():
    text = (CAPTURES_SRC / "2026-10-31" / "arrakis" / "gpus.html.md").read_text(encoding="utf-8")
    assert "| 80 GB | 72 | $1.65 |" in text and "2026年10月31日 17:40 UTC" in text
    text = text.replace("| 80 GB | 72 | $1.65 |", "| 80 GB | 72 | $1.59 |").replace("2026年10月31日 17:40 UTC",
                                                                                 "2026年11月1日 17:40 UTC")
    parsed = parse_page(text, ARRAKIS_URL)
    assert not parsed.errors
    parsed.offer(sku=BIDI + HOSTILE, gpu_label="RTX 4090", gpu_count=1, vram_gb=24.0, billing="marketplace",
                 tier="cheapest listing", self_service=True, currency="USD", price_raw="$0.39",
                 price_unit="gpu_hour", availability="3 GPUs listed",
                 capture=capture_ref(HOSTILE_URL, NIGHT))     # a source URL that must never become a link
    return run_parsed("arrakis", parsed, url=ARRAKIS_URL, captured_at=NIGHT)


@pytest.fixture(scope="module")
def report(tmp_path_factory, crawl):
    base = tmp_path_factory.mktemp("html-report")
    con = db.connect(base / "pricewatch.duckdb")
    try:
        # The shipped history up to Arrakis's capture (2026-10-31); NIGHT is the night after it.
        # Later folders (2026-12-02: pages of sources no claim reads) would make NIGHT a backfill.
        for batch in [b for b in replays.replay_batches(CAPTURES) if b.name <= "2026-10-31"]:
            providers = [p for p in replays.providers_in_archive(batch) if not uses_browser(p)]
            _load(con, [crawl(p, batch / f"{p}.warc.gz") for p in providers],
                  captured_at=replays.archive_capture_times(batch))
        run_id = _load(con, [_night_of_arrakis()])
        claims = con.execute("SELECT count(*) FROM latest_claim_status").fetchone()[0]
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("PRICEWATCH_EVIDENCE_BASE_URL", EVIDENCE_BASE)
            paths = write_report(con, base / "report")
    finally:
        con.close()
    return {"paths": paths, "html": base / "report" / "report.html", "run_id": run_id, "claims": claims}


@pytest.fixture(scope="module")
def page(report):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("PRICEWATCH_CHROMIUM", "/usr/bin/chromium"),
                                    args=["--no-sandbox"], chromium_sandbox=False)
        pg = browser.new_page(viewport={"width": 1280, "height": 960})
        blocked = []

        def only_files(route):
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                blocked.append(route.request.url)
                route.abort()

        pg.route("**/*", only_files)
        pg.goto(report["html"].as_uri())
        if os.environ.get("PRICEWATCH_REPORT_SCREENSHOT"):
            pg.screenshot(path=os.environ["PRICEWATCH_REPORT_SCREENSHOT"])
        yield pg, blocked
        browser.close()


def test_pricewatch_report_writes_report_html_beside_the_markdown(report):
    names = [p.name for p in report["paths"]]
    assert "claims-report.md" in names and "report.html" in names


def test_it_opens_from_disk_with_no_network(page):
    pg, blocked = page
    assert pg.title().startswith("pricewatch report")
    assert blocked == []
    # nothing in the file could reach out: no script, stylesheet link, image or font URL
    assert pg.locator("script, link[rel=stylesheet], img, iframe").count() == 0


def test_summary_counts_and_stale_sources(page, report):
    pg, _ = page
    cards = dict(zip(pg.locator(".card").all_inner_texts(), range(3)))
    assert any(t.endswith("drifted") for t in cards)
    shown = sum(int(t.split()[0]) for t in pg.locator(".card b").all_inner_texts())
    assert shown == report["claims"]
    # gpuwithcrypto's last good data is its 2026-10-29 02:00 capture: 63.7 h before this night, beyond 48 h
    row = pg.locator("details.stale-sources tr.source-row", has_text="GPUwithCrypto")
    assert "2026-10-29 02:00 UTC" in row.text_content() and "stale (limit 48 h)" in row.text_content()


def test_claims_table_rows_status_colours_and_evidence(page, report):
    pg, _ = page
    assert pg.locator("tr.claim").count() == report["claims"]
    h100 = pg.locator("#claim-a-cheapest-h100")
    assert "status-drifted" in h100.get_attribute("class")
    cells = h100.locator("td").all_inner_texts()
    assert cells[3] == "$1.65" and cells[4] == "$1.59"     # published (page 2) / this night's listing
    # the archived record, linked under the evidence base URL, the command, the source as a second link
    link = h100.locator("a.evidence")
    assert link.inner_text() == "in-process.warc.gz"
    assert link.get_attribute("href") == f"{EVIDENCE_BASE}/in-process.warc.gz?record=%3Curn%3Auuid%3Ain-process%3E"
    assert "<urn:uuid:in-process>" in h100.locator("code.record").first.inner_text()
    assert h100.locator("code.cmd").inner_text() == "pricewatch evidence a-cheapest-h100"
    assert h100.locator("a.source").first.get_attribute("href") == ARRAKIS_URL
    # status colours: a drifted status cell is not coloured like one that holds
    holds = pg.locator("tr.claim.status-holds td.status").first
    colour = lambda loc: loc.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour(h100.locator("td.status")) != colour(holds) != "rgba(0, 0, 0, 0)"


def test_a_hostile_offer_label_is_shown_as_text(page):
    pg, _ = page
    row = pg.locator("#claim-a-cheapest-4090")
    assert "status-drifted" in row.get_attribute("class")
    assert f"1x {HOSTILE} 24GB marketplace/cheapest listing" in row.inner_text()
    assert pg.locator("script").count() == 0
    assert BIDI not in pg.content()                           # control and format characters dropped
    # its source URL is shown, never linked
    assert HOSTILE_URL in row.inner_text()
    assert pg.locator("a[href^='javascript']").count() == 0
    titles = pg.locator("figure.chart figcaption.title").all_inner_texts()
    assert any(HOSTILE in t for t in titles)


def test_price_history_charts_with_published_reference_lines(page):
    pg, _ = page
    charts = pg.locator("figure.chart")
    titles = pg.locator("figure.chart figcaption.title b").all_inner_texts()
    assert charts.count() == charts.locator("svg").count() >= len(PAGE_GPUS) + 2
    h100 = charts.filter(has_text="Arrakis · 1x h100 80GB marketplace/cheapest listing")
    assert h100.count() == 1
    assert h100.locator("svg [stroke-dasharray]").count() >= 1          # the published $1.65
    assert "published $1.65 per GPU-hour" in h100.inner_text()
    # One cheapest chart per comparable class (issue 23 item 3): a model that does not split is its
    # own ("B200: ..."), one that does has one per class it is listed in, never one line mixing them
    # (Massed Compute's real page lists "H100 SXM5 (80GB)" and "H100 NVL (94GB) NVLink").
    for gpu in PAGE_GPUS:
        assert any(t == f"{gpu}: cheapest per GPU-hour"
                   or (t.startswith(f"{gpu} ") and t.endswith(": cheapest per GPU-hour")) for t in titles), gpu
    assert {"H100 SXM: cheapest per GPU-hour", "H100 NVL: cheapest per GPU-hour"} <= set(titles)
    assert "H100: cheapest per GPU-hour" not in titles
    b200 = charts.filter(has_text="Cheapest 8x B200 on-demand (g-cite-massed-b200x8)")
    assert "published $43.46 per hour" in b200.inner_text()       # page 1: "$43.46"


def test_what_changed_since_the_previous_night(page):
    pg, _ = page
    moved = pg.locator("table.price-changes tr", has_text="1x h100 80GB marketplace/cheapest listing")
    assert moved.count() == 1
    assert "$1.65/h" in moved.inner_text() and "$1.59/h" in moved.inner_text() and "-3.64 %" in moved.inner_text()
    changed = pg.locator("table.claim-changes tr", has=pg.locator("a[href='#claim-a-cheapest-h100']"))
    assert "holds → drifted" in changed.inner_text()


def test_regenerated_pages_link_changed_numbers_to_the_claims_table(page):
    pg, _ = page
    assert pg.locator("article.page").count() == 2
    change = pg.locator("#page-arrakis-gpu-memory a.chg[href='#claim-a-cheapest-h100']").first
    assert change.locator("del").inner_text() == "$1.65" and change.locator("ins").inner_text() == "$1.59"
    assert pg.locator("#claim-a-cheapest-h100").count() == 1


def test_chart_times_are_24_hour_utc_and_each_billing_has_one_colour():
    """issue 21 item 9: a 17:40 UTC reading is labelled "10-31 17:40" (vega's own label was
    the 12-hour "05:40"); every billing chart maps a billing to the same colour."""
    import re

    from pricewatch.reports import charts
    svg = charts.render("step", points=[{"t": "2026-10-31T17:40:00Z", "price": 1.0, "segment": 0, "start": True}],
                        refs=[])
    assert "10-31 17:40" in re.findall(r">([^<]{1,25})</text>", svg)
    scale = charts._templates()["billing"]["encoding"]["color"]["scale"]
    assert dict(zip(scale["domain"], scale["range"])) == charts.BILLING_COLOURS
    assert len(set(charts.BILLING_COLOURS.values())) == len(charts.BILLING_COLOURS)


def test_holding_claims_are_folded_below_those_that_need_a_look(report):
    html = report["html"].read_text(encoding="utf-8")
    main, _, folded = html.partition('<details class="holding">')
    assert folded, "the holding claims are folded in a <details>"
    assert 'class="claim status-holds"' not in main.split('<section id="claims">')[1]
    assert "<script" not in html

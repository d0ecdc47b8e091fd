"""Alert faults: nothing false, nothing twice, nothing lost (issue 9).

Each test feeds a real DuckDB file with the nightly flow's own steps (tests/alerting.py's
Warehouse: judge, build, load, evaluate claims, derive, deliver) from variants of the shipped
captures (tests/alerting.py's Captures: real WARC files), and delivers to a real HTTP receiver
on localhost (pytest-httpserver, with a real sleep where the receiver is slow, really stopped
where it is down). The spiders' parsers read the WARC records in-process (the same functions
the Scrapy spiders call, through the real item pipelines: tests/inprocess.py), so each test
takes a few seconds; the subprocess crawl of these captures is covered by tests/test_alerts.py.

Published page 1 cites Thunder Compute's A100 80GB at $1.09/h and Massed Compute's 8x B200 at
$43.46/h as the cheapest self-service on-demand 8x B200 (CLAIMS.md).
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from pricewatch.alerts.render import BODY_MAX_CHARS, _cap
from pricewatch.collect import crawl_process
from pricewatch.evidence.archive import read_archive, write_exchanges
from pricewatch.record.config import AlertConfig
from spiders.lambda_cloud import parse_pricing as parse_lambda
from spiders.massed_compute import parse_pricing as parse_massed
from spiders.thunder_compute import parse_offers as parse_thunder
from tests.alerting import A100, LAMBDA_B200, MASSED_B200, Captures, Warehouse
from tests.conftest import shipped_exchanges
from tests.inprocess import run_parsed

pytestmark = pytest.mark.fault

SUBJECT = f"thunder_compute/{A100}"
HOSTILE = ("<script>alert(1)</script> | [/red] [bold]x[/bold] \x1b[31m\u202e\u200b\x07 Zephyr"
           + " Z9" * 400)


# --- harness: the parsers in-process on the WARC records, a real receiver ------------------

def inprocess_crawl(provider: str, warc: Path) -> crawl_process.CrawlResult:
    """What the provider's spider yields for this archive, through the real pipelines; every
    offer points to its WARC record (so run ids and evidence are those of a replay)."""
    records = {r.url.rsplit("/", 1)[-1]: r for r in read_archive(warc)}
    if provider == "thunder_compute":
        pricing, specs = records["pricing"], records["specs"]
        parsed, cap = parse_thunder(pricing.body.decode(), specs.body.decode(), pricing.url, specs.url), pricing.ref
    else:
        (page,) = records.values()
        parse = {"massed_compute": parse_massed, "lambda_cloud": parse_lambda}[provider]
        parsed, cap = parse(page.body.decode(), page.url), page.ref
    for offer in parsed.offers:
        offer.setdefault("capture", cap.as_meta())
    return run_parsed(provider, parsed, url=cap.url, captured_at=cap.captured_at)


@pytest.fixture(scope="module")
def caps(tmp_path_factory):
    return Captures(tmp_path_factory.mktemp("alert-fault-captures"))


class Receiver:
    """A JSON webhook on localhost. `delay_s`: seconds it takes to process a request (the
    payload counts as processed once that time is over, answered or not); `down()` stops it
    (connection refused), `up()` starts it again on the same port."""

    def __init__(self, delay_s: float = 0.0):
        self.delay_s, self.processed, self.posts = delay_s, [], 0
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.start()
        self.port = self.server.port
        self._route()

    def _route(self):
        def handle(request):
            self.posts += 1
            time.sleep(self.delay_s)
            self.processed.append({"payload": json.loads(request.data), "headers": dict(request.headers)})
            return Response("ok")
        self.server.expect_request("/hook", method="POST").respond_with_handler(handle)

    @property
    def url(self) -> str:
        return f"json://127.0.0.1:{self.port}/hook"

    def down(self):
        self.server.clear()
        self.server.stop()

    def up(self):
        self.server = HTTPServer(host="127.0.0.1", port=self.port, threaded=True)
        self.server.start()
        self._route()

    def wait_processed(self, n: int, timeout_s: float = 10) -> None:
        end = time.monotonic() + timeout_s
        while len(self.processed) < n and time.monotonic() < end:
            time.sleep(0.05)

    def ids(self) -> Counter:
        return Counter(p["payload"].get("alert_id") for p in self.processed)

    def stop(self):
        if self.server.is_running():
            self.server.clear()
            self.server.stop()


@pytest.fixture
def receivers():
    made = []

    def make(**kw) -> Receiver:
        made.append(Receiver(**kw))
        return made[-1]
    yield make
    for r in made:
        r.stop()


def warehouse(tmp_path, **config) -> Warehouse:
    return Warehouse(tmp_path / "w.duckdb", inprocess_crawl, AlertConfig(**config))


def day(wh: Warehouse, caps: Captures, date: str, thunder, **more) -> str:
    return wh.run(f"{date}T02:00:00Z", massed_compute=caps.massed(), thunder_compute=thunder, **more)


def thunder_with_label(label: str) -> list[dict]:
    """Thunder's API with one more GPU, named `label` by /v1/specs (a label no catalog knows)."""
    ex = shipped_exchanges("thunder_compute")
    pricing, specs = json.loads(ex[0]["body"]), json.loads(ex[1]["body"])
    pricing["pricing"]["zz9_x1_prototyping"] = 2.0
    specs["specs"]["zz9_x1_prototyping"] = {"displayName": label, "vramGB": 80, "gpuCount": 1, "mode": "prototyping"}
    ex[0]["body"], ex[1]["body"] = json.dumps(pricing).encode(), json.dumps(specs).encode()
    return ex


def two_messages(tmp_path) -> Path:
    """Thunder's API with the cited A100 at $1.05 (one digest for page 1) and a GPU label no
    catalog knows (a message of its own): a run that sends two messages."""
    ex = thunder_with_label("ZZ9 Test GPU")
    pricing = json.loads(ex[0]["body"])
    pricing["pricing"]["a100xl_x1_prototyping"] = 1.05
    ex[0]["body"] = json.dumps(pricing).encode()
    return write_exchanges(tmp_path / "thunder-two-messages.warc.gz", ex)


# --- 1. backfill ----------------------------------------------------------------------------

def test_an_older_backfill_loaded_late_is_history_and_resends_nothing(tmp_path, caps, receivers, fault):
    hook = receivers()
    wh = warehouse(tmp_path, urls=(hook.url,))
    first = day(wh, caps, "2026-10-29", caps.thunder(1.09))
    news = day(wh, caps, "2026-11-05", caps.thunder(1.05))
    assert {a["kind"] for a in wh.alerts(run_id=news)} == {"price_changed", "claim_status"}
    delivered = {m["message_id"] for m in wh.messages(news)}
    assert len(hook.processed) == len(delivered) == 1          # both in the page's digest
    backfill = day(wh, caps, "2026-11-01", caps.thunder(1.05))  # an older archive, loaded after 11-05
    seq = {r["run_id"]: r["seq"] for r in wh.query("SELECT run_id, seq FROM run_sequence")}
    assert seq[first] < seq[backfill] < seq[news]
    old = wh.alerts(run_id=backfill)
    # Against 10-29 the backfill shows the same 1.09 -> 1.05 move 11-05 already reported: history.
    assert {a["kind"] for a in old} == {"price_changed", "claim_status"}
    assert {a["state"] for a in old} == {"suppressed"}
    assert all(a["details"]["suppressed_because"] == "backfill" and a["details"]["newer_run_id"] == news for a in old)
    assert "Backfill:" in old[0]["body"] and wh.last["derived"]["raised"] == 0
    assert wh.messages(backfill) == []
    after_backfill = len(hook.processed)

    later = day(wh, caps, "2026-11-06", caps.thunder(1.09))     # the next night: news again, against 11-05
    (back,) = wh.alerts("price_changed", later)
    assert (back["details"]["old_price_per_hour"], back["state"]) == (1.05, "sent")
    assert back["details"]["old_run_id"] == news
    ids = hook.ids()
    assert max(ids.values()) == 1 and delivered <= set(ids)
    fault("older backfill loaded after newer runs (2026-11-01 after 2026-11-05)",
          expected="its alerts stored as suppressed history, nothing sent again; the next night compares with 11-05",
          observed=f"backfill alerts {sorted(a['kind'] + ':' + a['state'] for a in old)}; receiver got "
                   f"{after_backfill - len(delivered)} new POST(s) for the backfill; next night "
                   f"{back['details']['old_price_per_hour']}->{back['details']['new_price_per_hour']} sent; "
                   f"max POSTs per alert_id {max(ids.values())}")


# --- 2. slow receiver -----------------------------------------------------------------------

@pytest.mark.slow   # real delivery timeouts, waited out (~7 s)
def test_a_receiver_slower_than_the_timeout_gets_each_alert_exactly_once(tmp_path, caps, receivers, fault):
    slow = receivers(delay_s=3.0)
    wh = warehouse(tmp_path, urls=(slow.url,), timeout_s=1.0)
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    started = time.monotonic()
    news = day(wh, caps, "2026-11-05", two_messages(tmp_path))  # delivery 1: two messages
    first_delivery = dict(wh.last["delivered"])
    assert time.monotonic() - started < 8                      # bounded: one timeout, not one per alert
    day(wh, caps, "2026-11-06", caps.thunder(1.05))             # delivery 2 (nothing new to derive)
    second_delivery = dict(wh.last["delivered"])
    slow.wait_processed(2)
    day(wh, caps, "2026-11-07", caps.thunder(1.05))             # delivery 3: nothing left to send
    alerts = wh.messages(news)
    assert len(alerts) == 2 and {a["state"] for a in alerts} == {"sent"}
    assert {a["state"] for a in wh.alerts(run_id=news)} == {"sent"}     # the events they carry
    # The receiver processed every message it was sent, each once, though it never answered in time.
    assert slow.ids() == Counter({a["message_id"]: 1 for a in alerts}) and slow.posts == 2
    assert all(p["headers"].get("Idempotency-Key") == p["payload"]["alert_id"] for p in slow.processed)
    assert all(p["payload"]["alert_id"] in p["payload"]["message"].splitlines()[-1] for p in slow.processed)
    assert all("no answer within 1 s" in a["last_error"] for a in alerts)
    assert (first_delivery["unconfirmed"], first_delivery["pending"]) == (1, 1)   # the 2nd waited for the next run
    assert AlertConfig().timeout_s > 10                          # a 10 s receiver is answered in time by default
    fault("alert receiver answers after 3 s, timeout 1 s (default timeout 30 s: a 10 s receiver is in time)",
          expected="each alert POSTed once (no resend after a timeout: unconfirmed, alert_id to dedupe)",
          observed=f"POSTs per alert {sorted(slow.ids().values())} over 3 deliveries; delivery 1 unconfirmed "
                   f"{first_delivery['unconfirmed']}, kept for next run {first_delivery['pending']}; delivery 2 "
                   f"unconfirmed {second_delivery['unconfirmed']}; states {sorted(a['state'] for a in alerts)}")


# --- 3. a first failed night does not page ------------------------------------------------

def test_a_source_failing_fewer_nights_than_the_threshold_pages_no_one(tmp_path, caps, receivers, fault):
    hook = receivers()
    wh = warehouse(tmp_path, urls=(hook.url,), failed_runs_threshold=3)
    broken = caps.thunder(1.09, specs_entry=False)   # pricing lists the A100, specs do not: the run fails
    good = day(wh, caps, "2026-10-29", caps.thunder(1.09))
    one_night = day(wh, caps, "2026-10-30", broken)
    quiet_claims = [r["claim_id"] for r in wh.query(
        """SELECT n.claim_id FROM claim_evaluations n JOIN claim_evaluations b USING (claim_id)
           WHERE n.run_id = ? AND b.run_id = ? AND n.status = 'unverifiable' AND b.status <> 'unverifiable'""",
        [one_night, good])]
    assert quiet_claims                               # claims did become unverifiable ...
    day(wh, caps, "2026-10-31", caps.thunder(1.09))
    assert wh.alerts() == [] and hook.processed == []  # ... and no one was told, nor of the recovery

    streak = [day(wh, caps, f"2026-11-0{d}", broken) for d in (1, 2)]
    assert wh.alerts() == []
    third = day(wh, caps, "2026-11-03", broken)       # the threshold is reached
    pages = wh.alerts("claim_status", third)
    assert pages and all(a["details"]["failing_sources"] == ["thunder_compute"] for a in pages)
    listed = {c["claim_id"] for a in pages for c in a["details"]["claims"]}
    assert set(quiet_claims) <= listed
    for a in pages:
        error = a["body"].split("latest error: ", 1)[1].split("\n", 1)[0]
        assert a["body"].count("thunder_compute") == 1 and a["body"].count(error) == 1
        assert all(line.endswith("-> unverifiable") for line in a["body"].splitlines() if line.startswith("- g"))
    (failing,) = wh.alerts("source_failing")
    error_lines = [ln for ln in failing["body"].splitlines() if ln.startswith("- failed")]
    assert len(error_lines) == 1 and "3 runs" in error_lines[0]      # the same error said once, with a count
    (outage,) = [p["payload"] for p in hook.processed]  # one message for the source, the claims counted
    assert outage["title"].startswith("Source Thunder Compute is down (3 runs in a row): ")
    assert not any(c in outage["message"] for c in quiet_claims) and outage["message"].count("have no entry in specs") == 1
    day(wh, caps, "2026-11-04", broken)               # a 4th night: nothing new
    assert wh.last["derived"]["raised"] == 0 and len(hook.processed) == 1
    fault("a source fails 1 night, recovers, then fails 3 nights (failed_runs_threshold 3)",
          expected="nothing sent for the single night; on the 3rd night one message for the source (the claims "
                   "it leaves unverifiable counted, not listed; its error once); nothing more on the 4th",
          observed=f"after the 1 night: {len(quiet_claims)} claims unverifiable, 0 alerts; after 3 nights: "
                   f"{len(pages)} claim_status alert(s) listing {len(listed)} claims (source named "
                   f"{pages[0]['body'].count('thunder_compute')}x), source_failing error lines {len(error_lines)}; "
                   f"4th night raised {wh.last['derived']['raised']}; POSTs {len(hook.processed)}: "
                   f"{outage['title']!r}")


# --- 4. receiver down ---------------------------------------------------------------------

def test_a_receiver_that_is_down_gets_the_alerts_once_when_it_is_back(tmp_path, caps, receivers, fault):
    hook = receivers()
    wh = warehouse(tmp_path, urls=(hook.url,))
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    hook.down()
    news = day(wh, caps, "2026-11-05", two_messages(tmp_path))
    waiting = wh.messages(news)
    assert {a["state"] for a in waiting} == {"pending"} and len(waiting) == 2
    assert all("connection refused" in a["last_error"] for a in waiting)
    assert sorted(a["attempts"] for a in waiting) == [0, 1]   # tried once; the other not hammered at a dead port
    hook.up()
    day(wh, caps, "2026-11-06", caps.thunder(1.05))
    day(wh, caps, "2026-11-07", caps.thunder(1.05))
    sent = wh.messages(news)
    assert {a["state"] for a in sent} == {"sent"} and all(a["last_error"] is None for a in sent)
    assert hook.ids() == Counter({a["message_id"]: 1 for a in sent})
    fault("alert receiver down (connection refused) during a run, back for the next",
          expected="alerts stay pending with the error, delivered once on the next run",
          observed=f"while down: {sorted(a['state'] for a in waiting)}, error "
                   f"{waiting[0]['last_error'].split(': ', 1)[-1]!r}; after: {sorted(a['state'] for a in sent)}, "
                   f"POSTs per alert {sorted(hook.ids().values())}")


# --- 5. hostile text ----------------------------------------------------------------------

def test_hostile_scraped_text_reaches_the_receiver_inert_and_bodies_are_cut_at_a_line(
        tmp_path, caps, receivers, fault):
    hook = receivers()
    wh = warehouse(tmp_path, urls=(hook.url,))
    hostile = write_exchanges(tmp_path / "thunder-hostile.warc.gz", thunder_with_label(HOSTILE))
    run = day(wh, caps, "2026-10-29", hostile)
    (alert,) = wh.alerts("new_gpu_label", run)
    (got,) = [p["payload"] for p in hook.processed]
    title, message = got["title"], got["message"]
    control = [c for c in title + message if unicodedata.category(c)[0] == "C" and c != "\n"]
    assert control == []
    assert "\n" not in title and len(title) <= 250
    for raw, escaped in (("<script>", r"\<script\>"), ("| [/red]", r"\| \[/red\]")):
        assert raw not in message and escaped in message
    assert len(message) <= BODY_MAX_CHARS + 40
    assert "<script>" in alert["body"]             # the stored body is plain text (the CLI escapes for the console)
    assert "\x1b" not in alert["body"] and "\u202e" not in alert["body"]

    # The cap: a body too long for one message ends on a whole line, saying what was left out.
    lines = [f"- claim-{n}: holds -> unverifiable because " + "word " * 12 for n in range(200)]
    capped = _cap(lines)
    kept = capped.splitlines()
    assert len(capped) <= BODY_MAX_CHARS and kept[:-1] == lines[:len(kept) - 1]
    assert re.fullmatch(r"… and \d+ more line\(s\): pricewatch alerts --json shows the alert in full\.", kept[-1])
    one_long = _cap(["word " * 2000])
    assert one_long.endswith("word …") and len(one_long) <= BODY_MAX_CHARS
    fault("scraped GPU label with <script>, |, [/red], ESC, bidi override, 1,200 characters",
          expected="title plain (no control characters, one line, <= 250 chars); body Markdown-escaped, "
                   "cut at a line boundary",
          observed=f"title {len(title)} chars, control chars {len(control)}; body has raw <script>: "
                   f"{'<script>' in message}, escaped: {chr(92) + '<script' in message}; 200-line body cut to "
                   f"{len(kept) - 1} whole lines + note")


# --- undercut by a placeholder on a tier seen for the first time ----------------------------

def test_a_placeholder_price_on_a_first_seen_tier_raises_no_undercut(tmp_path, caps, receivers, fault):
    hook = receivers()
    wh = warehouse(tmp_path, urls=(hook.url,))
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    # Lambda appears for the first time, its 8x B200 at a $0.01/GPU-hour placeholder ($0.08/h).
    placeholder = day(wh, caps, "2026-11-05", caps.thunder(1.09), lambda_cloud=caps.lambda_b200("0.01"))
    held = wh.query("SELECT offer_key, held_reason FROM offers WHERE run_id = ? AND held_reason IS NOT NULL",
                    [placeholder])
    assert any("plausible band" in h["held_reason"] for h in held)
    b200 = [a for a in wh.alerts(run_id=placeholder) if MASSED_B200 in a["subject"] + json.dumps(a["details"])]
    assert wh.alerts("undercut") == [] and b200 == []
    assert wh.claim(placeholder, "g-cite-massed-b200x8")["status"] == "holds"
    # ... and a plausible-looking but 90% lower first reading ($0.50/GPU-hour) is held like a jump
    # (by the quality gate; the alert screen holds it as suspect should the gate let it through) ...
    low = day(wh, caps, "2026-11-06", caps.thunder(1.09), lambda_cloud=caps.lambda_b200("0.50"))
    (first_low,) = wh.query("SELECT held_reason FROM offers WHERE run_id = ? AND offer_key = ?", [low, LAMBDA_B200])
    early = wh.alerts("undercut", low)
    assert {a["state"] for a in early} <= {"suspect"}
    assert not any("cheaper competitor" in p["payload"]["message"] for p in hook.processed)
    # ... until the provider's next run shows it again: then the undercut is news, sent once.
    confirmed = day(wh, caps, "2026-11-07", caps.thunder(1.09), lambda_cloud=caps.lambda_b200("0.50"))
    day(wh, caps, "2026-11-08", caps.thunder(1.09), lambda_cloud=caps.lambda_b200("0.50"))
    undercuts = wh.alerts("undercut")
    sent = [p["payload"] for p in hook.processed if "cheaper competitor" in p["payload"]["message"]]
    assert [(a["run_id"], a["state"]) for a in undercuts] == [(confirmed, "sent")] and len(sent) == 1
    assert "confirmed by the provider" in sent[0]["message"]
    fault("a competitor tier seen for the first time at a placeholder price ($0.01/GPU-h, then $0.50)",
          expected="no undercut on a held or first reading; the $0.50 undercut sent once, when the next run confirms it",
          observed=f"$0.01 held ({held[0]['held_reason'][:40]}...); $0.50 first reading held: "
                   f"{first_low['held_reason'] is not None}, undercut alerts then: {len(early)}; after the "
                   f"confirming run: {[a['state'] for a in undercuts]}, undercut POSTs {len(sent)}")

"""Alert rules over several runs (suspect readings, failing sources, disappearing offers) and
delivery to a real HTTP receiver, with retries. Runs are real replays of capture variants.

Published page 1 cites Thunder Compute's A100 80GB (a100xl_x1_prototyping) at $1.09/h
(CLAIMS.md, g-cite-thunder-a100); the shipped 2026-10-29 capture has that price.
"""

import json
import subprocess
import sys

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from pricewatch.record.config import AlertConfig
from tests.alerting import A100, A100_PRICING_KEY, Captures, Warehouse

SUBJECT = f"thunder_compute/{A100}"
SECRET = "hunter2Secret77"


@pytest.fixture(scope="module")
def caps(tmp_path_factory):
    return Captures(tmp_path_factory.mktemp("alert-captures"))


@pytest.fixture
def receiver():
    """A JSON webhook on localhost; `fail` makes it answer 500 until reset."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    server.fail = False
    server.payloads = []

    def handle(request):
        if server.fail:
            return Response("unavailable", status=500)
        server.payloads.append((request.path, json.loads(request.data)))
        return Response("ok")

    server.expect_request("/hook", method="POST").respond_with_handler(handle)
    server.expect_request("/audit", method="POST").respond_with_handler(handle)
    yield server
    server.clear()
    server.stop()


def warehouse(tmp_path, crawl, **config) -> Warehouse:
    return Warehouse(tmp_path / "w.duckdb", crawl, AlertConfig(**config))


def day(wh: Warehouse, caps: Captures, date: str, thunder) -> str:
    return wh.run(f"{date}T02:00:00Z", massed_compute=caps.massed(), thunder_compute=thunder)


def test_implausible_drop_is_held_then_sent_once_the_next_run_confirms_it(tmp_path, crawl, caps, receiver):
    wh = warehouse(tmp_path, crawl, urls=(f"json://127.0.0.1:{receiver.port}/hook",))
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    held_run = day(wh, caps, "2026-11-05", caps.thunder(0.39))   # -64.22%: the quality gate holds it
    # Held before it can become a price: no price alert, no claim moved, nothing sent.
    assert wh.alerts(run_id=held_run) == [] and receiver.payloads == []
    (held,) = wh.query("SELECT offer_key, held_reason FROM held_offers")
    assert held["offer_key"] == A100 and "held until the provider's next run confirms it" in held["held_reason"]
    assert wh.claim(held_run, "g-cite-thunder-a100")["status"] == "holds"

    day(wh, caps, "2026-11-06", caps.thunder(0.39))                # the same again: confirmed
    (price,) = wh.alerts("price_changed")
    assert price["state"] == "sent"
    # One message for the page: the price move and the claims it made false.
    (sent,) = [p for _, p in receiver.payloads]
    assert sent["title"].startswith("Which GPU is best for fine-tuning Llama 70B?: ") and sent["type"] == "warning"
    assert "$1.09/h → **$0.39/h** (-64.22%, cheaper)" in sent["message"]
    assert "g-cite-thunder-a100" in sent["message"] and "confirmed by the provider's next run" in sent["message"]
    assert "g-ratio-full-vs-qlora" in sent["message"]


def test_implausible_reading_that_the_next_run_does_not_show_is_never_sent(tmp_path, crawl, caps, receiver):
    wh = warehouse(tmp_path, crawl, urls=(f"json://127.0.0.1:{receiver.port}/hook",))
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    day(wh, caps, "2026-11-05", caps.thunder(0.39))
    day(wh, caps, "2026-11-06", caps.thunder(1.09))
    # Back at the trusted $1.09: the misreading never became a price, no claim stopped holding.
    assert wh.alerts() == [] and receiver.payloads == []


def test_a_move_below_the_gate_threshold_alerts_at_once(tmp_path, crawl, caps):
    wh = warehouse(tmp_path, crawl)
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    day(wh, caps, "2026-11-05", caps.thunder(0.89))    # -18.35%: below the 25% hold
    assert [a["state"] for a in wh.alerts("price_changed")] == ["pending"]


def test_failing_source_alerts_once_per_streak_and_never_moves_a_price(tmp_path, crawl, caps):
    wh = warehouse(tmp_path, crawl, failed_runs_threshold=3)
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    broken = caps.thunder(1.09, specs_entry=False)   # pricing lists the A100, specs do not: refused
    failing = [day(wh, caps, f"2026-10-{d}", broken) for d in (30, 31)] + \
              [day(wh, caps, f"2026-11-0{d}", broken) for d in (1, 2)]
    (alert,) = wh.alerts("source_failing")
    assert alert["run_id"] == failing[2] and alert["subject"] == "thunder_compute"
    assert alert["details"]["failed_runs"] == 3
    assert A100_PRICING_KEY in alert["body"] and "2026-10-30 02:00 UTC" in alert["body"]
    assert alert["notify_type"] == "failure"
    # A failed run stores no offers: the cited offer neither changed nor disappeared.
    assert wh.alerts("price_changed") == [] and wh.alerts("offer_disappeared") == []

    recovered = day(wh, caps, "2026-11-03", caps.thunder(1.05))
    assert [a["kind"] for a in wh.alerts("source_recovered")] == ["source_recovered"]
    # The move is measured from the last successful observation, before the failures.
    (price,) = wh.alerts("price_changed", recovered)
    d = price["details"]
    assert (d["old_price_per_hour"], d["new_price_per_hour"], d["percent"]) == (1.09, 1.05, -3.67)
    assert d["old_observed_at"].startswith("2026-10-29")


def test_cited_offer_that_disappears_alerts_once(tmp_path, crawl, caps):
    wh = warehouse(tmp_path, crawl)
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    gone = day(wh, caps, "2026-11-05", caps.thunder(None))
    day(wh, caps, "2026-11-06", caps.thunder(None))
    (alert,) = wh.alerts("offer_disappeared")
    assert alert["run_id"] == gone and alert["subject"] == SUBJECT
    assert alert["details"]["last_price_per_hour"] == 1.09
    assert "g-cite-thunder-a100" in {c["claim_id"] for c in alert["details"]["claims"]}
    assert "no longer listed" in alert["title"]


def test_failed_delivery_stays_pending_and_is_delivered_on_the_next_run(tmp_path, crawl, caps, receiver):
    hook = f"json://pricewatch:{SECRET}@127.0.0.1:{receiver.port}/hook"
    audit = f"json://127.0.0.1:{receiver.port}/audit"
    wh = warehouse(tmp_path, crawl, urls=(hook, audit))
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    receiver.fail = True
    changed = day(wh, caps, "2026-11-05", caps.thunder(1.05))
    raised = wh.alerts(run_id=changed)
    assert {a["kind"] for a in raised} == {"price_changed", "claim_status"}
    for a in raised:
        assert a["state"] == "pending" and a["attempts"] == 1
        assert "500" in a["last_error"] and SECRET not in a["last_error"]
    assert wh.last["delivered"]["failed"] == 1       # one message (the page's digest) carries both

    # The receiver is back by the next run: both targets get what they missed.
    receiver.fail = False
    day(wh, caps, "2026-11-06", caps.thunder(1.05))   # same price: nothing new, only the retry
    assert wh.last["derived"]["raised"] == 0
    for a in wh.alerts(run_id=changed):
        assert a["state"] == "sent" and a["attempts"] == 2 and a["last_error"] is None
    by_path = {}
    for path, payload in receiver.payloads:
        by_path.setdefault(path, []).append(payload)
    (price,) = by_path["/hook"]
    assert price["title"].startswith("Which GPU is best for fine-tuning Llama 70B?: ")
    assert price["type"] == "warning" and price["version"] == "1.0"
    assert "$1.09/h → **$1.05/h** (-3.67%, cheaper), seen 2026-11-05 02:00 UTC" in price["message"]   # Markdown
    (stored,) = wh.messages(changed)
    assert (f"Thunder Compute {A100}: $1.09/h -> $1.05/h (-3.67%, cheaper), seen 2026-11-05 02:00 UTC "
            "(before: seen 2026-10-29 02:00 UTC)") in stored["body_text"]
    assert len(by_path["/hook"]) == len(by_path["/audit"]) == 1

    # Delivered alerts are not sent again.
    day(wh, caps, "2026-11-07", caps.thunder(1.05))
    assert len(receiver.payloads) == 2


def test_a_target_that_accepted_is_not_sent_the_alert_again_when_another_fails(tmp_path, crawl, caps, receiver):
    down = f"json://127.0.0.1:{receiver.port}/missing"   # 500 from pytest-httpserver: no handler
    audit = f"json://127.0.0.1:{receiver.port}/audit"
    wh = warehouse(tmp_path, crawl, urls=(down, audit))
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    day(wh, caps, "2026-11-05", caps.thunder(1.05))
    day(wh, caps, "2026-11-06", caps.thunder(1.05))
    assert len(receiver.payloads) == 1   # price_changed and claim_status in one digest, once
    assert {a["attempts"] for a in wh.alerts()} == {2}
    assert {a["state"] for a in wh.alerts()} == {"pending"}


def test_cli_lists_alerts_as_json_and_only_pending_ones(tmp_path, crawl, caps):
    wh = warehouse(tmp_path, crawl)
    day(wh, caps, "2026-10-29", caps.thunder(1.09))
    day(wh, caps, "2026-11-05", caps.thunder(1.05))

    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "pricewatch.cli", "alerts", "--db", wh.path, *args],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout

    rows = json.loads(cli("--json"))
    assert {r["kind"] for r in rows} == {"price_changed", "claim_status"}
    price = next(r for r in rows if r["kind"] == "price_changed")
    assert price["details"]["percent"] == -3.67 and price["state"] == "pending"
    assert len(json.loads(cli("--json", "--pending"))) == 2
    assert "Price changed: thunder_compute" in cli()


def test_claims_verified_for_the_first_time_raise_no_alert(tmp_path, crawl, caps):
    # A fresh warehouse fills up source by source (page 2's Arrakis capture comes two days
    # after page 1's): a claim that could never be checked before and now holds is not news.
    wh = warehouse(tmp_path, crawl)
    first = wh.run("2026-10-29T02:00:00Z", thunder_compute=caps.thunder(1.09))
    assert wh.claim(first, "g-cite-massed-b200x8")["status"] == "unverifiable"
    later = day(wh, caps, "2026-10-30", caps.thunder(1.09))
    assert wh.claim(later, "g-cite-massed-b200x8")["status"] == "holds"
    assert wh.alerts() == []

"""Alerts as an editor receives them: a real JSON webhook (pytest-httpserver) gets exactly the
expected messages over a history of real replays (tests/alerting.py builds the variants).

Published page 1 (rules/published/CLAIMS.md, prices of 2026-10-29): one A100 80GB $1.09/h at
Thunder Compute (g-cite-thunder-a100, "A100 80GB 1基はThunder Computeで1時間1.09ドルでした。");
the cheapest self-service on-demand 8x B200 $43.46/h at Massed Compute (g-cite-massed-b200x8);
"about 40x" = 43.46 / 1.09 = 39.9 (g-ratio-full-vs-qlora).

  10-29  the shipped captures: the published snapshot                  -> nothing
  11-05  Thunder's A100 $1.05; Lambda's 8x B200 SXM6 $5.40/GPU-h
         (8 x 5.40 = $43.20/h, below Massed's $43.46: -0.60%);
         "about 40x" is now 43.20 / 1.05 = 41.1                        -> one digest for page 1
  11-05  the same replay again                                         -> nothing
  11-06  Thunder back at $1.09, Lambda back at $6.69/GPU-h (its real
         2026-08-22 page: $53.52/h, +23.89%, under the quality gate's
         25%)                                                          -> one digest: true again
  11-07  Thunder fails (its pricing lists the A100, its specs do not)  -> one outage message
  11-08  Thunder back                                                  -> one recovery message
  then   page 1's QLoRA rule edited (0.75 -> 0.8 bytes per parameter)
         and the 11-08 snapshot evaluated again                        -> one rule-change message
"""

from __future__ import annotations

import json
import shutil

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from pricewatch.alerts.deliver import deliver_alerts
from pricewatch.alerts.derive import derive_alerts
from pricewatch.alerts.templating import fit
from pricewatch.claims.evaluate import reevaluate_latest
from pricewatch.claims.rules import RULES_DIR, load_rules
from pricewatch.record.config import AlertConfig
from tests.alerting import A100, LAMBDA_B200, Captures, Warehouse
from warehouse import db

PAGE1 = "gpuwithcrypto-llama-70b-finetuning"
PAGE1_TITLE = "Which GPU is best for fine-tuning Llama 70B?"     # rules/<page1>/page.yaml title.en
EVIDENCE = "https://evidence.example.org/archive"


@pytest.fixture(scope="module")
def receiver():
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    server.got = []

    def handle(request):
        server.got.append({"payload": json.loads(request.data), "key": request.headers.get("Idempotency-Key")})
        return Response("ok")

    server.expect_request("/hook", method="POST").respond_with_handler(handle)
    yield server
    server.clear()
    server.stop()


@pytest.fixture(scope="module")
def history(crawl, tmp_path_factory, receiver):
    caps = Captures(tmp_path_factory.mktemp("digest-captures"))
    cfg = AlertConfig(urls=(f"json://127.0.0.1:{receiver.port}/hook",), failed_runs_threshold=1,
                      evidence_base_url=EVIDENCE, report_url="https://editors.example.org/claims-report.md")
    wh = Warehouse(tmp_path_factory.mktemp("digest") / "w.duckdb", crawl, cfg)
    got = {}

    def night(name, as_of, **warcs):
        before = len(receiver.got)
        got[name] = (wh.run(as_of, massed_compute=caps.massed(), **warcs), receiver.got[before:])

    night("10-29", "2026-10-29T02:00:00Z", thunder_compute=caps.thunder(), lambda_cloud=caps.lambda_b200())
    night("11-05", "2026-11-05T02:00:00Z", thunder_compute=caps.thunder(1.05), lambda_cloud=caps.lambda_b200("5.40"))
    night("11-05 again", "2026-11-05T02:00:00Z", thunder_compute=caps.thunder(1.05),
          lambda_cloud=caps.lambda_b200("5.40"))
    night("11-06", "2026-11-06T02:00:00Z", thunder_compute=caps.thunder(1.09), lambda_cloud=caps.lambda_b200())
    night("11-07", "2026-11-07T02:00:00Z", thunder_compute=caps.thunder(1.09, specs_entry=False),
          lambda_cloud=caps.lambda_b200())
    night("11-08", "2026-11-08T02:00:00Z", thunder_compute=caps.thunder(1.09), lambda_cloud=caps.lambda_b200())

    # A rule edited: page 1's QLoRA bytes per parameter (page.yaml memory.methods.qlora).
    rules = tmp_path_factory.mktemp("rules") / "rules"
    shutil.copytree(RULES_DIR, rules)
    page_yaml = rules / PAGE1 / "page.yaml"
    text = page_yaml.read_text(encoding="utf-8")
    assert text.count("qlora:                  {bytes_per_param: 0.75}") == 1
    page_yaml.write_text(text.replace("qlora:                  {bytes_per_param: 0.75}",
                                      "qlora:                  {bytes_per_param: 0.8}"), encoding="utf-8")
    before = len(receiver.got)
    con = db.connect(wh.path)
    try:
        changed = reevaluate_latest(con, load_rules(rules))
        derive_alerts(con, got["11-08"][0], cfg)
        deliver_alerts(con, cfg)
    finally:
        con.close()
    got["rules"] = (changed, receiver.got[before:])
    return wh, got


def fields(msg):
    return msg["payload"]["pricewatch"]


def test_the_published_snapshot_sends_nothing(history):
    _, got = history
    assert got["10-29"][1] == []


def test_a_price_change_is_one_digest_naming_the_page_sentences_why_and_evidence(history):
    _, got = history
    (msg,) = got["11-05"][1]
    p = msg["payload"]
    f = fields(msg)
    assert f["kind"] == "page_digest" and f["page"]["id"] == PAGE1 and f["page"]["title"] == PAGE1_TITLE
    assert p["title"].startswith(PAGE1_TITLE + ": ")
    assert msg["key"] == f["message_id"] == p["alert_id"]
    claims = {c["claim_id"]: c for c in f["claims"]}
    a100 = claims["g-cite-thunder-a100"]
    assert (a100["published"], a100["was"], a100["now"]) == ("$1.09", "$1.09", "$1.05")
    # a price the page quotes moved: the sentence is updated (regenerated), not "false"
    assert a100["direction"] == "updated" and a100["what"] == "updated: $1.09 → $1.05 (cheaper by 3.7%)"
    assert a100["says_ja"] == "A100 80GB 1基はThunder Computeで1時間1.09ドルでした。"
    assert a100["sentence"] == "A100 80GB 1基はThunder Computeで1時間1.05ドルでした。"   # the page's sentence, regenerated
    assert claims["g-cite-massed-b200x8"]["now"] == "$43.20"       # Lambda's 8 x $5.40
    ratio = claims["g-ratio-full-vs-qlora"]                         # 43.20 / 1.05 = 41.1
    assert (ratio["published"], ratio["now"], ratio["direction"]) == ("40×", "41×", "updated")
    assert ratio["what"].startswith("updated: 40× → 41× (up ")
    moves = {m["provider"]: m for m in f["moves"]}
    thunder = moves["thunder_compute"]
    assert (thunder["offer_key"], thunder["old"], thunder["new"], thunder["percent"]) == (A100, 1.09, 1.05, -3.67)
    assert thunder["direction"] == "cheaper" and thunder["seen_at"].startswith("2026-11-05T02:00")
    assert thunder["evidence_url"].startswith(EVIDENCE + "/") and "?record=" in thunder["evidence_url"]
    assert "/tmp/" not in thunder["evidence_url"]
    lam = moves["lambda_cloud"]
    assert (lam["kind"], lam["offer_key"], lam["old"], lam["new"], lam["percent"]) == \
        ("undercut", LAMBDA_B200, 43.46, 43.2, -0.6)
    body = p["message"]            # Markdown (a webhook's program may render it)
    assert "$1.09/h → **$1.05/h** (-3.67%, cheaper), seen 2026-11-05 02:00 UTC" in body
    # each sentence says in words what happened to it; the title counts sentences
    assert "**updated: $1.09 → $1.05 \\(cheaper by 3.7%\\)** `g-cite-thunder-a100`" in body   # Markdown-escaped
    n = len(f["claims"])
    assert p["title"] == f"{PAGE1_TITLE}: {n} sentence(s): {f['counts_line']}" and "claim now false" not in body
    assert f["counts_line"].startswith(f"{f['updated']} updated") and f["updated"] >= 3
    assert f"`pricewatch evidence '{A100}' --provider thunder_compute --run {got['11-05'][0]}`" in body
    # The page's URL: a placeholder in rules/<page>/page.yaml until the editor sets it, said so.
    assert f["page"]["url"].startswith("https://gpuwithcrypto.com/") and f["page"]["url_is_placeholder"]
    assert "a placeholder: set url in `rules/gpuwithcrypto-llama-70b-finetuning/page.yaml`" in body
    assert p["type"] == "warning"                                  # the published page reads wrong


def test_a_same_day_rerun_sends_nothing(history):
    _, got = history
    assert got["11-05 again"][0] == got["11-05"][0] and got["11-05 again"][1] == []


def test_a_revert_is_one_digest_saying_true_again_and_is_no_warning(history):
    _, got = history
    (msg,) = got["11-06"][1]
    f = fields(msg)
    claims = {c["claim_id"]: c for c in f["claims"]}
    assert claims["g-cite-thunder-a100"]["direction"] == "true again"
    assert claims["g-cite-thunder-a100"]["what"] == "true again: reads the published $1.09 again (was $1.05)"
    assert (claims["g-cite-thunder-a100"]["was"], claims["g-cite-thunder-a100"]["now"]) == ("$1.05", "$1.09")
    assert {c["direction"] for c in f["claims"]} == {"true again"}
    assert {c["claim_id"] for c in f["claims"]} >= {"g-cite-thunder-a100", "g-cite-massed-b200x8",
                                                   "g-ratio-full-vs-qlora"}
    moves = {m["provider"]: m for m in f["moves"]}
    assert (moves["thunder_compute"]["percent"], moves["thunder_compute"]["direction"]) == (3.81, "dearer")
    assert msg["payload"]["type"] == "success"            # prices moved back: no warning


def test_an_outage_night_is_one_message_per_source_with_a_count(history):
    _, got = history
    (msg,) = got["11-07"][1]
    f = fields(msg)
    assert f["kind"] == "source_outage" and f["provider"] == "thunder_compute"
    assert f["unverifiable_total"] > 1
    body = msg["payload"]["message"]
    assert "g-cite-thunder-a100" not in body                        # counted, not listed
    assert body.count("pricewatch/") == 0 and len(body) < 2000
    assert "https://editors.example.org/claims-report.md" in body


def test_the_recovery_is_said_once(history):
    _, got = history
    (msg,) = got["11-08"][1]
    f = fields(msg)
    assert f["kind"] == "source_recovered" and f["provider"] == "thunder_compute"
    assert "g-cite-thunder-a100" in {c["claim_id"] for c in f["true_again"]}


def test_a_rule_change_is_told_as_such_not_as_a_price_event(history):
    _, got = history
    changed, msgs = got["rules"]
    assert changed["changed"]
    (msg,) = msgs
    f = fields(msg)
    assert f["kind"] == "rule_change" and f["page"]["id"] == PAGE1
    assert "the rules changed" in msg["payload"]["title"]
    assert "no price moved" in msg["payload"]["message"]


def test_a_long_body_is_shortened_by_whole_lines():
    body = "\n".join(f"- line {i} with some words" for i in range(200))
    short = fit(body, 2000, ": pricewatch alerts show x")
    assert len(short) <= 2000
    kept = short.split("\n")
    assert kept[:-1] == body.split("\n")[:len(kept) - 1]
    assert kept[-1] == f"... and {200 - len(kept) + 1} more line(s): pricewatch alerts show x"


def test_muted_events_are_recorded_muted_and_not_told(crawl, tmp_path, receiver):
    from datetime import datetime, timezone

    from pricewatch.alerts.mutes import add_mute
    caps = Captures(tmp_path / "caps")
    cfg = AlertConfig(urls=(f"json://127.0.0.1:{receiver.port}/hook",))
    wh = Warehouse(tmp_path / "w.duckdb", crawl, cfg)
    wh.run("2026-10-29T02:00:00Z", massed_compute=caps.massed(), thunder_compute=caps.thunder())
    con = db.connect(wh.path)
    try:
        end = datetime(2027, 1, 1, tzinfo=timezone.utc)
        add_mute(con, "gpu", "A100 80GB", end, "Thunder reprices daily")   # its offer's canonical model
        add_mute(con, "claim", "g-cite-thunder-a100", end)
    finally:
        con.close()
    before = len(receiver.got)
    run = wh.run("2026-11-05T02:00:00Z", massed_compute=caps.massed(), thunder_compute=caps.thunder(1.05))
    (price,) = wh.alerts("price_changed", run)
    assert price["state"] == "muted" and price["details"]["muted_by"] == ["gpu:A100 80GB"]
    sent = receiver.got[before:]
    told = {c["claim_id"] for m in sent for c in fields(m).get("claims", [])}
    assert "g-cite-thunder-a100" not in told and all(not fields(m).get("moves") for m in sent)
    assert all(fields(m)["muted_events"] >= 1 for m in sent if fields(m)["kind"] == "page_digest")


def test_targets_get_their_format_and_templates_escape_and_can_be_overridden(tmp_path):
    from pricewatch.alerts import notify
    from pricewatch.alerts.templating import render
    assert notify.style("slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ").body_format == "markdown"
    assert notify.style("discord://4174216298/JHMHI8qBe7bk2ZwO5U711o3dV_js") == notify.Style("markdown", 2000, False)
    assert notify.style("tgram://123456789:abcdefg_hijklmnop/12315544/").body_format == "markdown"
    assert notify.style("mailtos://user:pass@example.org?to=editor@example.org").body_format == "html"
    assert notify.style("json://127.0.0.1:9/hook").fields
    hostile = "<script>alert(1)</script> | [x](javascript:alert(1))"
    f = {"provider": "p", "provider_name": hostile, "label": hostile, "offers": 1, "message_id": "m1",
         "observed_at": None}
    out = render("new_gpu_label", f, AlertConfig())
    assert "<script>" not in out["html"] and "&lt;script&gt;" in out["html"]
    assert "<script>" not in out["md"] and "\\<script\\>" in out["md"] and "\\[x\\]" in out["md"]
    own = tmp_path / "templates"
    own.mkdir()
    (own / "new_gpu_label.title.txt").write_text("NEW LABEL {{ label }}")
    title = render("new_gpu_label", f, AlertConfig(templates=str(own)))["title"]
    assert title == "NEW LABEL " + hostile          # a title is plain text: one line, no control characters


def test_the_editor_lists_acks_and_mutes_from_the_cli(history, tmp_path, receiver):
    from typer.testing import CliRunner

    from pricewatch.cli.main import app
    wh, got = history
    copy = tmp_path / "w.duckdb"
    shutil.copy(wh.path, copy)

    def cli(*args):
        result = CliRunner().invoke(app, [*args, "--db", str(copy)], env={"COLUMNS": "300"})
        return result.exit_code, result.stdout + result.stderr

    (digest,) = got["11-05"][1]
    mid = fields(digest)["message_id"]
    code, out = cli("alerts", "--messages")
    assert code == 0 and mid in out and "page_digest" in out
    code, out = cli("alerts", "show", mid)
    assert code == 0 and out.startswith(digest["payload"]["title"]) and "Prices that moved:" in out
    # An acknowledged message still waiting for delivery is not sent.
    con = db.connect(str(copy))
    con.execute("UPDATE alert_messages SET state = 'pending' WHERE message_id = ?", [mid])
    con.close()
    assert cli("alerts", "ack", mid, "--note", "updating the page")[0] == 0
    before = len(receiver.got)
    con = db.connect(str(copy))
    try:
        result = deliver_alerts(con, AlertConfig(urls=(f"json://127.0.0.1:{receiver.port}/hook",)))
        (state,) = con.execute("SELECT state FROM alert_messages WHERE message_id = ?", [mid]).fetchone()
    finally:
        con.close()
    assert (result["sent"], state, len(receiver.got) - before) == (0, "acked", 0)
    code, out = cli("alerts", "mute", "--provider", "thunder_compute", "--until", "2030-01-01", "--reason", "flapping")
    assert code == 0 and "muted provider:thunder_compute until 2030-01-01" in out
    code, out = cli("alerts")
    assert code == 0 and "provider:thunder_compute" in out and "flapping" in out
    assert cli("alerts", "mute", "--gpu", "H100", "--until", "2020-01-01")[1].strip() == \
        "error: --until 2020-01-01 is not in the future"
    assert cli("alerts", "ack", "nope")[0] == 1
    assert cli("alerts", "unmute", "provider:thunder_compute")[0] == 0

"""The held-out kind of night of issue 21, as an editor's receiver gets it (a real JSON webhook,
pytest-httpserver), over real replays of variants of the shipped captures:

  10-29  the shipped captures: the published snapshot                            -> nothing
  11-05  our own A100 80GB $0.92 -> $1.09 per GPU-hour (every block of it), our L40S gone from
         our price page, Lambda's 8x B200 SXM6 at $5.40 per GPU (8 x 5.40 = $43.20/h, below the
         cited Massed Compute $43.46)                                            -> one digest, page 1
  11-06  Thunder Compute fails (its pricing lists the A100, its specs do not)    -> its outage
  11-07  Thunder back with the cited A100 at $1.19: a price that moved while the claims
         citing it were unverifiable                                             -> its line all the same

Expected texts by hand from rules/published/CLAIMS.md and the variants: 1.09 / 0.92 = +18.5 %;
4 x 1.09 = $4.36 (A100 80GB x4); Thunder's last trusted reading $1.09 (10-29) -> $1.19 (+9.2 %).
"""

from __future__ import annotations

import json

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from pricewatch.evidence.archive import write_exchanges
from pricewatch.record.config import AlertConfig
from tests.alerting import A100, Captures, Warehouse
from tests.conftest import shipped, shipped_exchanges

PAGE1 = "gpuwithcrypto-llama-70b-finetuning"
EVIDENCE = "https://evidence.example.org/archive"


def own_page(root, a100_blocks: dict[str, str], drop_l40s: bool):
    """GPUwithCrypto's price page with the A100 80GB's cells replaced and the L40S section cut."""
    ex = shipped_exchanges("gpuwithcrypto")
    text = ex[0]["body"].decode()
    for old, new in a100_blocks.items():
        start = text.index("## A100 80GB")
        end = text.index("## H100")
        assert text[start:end].count(old) >= 1, old
        text = text[:start] + text[start:end].replace(old, new) + text[end:]
    if drop_l40s:
        start, end = text.index("## L40S"), text.index("## A100 80GB")
        text = text[:start] + text[end:]
    ex[0]["body"] = text.encode()
    return write_exchanges(root / "gpuwithcrypto-held-out.warc.gz", ex)


@pytest.fixture(scope="module")
def nights(crawl, tmp_path_factory):
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    got: list = []
    server.expect_request("/hook", method="POST").respond_with_handler(
        lambda r: (got.append(json.loads(r.data)), Response("ok"))[1])
    root = tmp_path_factory.mktemp("held-out")
    caps = Captures(root)
    cfg = AlertConfig(urls=(f"json://127.0.0.1:{server.port}/hook",), failed_runs_threshold=1,
                      evidence_base_url=EVIDENCE)
    wh = Warehouse(root / "w.duckdb", crawl, cfg)
    moved = own_page(root, {"$9.20": "$10.90", "$22.08": "$26.16", "$154.56": "$183.12", "$662.40": "$784.80",
                            "$0.92": "$1.09"}, drop_l40s=True)
    out = {}

    def night(name, as_of, **warcs):
        before = len(got)
        out[name] = (wh.run(as_of, massed_compute=caps.massed(), **warcs), got[before:])

    night("10-29", "2026-10-29T02:00:00Z", thunder_compute=caps.thunder(), lambda_cloud=caps.lambda_b200(),
          gpuwithcrypto=shipped("gpuwithcrypto"))
    night("11-05", "2026-11-05T02:00:00Z", thunder_compute=caps.thunder(), lambda_cloud=caps.lambda_b200("5.40"),
          gpuwithcrypto=moved)
    night("11-06", "2026-11-06T02:00:00Z", thunder_compute=caps.thunder(1.09, specs_entry=False),
          lambda_cloud=caps.lambda_b200("5.40"), gpuwithcrypto=moved)
    night("11-07", "2026-11-07T02:00:00Z", thunder_compute=caps.thunder(1.19),
          lambda_cloud=caps.lambda_b200("5.40"), gpuwithcrypto=moved)
    yield out
    server.clear()
    server.stop()


def digest(msgs, page=PAGE1):
    found = [m for m in msgs if m["pricewatch"]["kind"] == "page_digest" and m["pricewatch"]["page"]["id"] == page]
    assert len(found) == 1, [m["title"] for m in msgs]
    return found[0]


def test_the_published_snapshot_sends_nothing(nights):
    assert nights["10-29"][1] == []


def test_the_held_out_night_says_in_words_what_happened_to_each_sentence(nights):
    run_id, msgs = nights["11-05"]
    msg = digest(msgs)
    f, body = msg["pricewatch"], msg["message"]
    claims = {c["claim_id"]: c for c in f["claims"]}
    own = claims["g-own-a100"]
    assert (own["published"], own["was"], own["now"]) == ("$0.92", "$0.92", "$1.09")
    assert own["what"] == "updated: $0.92 → $1.09 (dearer by 18.5%)"
    assert claims["g-cfg-prices.a100-80gb-x4"]["what"] == "updated: $3.68 → $4.36 (dearer by 18.5%)"
    # The L40S is gone from our price page: its sentence cannot be checked, and says why.
    l40s = claims["g-cfg-prices.l40s-x1"]
    assert l40s["direction"] == "no longer checked" and l40s["what"].startswith("no longer checked: ")
    assert l40s["what"] == ("no longer checked: gpuwithcrypto offer '1x l40s 48GB on-demand': gone since "
                            "2026-11-05 02:00 UTC; the page keeps $0.82")
    # Nothing reads "was , now": every item names what it was.
    assert all(c["was"] for c in f["claims"])
    # Every moved price has its line: provider, old and new, when seen, the evidence command.
    moves = {(m["provider"], m["kind"]): m for m in f["moves"]}
    mine = moves[("gpuwithcrypto", "price_changed")]
    assert (mine["old"], mine["new"], mine["direction"]) == (0.92, 1.09, "dearer")
    assert mine["seen_at"].startswith("2026-11-05T02:00")
    assert f"`pricewatch evidence '{mine['offer_key']}' --provider gpuwithcrypto --run {run_id}`" in body
    lam = moves[("lambda_cloud", "undercut")]
    assert (lam["old"], lam["new"]) == (43.46, 43.2)
    # The title counts sentences, as the items do.
    assert msg["title"].endswith(f"{len(f['claims'])} sentence(s): {f['counts_line']}")


def test_a_price_that_moved_while_its_claims_were_unverifiable_still_has_its_line(nights):
    assert [m["pricewatch"]["kind"] for m in nights["11-06"][1]] == ["source_outage"]
    run_id, msgs = nights["11-07"]
    msg = digest(msgs)
    f, body = msg["pricewatch"], msg["message"]
    cite = {c["claim_id"]: c for c in f["claims"]}["g-cite-thunder-a100"]
    # was: the last value an editor was told (10-29's $1.09), never blank
    assert (cite["published"], cite["was"], cite["now"]) == ("$1.09", "$1.09", "$1.19")
    assert cite["what"] == "updated: $1.09 → $1.19 (dearer by 9.2%)"
    thunder = {m["provider"]: m for m in f["moves"]}["thunder_compute"]
    assert (thunder["offer_key"], thunder["old"], thunder["new"], thunder["direction"]) == (A100, 1.09, 1.19, "dearer")
    assert thunder["seen_at"].startswith("2026-11-07T02:00")
    assert f"`pricewatch evidence '{A100}' --provider thunder_compute --run {run_id}`" in body

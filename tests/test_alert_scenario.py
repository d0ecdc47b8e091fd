"""Second scenario: a later replay (2026-11-05) in which Thunder Compute's A100 80GB and the
cheapest 8x B200 change, then a day (2026-11-06) on which the A100 price moves back.

Published page 1 (CLAIMS.md, prices of 2026-10-29): one A100 80GB $1.09/h at Thunder Compute
(a100xl_x1_prototyping); cheapest self-service on-demand 8x B200 $43.46/h at Massed Compute;
"about 40x" = 43.46 / 1.09 = 39.9, holding while the ratio rounds to 40.
On 2026-11-05 Thunder charges $1.05 and Lambda's 8x B200 SXM6 drops from $6.69 to $5.20 per
GPU-hour ($53.52 -> $41.60 per instance-hour, a variant of Lambda's real 2026-08-22 page), below
Massed Compute's unchanged $43.46. On 2026-11-06 Thunder is back at $1.09.
"""

import pytest

from pricewatch.record.config import AlertConfig
from tests.alerting import A100, LAMBDA_B200, MASSED_B200, Captures, Warehouse

PAGE1 = "gpuwithcrypto-llama-70b-finetuning"


@pytest.fixture(scope="module")
def history(crawl, tmp_path_factory):
    caps = Captures(tmp_path_factory.mktemp("alert-scenario-captures"))
    wh = Warehouse(tmp_path_factory.mktemp("alert-scenario") / "w.duckdb", crawl, AlertConfig())
    runs = {"10-29": wh.run("2026-10-29T02:00:00Z", massed_compute=caps.massed(), thunder_compute=caps.thunder(),
                            lambda_cloud=caps.lambda_b200())}
    nov5 = dict(massed_compute=caps.massed(), thunder_compute=caps.thunder(1.05), lambda_cloud=caps.lambda_b200("5.20"))
    runs["11-05"] = wh.run("2026-11-05T02:00:00Z", **nov5)
    after_first = {a["alert_id"] for a in wh.alerts()}
    runs["11-05 again"] = wh.run("2026-11-05T02:00:00Z", **nov5)
    replay = {**wh.last, "alerts": {a["alert_id"] for a in wh.alerts()}, "before": after_first}
    runs["11-06"] = wh.run("2026-11-06T02:00:00Z", massed_compute=caps.massed(), thunder_compute=caps.thunder(1.09),
                           lambda_cloud=caps.lambda_b200("5.20"))
    return wh, runs, replay


def test_the_published_snapshot_raises_no_price_or_claim_alert(history):
    wh, runs, _ = history
    assert wh.claim(runs["10-29"], "g-ratio-full-vs-qlora")["status"] == "holds"
    assert [a["kind"] for a in wh.alerts(run_id=runs["10-29"])] == []


def test_cited_a100_price_change_names_old_new_percent_and_every_citing_claim(history):
    wh, runs, _ = history
    (alert,) = wh.alerts("price_changed", runs["11-05"])
    d = alert["details"]
    assert (d["provider"], d["offer_key"]) == ("thunder_compute", A100)
    assert (d["old_price_per_hour"], d["new_price_per_hour"]) == (1.09, 1.05)
    assert d["percent"] == -3.67  # (1.05 - 1.09) / 1.09
    citing = {c["claim_id"] for c in d["claims"]}
    assert {"g-cite-thunder-a100", "g-ratio-full-vs-qlora"} <= citing
    assert alert["state"] == "pending"  # no alert URL configured: kept for delivery
    assert "$1.09/h -> $1.05/h (-3.67%)" in alert["title"]
    for claim in ("g-cite-thunder-a100", "g-ratio-full-vs-qlora"):
        assert claim in alert["body"]


def test_competitor_undercutting_the_cheapest_8x_b200_claim(history):
    wh, runs, _ = history
    (alert,) = wh.alerts("undercut", runs["11-05"])
    d = alert["details"]
    assert (d["cited_provider"], d["cited_offer_key"], d["cited_price_per_hour"]) == ("massed_compute", MASSED_B200, 43.46)
    assert (d["provider"], d["offer_key"], d["price_per_hour"]) == ("lambda_cloud", LAMBDA_B200, 41.60)
    assert d["percent"] == -4.28  # (41.60 - 43.46) / 43.46
    assert {"g-cite-massed-b200x8", "g-cite-massed-b200x8.per-gpu", "g-ratio-full-vs-qlora"} <= \
        {c["claim_id"] for c in d["claims"]}
    # Lambda was not cited before: its drop is told as the undercut, not as a second price alert.
    assert [a["subject"] for a in wh.alerts("price_changed", runs["11-05"])] == [f"thunder_compute/{A100}"]


def test_ratio_claim_is_recomputed_from_the_new_prices(history):
    wh, runs, _ = history
    nov5 = wh.claim(runs["11-05"], "g-ratio-full-vs-qlora")
    assert float(nov5["current_value"]) == pytest.approx(41.60 / 1.05, abs=1e-4)   # 39.62: still "about 40x"
    assert nov5["status"] == "holds"
    nov6 = wh.claim(runs["11-06"], "g-ratio-full-vs-qlora")
    assert float(nov6["current_value"]) == pytest.approx(41.60 / 1.09, abs=1e-4)   # 38.17 rounds to 38
    assert nov6["status"] == "drifted"
    by_status = {a["details"]["status"]: a for a in wh.alerts("claim_status", runs["11-06"])}
    assert set(by_status) == {"drifted", "holds"}
    drifted = {c["claim_id"]: c for c in by_status["drifted"]["details"]["claims"]}
    assert set(drifted) == {"g-ratio-full-vs-qlora"}
    assert drifted["g-ratio-full-vs-qlora"]["previous_status"] == "holds"
    # ... while the A100 citation, back at $1.09, holds again.
    # (the claims of each source's date, rules/.../sources, may come back with it)
    assert {c["claim_id"] for c in by_status["holds"]["details"]["claims"]} - {"g-sources.thunder-pricing",
                                                                               "g-dates.survey"} == {"g-cite-thunder-a100"}


def test_the_cited_claims_that_drift_are_listed_in_one_page_alert(history):
    wh, runs, _ = history
    (alert,) = wh.alerts("claim_status", runs["11-05"])
    assert alert["details"]["page"] == PAGE1 and alert["details"]["status"] == "drifted"
    changed = {c["claim_id"]: c for c in alert["details"]["claims"]}
    # The ratio still rounds to 40: it is not among them.
    # ... nor are the claims of each source's date ("prices as of"), which now name the new readings.
    assert set(changed) - {"g-dates.survey", "g-sources.thunder-pricing", "g-sources.massed-pricing"} == \
        {"g-cite-thunder-a100", "g-cite-massed-b200x8", "g-cite-massed-b200x8.per-gpu"}
    assert float(changed["g-cite-thunder-a100"]["current_value"]) == 1.05
    assert float(changed["g-cite-massed-b200x8"]["current_value"]) == 41.60
    assert float(changed["g-cite-massed-b200x8.per-gpu"]["current_value"]) == pytest.approx(5.20)


def test_replaying_the_same_day_again_raises_nothing(history):
    _, runs, replay = history
    assert runs["11-05 again"] == runs["11-05"]
    assert replay["loaded"] is False
    assert replay["derived"] == {"raised": 0, "suspect": 0, "confirmed": 0, "suppressed": 0, "muted": 0, "messages": 0}
    assert replay["alerts"] == replay["before"]


def test_a_price_that_moves_back_alerts_again(history):
    wh, runs, _ = history
    (back,) = wh.alerts("price_changed", runs["11-06"])
    d = back["details"]
    assert (d["old_price_per_hour"], d["new_price_per_hour"], d["percent"]) == (1.05, 1.09, 3.81)
    assert len(wh.alerts("price_changed", subject=f"thunder_compute/{A100}")) == 2
    # Lambda is still the cheapest 8x B200 on 11-06: the same undercut is not told twice.
    assert wh.alerts("undercut", runs["11-06"]) == []

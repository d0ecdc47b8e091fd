"""The nightly flow evaluates the claims right after loading, and says how many hold; running
the same replay again loads nothing and evaluates nothing. (Real Prefect: the session's server.)"""

from pricewatch.claims.rules import load_rules
from tests.conftest import CAPTURES


def test_flow_evaluates_claims_after_load_and_a_rerun_is_a_no_op(tmp_path, on_prefect):
    from flows.nightly import nightly

    db_path = str(tmp_path / "w.duckdb")
    replay = str(CAPTURES / "2026-10-31")  # Arrakis only: page 2 can be checked, page 1's prices cannot
    first = nightly(db_path=db_path, replay=replay, write_report=False)
    claims = load_rules().claims
    assert first["loaded"] is True
    counts = first["claims"]["counts"]
    assert sum(counts.values()) == len(claims) and counts["drifted"] == 0
    page2 = [c for c in claims.values() if c.page == "arrakis-gpu-memory"]
    unverifiable = {i["claim_id"]: i["detail"] for i in first["claims"]["unverifiable"]}
    assert not any(c.id in unverifiable for c in page2)
    assert "no successful gpuwithcrypto run" in unverifiable["g-own-a100"]
    assert counts["holds"] >= len(page2)

    again = nightly(db_path=db_path, replay=replay, write_report=False)
    assert again["run_id"] == first["run_id"] and again["loaded"] is False
    assert again["claims"]["evaluated"] == 0 and again["claims"]["counts"] == counts

"""Time, history and the quality gate on a real DuckDB file, with runs built in-process from
parser results (the same pipelines, judge, build and load steps the nightly flow uses).

The prices here are invented for each scenario (they test the warehouse's rules, not a page)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from pricewatch.alerts.derive import derive_alerts
from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.collect import judge, store
from pricewatch.record.config import AlertConfig
from spiders.base import Parsed
from tests.conftest import migrated_warehouse, shipped_exchanges
from tests.inprocess import run_parsed
from warehouse import db, load, migrate

T0 = datetime(2026, 11, 1, 2, 0, tzinfo=timezone.utc)
KEY_H100 = "1x H100 SXM 80GB on-demand"


def parsed(*offers: tuple) -> Parsed:
    """(label, price per GPU-hour[, billing]) rows of a one-GPU, per-GPU-hour page."""
    p = Parsed()
    for label, price, *billing in offers:
        p.offer(gpu_label=label, gpu_count=1, vram_gb=80 if "H100" in label else None,
                billing=billing[0] if billing else "on-demand", price_raw=price, price_unit="gpu_hour")
    return p


class Warehouse:
    def __init__(self, path):
        self.path = str(path)

    def run(self, day: int, known=("acme", "other"), **pages: Parsed) -> dict:
        at = T0 + timedelta(days=day)
        con = db.connect(self.path)
        try:
            migrate.migrate(con)
            history = load.recent_item_counts(con)
            outcomes = [judge.judge_crawl(run_parsed(p, page, captured_at=at), history.get(p, []))
                        for p, page in sorted(pages.items())]
            run, pr, offers, facts = judge.build_run(outcomes, "replay", datetime.now(timezone.utc), None, None,
                                                       known_providers=list(known))
            store.load_run(con, run, pr, offers, facts)
            derive_alerts(con, run["run_id"], AlertConfig())
        finally:
            con.close()
        return run

    def q(self, sql: str, params=()):
        con = db.connect(self.path, read_only=True)
        try:
            return con.execute(sql, list(params)).fetchall()
        finally:
            con.close()


@pytest.fixture
def wh(tmp_path):
    return Warehouse(migrated_warehouse(tmp_path / "w.duckdb"))


def test_an_absence_ends_the_spell_and_the_return_is_a_reappearance_not_a_change(wh):
    wh.run(0, acme=parsed(("H100 SXM", "$2.00"), ("L40S", "$0.90"), ("H200 SXM", "$3.00")))
    wh.run(1, acme=parsed(("L40S", "$0.90"), ("H200 SXM", "$3.00")))                     # the H100 vanished for a run
    wh.run(2, acme=parsed(("H100 SXM", "$2.00"), ("L40S", "$0.90"), ("H200 SXM", "$3.00")))  # back, same price
    spells = wh.q("""SELECT started_by, price_per_hour, valid_from, valid_to FROM offer_price_history
                     WHERE offer_key = ? ORDER BY valid_from""", [KEY_H100])
    assert [(s[0], float(s[1])) for s in spells] == [("first seen", 2.0), ("reappeared", 2.0)]
    assert spells[0][2] == T0 and spells[0][3] == T0 + timedelta(days=1)   # ended by the absence
    assert spells[1][2] == T0 + timedelta(days=2) and spells[1][3] is None
    events = wh.q("SELECT event, old_price_per_hour, new_price_per_hour FROM price_changes WHERE offer_key = ?",
                  [KEY_H100])
    assert [(e, float(o), float(n)) for e, o, n in events] == [("reappeared", 2.0, 2.0)]
    # The L40S was there every time: one spell, no event.
    assert wh.q("SELECT count(*) FROM offer_price_history WHERE offer_key LIKE '1x L40S%'") == [(1,)]


def test_a_failed_provider_run_is_not_an_absence(wh):
    wh.run(0, acme=parsed(("H100 SXM", "$2.00")))
    broken = Parsed()
    broken.error("https://example.test/pricing: no pricing table")
    wh.run(1, acme=broken)
    wh.run(2, acme=parsed(("H100 SXM", "$2.00")))
    assert wh.q("SELECT started_by, valid_to FROM offer_price_history WHERE offer_key = ?", [KEY_H100]) == [
        ("first seen", None)]


def test_every_known_provider_has_a_status_in_every_run(wh):
    run = wh.run(0, known=("acme", "other", "third"), acme=parsed(("H100 SXM", "$2.00")))
    assert wh.q("SELECT provider, status FROM provider_runs WHERE run_id = ? ORDER BY 1", [run["run_id"]]) == [
        ("acme", "ok"), ("other", "not attempted"), ("third", "not attempted")]
    # Not attempted is not a failure: no "failing" alert however many runs skip it.
    for day in (1, 2, 3, 4):
        wh.run(day, known=("acme", "other", "third"), acme=parsed(("H100 SXM", "$2.00")))
    assert wh.q("SELECT count(*) FROM alerts WHERE kind = 'source_failing'") == [(0,)]


def test_an_unknown_label_is_stored_and_alerted_once_and_the_run_stays_ok(wh):
    page = parsed(("H100 SXM", "$2.00"), ("Zephyr Z9 Ultra", "$1.00"), ("Zephyr Z7", "$0.50"))
    run = wh.run(0, acme=page)
    assert wh.q("SELECT status FROM provider_runs WHERE run_id = ? AND provider = 'acme'", [run["run_id"]]) == [("ok",)]
    assert wh.q("SELECT gpu_label, gpu_model FROM latest_offers ORDER BY 1") == [
        ("H100 SXM", "H100"), ("Zephyr Z7", None), ("Zephyr Z9 Ultra", None)]
    wh.run(1, acme=page)
    titles = [t for (t,) in wh.q("SELECT title FROM alerts WHERE kind = 'new_gpu_label' ORDER BY 1")]
    assert titles == ["New GPU label at acme: Zephyr Z7", "New GPU label at acme: Zephyr Z9 Ultra"]


def test_a_price_outside_the_plausible_band_is_held_and_the_last_trusted_one_stays(wh):
    wh.run(0, acme=parsed(("H100 SXM", "$2.00")))
    wh.run(1, acme=parsed(("H100 SXM", "1000000000")))
    (held,) = wh.q("SELECT held_reason FROM offers WHERE price_per_hour > 1000")
    assert "outside the plausible band" in held[0]
    assert wh.q("SELECT price_per_hour, held_reading_reason IS NOT NULL FROM latest_offers") == [(2, True)]
    # A new offer whose first price is a placeholder is not an offer anyone can rent at that price.
    wh.run(2, acme=parsed(("H100 SXM", "$2.00"), ("L40S", "0.001")))
    assert wh.q("SELECT count(*) FROM latest_offers WHERE gpu_label = 'L40S'") == [(0,)]


def test_a_big_move_is_held_until_the_next_run_confirms_it(wh):
    wh.run(0, acme=parsed(("H100 SXM", "$2.00")))
    wh.run(1, acme=parsed(("H100 SXM", "$0.20")))    # -90 %
    assert wh.q("SELECT price_per_hour::DOUBLE FROM latest_offers") == [(2.0,)]
    assert "held until the provider's next run" in wh.q("SELECT held_reason FROM held_offers")[0][0]
    wh.run(2, acme=parsed(("H100 SXM", "$0.20")))    # the same again: confirmed
    assert wh.q("SELECT price_per_hour::DOUBLE, screen_note FROM latest_offers") == [
        (0.2, "moved -90.0%, confirmed by the provider's next run")]
    assert wh.q("SELECT event, old_price_per_hour::DOUBLE, new_price_per_hour::DOUBLE FROM price_changes") == [
        ("changed", 2.0, 0.2)]


def test_a_big_move_that_the_next_run_does_not_repeat_never_becomes_the_price(wh):
    wh.run(0, acme=parsed(("H100 SXM", "$2.00")))
    wh.run(1, acme=parsed(("H100 SXM", "$3.00")))    # +50 %, held
    wh.run(2, acme=parsed(("H100 SXM", "$2.00")))    # back: the move was a misreading
    assert wh.q("SELECT count(*) FROM price_changes") == [(0,)]
    assert wh.q("SELECT price_per_hour::DOUBLE FROM latest_offers") == [(2.0,)]


def test_a_big_move_shared_by_the_market_is_not_held(wh):
    wh.run(0, acme=parsed(("H100 SXM", "$2.00")), other=parsed(("H100 SXM", "$2.10")))
    wh.run(1, acme=parsed(("H100 SXM", "$1.40")), other=parsed(("H100 SXM", "$1.80")))  # -30 % and -14 %
    (note,) = wh.q("SELECT screen_note FROM latest_offers WHERE provider = 'acme'")[0]
    assert note == "moved -30.0%; H100 moved the same way at other"
    assert wh.q("SELECT count(*) FROM held_offers") == [(0,)]


def test_spot_above_on_demand_means_the_parse_is_wrong(wh):
    page = parsed(("H100 SXM", "$2.00", "on-demand"), ("H100 SXM", "$2.50", "spot"))
    outcome = judge.judge_crawl(run_parsed("acme", page))
    assert outcome.status == "suspect"
    assert "spot price(s) above the on-demand price" in outcome.error


def test_an_instance_price_that_does_not_divide_into_the_printed_per_gpu_price_is_suspect():
    p = Parsed()
    p.offer(gpu_label="B200 SXM6", gpu_count=8, billing="on-demand", price_raw="$43.46",
            price_unit="instance_hour", stated_per_gpu="$5.4325")
    assert judge.judge_crawl(run_parsed("acme", p)).status == "ok"
    p.offers[0]["stated_per_gpu"] = "$6.43"
    outcome = judge.judge_crawl(run_parsed("acme", p))
    assert outcome.status == "suspect" and "instance and per-GPU prices disagree" in outcome.error


def test_many_identical_layout_errors_are_one_short_line_with_a_count():
    p = Parsed()
    for n in range(39):
        p.error("https://api.example.test/graphql: expected a JSON object with a 'data' object, found NoneType")
    p.error("https://api.example.test/graphql: GraphQL error: 'rate limited'")
    outcome = judge.judge_crawl(run_parsed("acme", p))
    assert outcome.status == "failed"
    assert outcome.error.count("expected a JSON object") == 1 and "(x39)" in outcome.error
    assert "rate limited" in outcome.error and len(outcome.error) < 400


def seed_pages() -> dict[str, Parsed]:
    """The two seed sources' shipped captures, parsed in-process (what the published page cites:
    Massed Compute's 8x B200 at $43.46/h, Thunder Compute's A100 80GB at $1.09/h)."""
    from spiders.massed_compute import parse_pricing
    from spiders.thunder_compute import parse_offers
    mc, (pricing, specs) = shipped_exchanges("massed_compute")[0], shipped_exchanges("thunder_compute")
    return {"massed_compute": parse_pricing(mc["body"].decode(), mc["url"]),
            "thunder_compute": parse_offers(pricing["body"].decode(), specs["body"].decode(),
                                            pricing["url"], specs["url"])}


def evaluated_run(wh, day: int, **pages) -> dict:
    run = wh.run(day, known=tuple(pages), **pages)
    con = db.connect(wh.path)
    try:
        evaluate_claims(con, run["run_id"])
    finally:
        con.close()
    return run


def test_a_never_seen_offer_that_undercuts_a_cited_price_is_held_until_confirmed(wh):
    cheap = Parsed()
    cheap.offer(gpu_label="B200 SXM6", gpu_count=8, billing="on-demand", price_raw="$30.00", price_unit="instance_hour")
    evaluated_run(wh, 0, **seed_pages())
    r1 = evaluated_run(wh, 1, **seed_pages(), acme=cheap)
    (reason,) = wh.q("SELECT held_reason FROM held_offers WHERE provider = 'acme'")[0]
    assert reason == ("first seen at $30/h, below the $43.46/h a published claim cites "
                      "(massed_compute 8x B200 SXM6 on-demand); held until the provider's next run confirms it")
    # While held, the claim still rests on Massed Compute and holds.
    assert wh.q("SELECT status, current_value::DOUBLE FROM claim_evaluations WHERE run_id = ? "
                "AND claim_id = 'g-cite-massed-b200x8'", [r1["run_id"]]) == [("holds", 43.46)]
    r2 = evaluated_run(wh, 2, **seed_pages(), acme=cheap)
    assert wh.q("SELECT screen_note FROM latest_offers WHERE provider = 'acme'") == [
        ("first seen below a cited price, confirmed by the provider's next run",)]
    assert wh.q("SELECT status, current_value::DOUBLE FROM claim_evaluations WHERE run_id = ? "
                "AND claim_id = 'g-cite-massed-b200x8'", [r2["run_id"]]) == [("drifted", 30.0)]


def test_a_never_seen_offer_that_undercuts_nothing_cited_is_not_held(wh):
    other = Parsed()
    other.offer(gpu_label="B300 SXM6", gpu_count=1, billing="spot", price_raw="$0.99", price_unit="gpu_hour")
    evaluated_run(wh, 0, **seed_pages())
    evaluated_run(wh, 1, **seed_pages(), acme=other)
    assert wh.q("SELECT count(*) FROM held_offers") == [(0,)]


def test_losing_half_of_the_offers_is_a_collapse():
    six = [{"is_priced": True, "billing": "on-demand", "tier": "on-demand"}] * 3
    from pricewatch.collect import monitors
    assert monitors.check("acme", six, {}, previous_counts=[6, 6, 6])          # 3 of 6: suspect
    assert not monitors.check("acme", six + six[:1], {}, previous_counts=[6, 6, 6])


def test_a_billing_whose_every_price_vanished_is_suspect_even_when_the_others_parse():
    # A browser page whose on-demand cells came out empty while spot and term prices parsed.
    p = parsed(("H100 SXM", "(empty)"), ("H200 SXM", "(empty)"), ("L40S", "(empty)"),
               ("H100 SXM", "$1.00", "spot"), ("H200 SXM", "$1.50", "spot"), ("L40S", "$0.40", "spot"),
               ("A100 80GB", "$0.50", "spot"), ("B200", "$2.00", "spot"))
    outcome = judge.judge_crawl(run_parsed("acme", p))
    assert outcome.status == "suspect"
    assert "none of the 3 on-demand offers has a price" in outcome.error


def test_pricewatch_claims_shows_a_held_reading_only_as_held(wh):
    from typer.testing import CliRunner

    from pricewatch.cli.main import app
    cheap = Parsed()
    cheap.offer(gpu_label="B200 SXM6", gpu_count=8, billing="on-demand", price_raw="$30.00", price_unit="instance_hour")
    evaluated_run(wh, 0, **seed_pages())
    evaluated_run(wh, 1, **seed_pages(), acme=cheap)
    out = CliRunner().invoke(app, ["claims", "--db", wh.path, "--status", "drifted"])
    assert out.exit_code == 1   # nothing drifted: the held $30 moved no claim
    out = CliRunner().invoke(app, ["claims", "--db", wh.path])
    assert out.exit_code == 0, out.output
    assert "held (not used until confirmed): acme 8x B200 SXM6 on-demand $30/h" in " ".join(out.output.split())

"""The bounded reads of the claims engine and the alerts (issue 11) give the answers of the
full-history queries they replaced. The oracles are those queries as they were
(tests/fixtures/oracles/), run on a synthetic history of 40 runs (tests/test_spells.py's: failed,
suspect and not-attempted provider runs, absences, held readings, unpriced text), shaped so that
every path of the bounded reads is taken: an offer held by the quality gate in 8 runs in a row
(every reading of the window held: the spell is searched), an offer gone for good early (its
last reading comes from its ended spell), offers that come back after an absence, and a provider
never seen."""

from __future__ import annotations

from pathlib import Path

import pytest

from pricewatch.alerts import observe
from pricewatch.alerts.model import _Run
from pricewatch.alerts.store import _rows
from pricewatch.claims import readings
from pricewatch.collect import store
from tests.test_claims_published import replayed  # noqa: F401  (a fixture)
from tests.test_spells import synthetic_runs
from warehouse import db, migrate

ORACLES = Path(__file__).parent / "fixtures" / "oracles"
HELD = ("a", "2x G3 on-demand")        # held in runs 20-27
GONE = ("b", "2x G5 on-demand")        # not listed from run 8 on


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    runs = synthetic_runs(40, seed=7)
    for n, (_, _, offers, _) in enumerate(runs):
        if not len(offers):
            continue
        held = (offers.provider == HELD[0]) & (offers.offer_key == HELD[1])
        if 20 <= n < 28:
            offers.loc[held, "held_reason"] = "moved +30.0% from the last trusted price"
        if n >= 8:
            offers.drop(offers.index[(offers.provider == GONE[0]) & (offers.offer_key == GONE[1])], inplace=True)
    con = db.connect(tmp_path_factory.mktemp("at-scale") / "w.duckdb")
    migrate.migrate(con)
    store.load_runs(con, runs)
    yield con
    con.close()


def _oracle_observations(con, seq: int, run_id: str, subjects) -> dict:
    """cur (this run's trusted reading) and before (the last one before it), as observe._observations
    reads them off the old query's two readings."""
    found = {s: [] for s in subjects}
    for row in _rows(con, (ORACLES / "trusted_observations.sql").read_text(),
                     [seq, [p for p, _ in subjects], [k for _, k in subjects]]):
        found[(row["provider"], row["offer_key"])].append(row)
    return {s: [r for r in rows[:1] if r["run_id"] == run_id] + [r for r in rows if r["run_id"] != run_id][:1]
            for s, rows in found.items()}


@pytest.mark.slow       # ~5 s: 40 runs loaded, each run read both ways
def test_cited_offers_readings_match_the_full_history_query_at_every_run(history):
    con = history
    subjects = sorted({tuple(r) for r in con.execute("SELECT DISTINCT provider, offer_key FROM offers").fetchall()}
                      | {("a", "never listed"), ("zz", "no such provider")})
    runs = con.execute("SELECT run_id, seq, observed_at FROM run_sequence ORDER BY seq").fetchall()
    beyond_window = searched = 0
    for run_id, seq, at in runs:
        run = _Run(run_id, seq, at, None, {}, [])
        observe.prefetch(con, run, set(subjects))
        assert run.observations == _oracle_observations(con, seq, run_id, subjects), run_id
        window = {r for (r,) in con.execute(
            """SELECT pr.run_id FROM provider_runs pr JOIN run_sequence s USING (run_id)
               WHERE pr.status = 'ok' AND s.seq <= ? QUALIFY row_number() OVER (PARTITION BY pr.provider
               ORDER BY s.seq DESC) <= ?""", [seq, readings.WINDOW_RUNS]).fetchall()}
        for s, rows in run.observations.items():
            if rows and rows[-1]["run_id"] not in window:
                beyond_window += 1
                searched += s == HELD and 24 <= seq <= 29
    # The paths beyond the window were taken: ended spells, and the search when the window was held.
    assert beyond_window > 20 and searched >= 3


@pytest.mark.slow       # shares the 40-run history above
def test_a_held_reading_leaves_the_last_trusted_one_current_as_the_full_query_found_it(history):
    """Snapshot: each provider's offers as of every run; a reading the gate holds is replaced by
    the offer's last trusted one (or left out when it never had one), as the query per held
    reading found it (tests/fixtures/oracles/snapshot_last_trusted.sql)."""
    from pricewatch.claims.snapshot import OFFER_COLUMNS, Snapshot

    con = history
    oracle = (ORACLES / "snapshot_last_trusted.sql").read_text()
    replaced = dropped = 0
    for (run_id,) in con.execute("SELECT run_id FROM run_sequence ORDER BY seq").fetchall():
        snap = Snapshot(con, run_id)
        for state in snap.providers.values():
            ok = state.last_ok
            if ok is None:
                continue
            rows = con.execute(f"SELECT {', '.join(OFFER_COLUMNS)} FROM offers WHERE run_id = ? AND provider = ?",
                               [ok.run_id, state.provider]).fetchall()
            expected = {}
            for values in rows:
                offer = dict(zip(OFFER_COLUMNS, values))
                if offer["held_reason"]:
                    row = con.execute(oracle, [state.provider, offer["offer_key"], offer["observed_at"]]).fetchone()
                    if row is None:
                        dropped += 1
                        continue
                    offer = {**dict(zip(OFFER_COLUMNS, row)), "held_reading": offer["held_reason"]}
                    replaced += 1
                expected[offer["offer_key"]] = offer
            assert list(state.offers) == list(expected), (run_id, state.provider)
            for key, offer in expected.items():
                got = dict(state.offers[key])
                # A held reading that printed no price also carries what it printed (claims/
                # placeholders.py: a cited placeholder is unverifiable, never re-picked).
                held_row, held_text = got.pop("held_row", None), got.pop("held_text", None)
                if held_row is not None:
                    assert not held_row["is_priced"] and held_text == (held_row["price_text"] or ""), (run_id, key)
                assert {**got, "observed_at": None} == {**offer, "observed_at": None}, (run_id, key)
                assert got["observed_at"] == offer["observed_at"]
    assert replaced > 20 and dropped > 0


def test_rules_are_parsed_once_per_version_and_again_when_edited(tmp_path):
    """cached_rules keys its cache by the rules' sha256: the same files give the same parsed
    object (no parse per call), an edited file a new parse (a long-lived process never evaluates
    with stale rules). A one-page rules folder of no claims keeps it cheap."""
    from pricewatch.claims import rules as R
    page = tmp_path / "rules" / "a-page"
    page.mkdir(parents=True)
    text = ("page:\n  title: {ja: ページ, en: A page}\n  publisher: Us\n  original: a-page.ja.md\n"
            "  prices_dated: '2026-10-31'\n  own_prices: arrakis\ngpus:\n  H100: {model: H100}\n")
    (page / "page.yaml").write_text(text, encoding="utf-8")
    root = str(tmp_path / "rules")
    first = R.cached_rules(root)
    assert list(first.pages) == ["a-page"] and R.cached_rules(root) is first
    (page / "page.yaml").write_text(text.replace("publisher: Us", "publisher: Us again"), encoding="utf-8")
    edited = R.cached_rules(root)
    assert edited is not first and edited.version != first.version
    assert edited.pages["a-page"].page.publisher == "Us again" and R.cached_rules(root) is edited


@pytest.mark.slow       # a replay of the shipped captures of its own (tests/test_claims_published.py's fixture)
def test_the_snapshot_of_the_offers_the_rules_read_gives_every_claim_as_the_whole_snapshot(replayed):
    """On the shipped captures' history, every claim of every run evaluates the same (status,
    value, reason, pick, note, inputs) from a snapshot of only the offers the rules can read
    (evaluator.interest) as from the snapshot of every offer."""
    from pricewatch.claims import rules as R
    from pricewatch.claims.evaluator import Evaluator, interest
    from pricewatch.claims.judge import judge
    from pricewatch.claims.snapshot import Snapshot

    rules = R.cached_rules()
    con = db.connect(replayed["db"], read_only=True)
    try:
        for run in replayed["runs"].values():
            whole, only = Snapshot(con, run["run_id"]), Snapshot(con, run["run_id"], interest(rules))
            assert sum(map(len, (s.offers for s in only.providers.values()))) < \
                sum(map(len, (s.offers for s in whole.providers.values())))
            a, b = Evaluator(rules, whole), Evaluator(rules, only)
            for claim in rules.claims.values():
                oa, ob = a.outcome(claim.id), b.outcome(claim.id)
                assert judge(claim, oa) == judge(claim, ob), (run["run_id"], claim.id)
                assert (oa.value, oa.pick, oa.note, oa.since, oa.inputs) == (ob.value, ob.pick, ob.note, ob.since, ob.inputs)
    finally:
        con.close()

"""A catalog a buyer can compare on (issue 23 item 3): each offer's comparable class, defined once
(the warehouse macro comparable_class, warehouse/macros/comparable_class.sql, reading the catalog's
`classes_by: form_factor`), and every "cheapest" claim compares one class only.

Expected values are read off the catalog YAML and the real recordings (quoted), never the code's."""

from __future__ import annotations

import shutil
from datetime import date

import pytest
import yaml

from pricewatch.claims.evaluate import evaluate_claims
from pricewatch.claims.rules import load_rules
from pricewatch.reports import charts as C
from tests.test_claims_engine import _copy_rules, scenario  # noqa: F401 (the fixture)
from warehouse import db


def test_the_class_of_a_model_that_splits_and_of_one_that_does_not(scenario):
    # gpu_catalog.yaml: "- model: H100 ... classes_by: form_factor", "- model: A100 80GB ...
    # classes_by: form_factor"; "- model: B200" has none.
    got = scenario["con"].execute("""
        SELECT m, f, comparable_class(m, f) FROM (VALUES ('H100', 'SXM'), ('H100', 'PCIe'), ('H100', 'NVL'),
            ('H100', 'unknown'), ('A100 80GB', 'PCIe'), ('B200', 'SXM'), ('B200', 'unknown'), (NULL, 'SXM')) t(m, f)
        ORDER BY ALL""").fetchall()
    assert got == [("A100 80GB", "PCIe", "A100 80GB PCIe"), ("B200", "SXM", "B200"), ("B200", "unknown", "B200"),
                   ("H100", "NVL", "H100 NVL"), ("H100", "PCIe", "H100 PCIe"), ("H100", "SXM", "H100 SXM"),
                   ("H100", "unknown", "H100 (form factor not stated)"), (None, "SXM", None)]


def test_massed_computes_three_h100_rows_are_three_classes(scenario):
    # Massed Compute's real page (2026-08-22): "H100 SXM5 (80GB)" x8 "$$25.12", "H100 NVL (94GB)
    # NVLink" x8 "$$23.36", "H100 (80GB)" x8 "Request". One cheapest per class, never the NVL for all.
    con = scenario["con"]
    classes = dict(con.execute("""SELECT offer_key, comparable_class FROM latest_offers
                                  WHERE provider = 'massed_compute' AND gpu_model = 'H100' AND gpu_count = 8""").fetchall())
    assert classes == {"8x H100 SXM5 (80GB) on-demand": "H100 SXM", "8x H100 NVL (94GB) on-demand #NVLink": "H100 NVL",
                       "8x H100 (80GB) on-demand": "H100 (form factor not stated)"}
    history = con.execute("""SELECT DISTINCT comparable_class FROM offer_price_history
                             WHERE provider = 'massed_compute' AND offer_key = '8x H100 SXM5 (80GB) on-demand'""").fetchall()
    assert history == [("H100 SXM",)]


@pytest.fixture(scope="module")
def class_claims(scenario, tmp_path_factory):
    """Three "cheapest 8x H100 on-demand" claims on the scenario's first run (the real 2026-08-22
    pages): citing Massed Compute's SXM5 row, naming the NVL class, and naming neither."""
    tmp = tmp_path_factory.mktemp("class-claims")
    root = _copy_rules(tmp)
    base = {"kind": "cheapest_offer", "gpu": "H100", "count": 8, "exclude_providers": ["gpuwithcrypto"]}
    claims = [
        {"id": "g-class.sxm", "published": 25.12,
         "compute": {**base, "cites": {"provider": "massed_compute", "offer": "8x H100 SXM5 (80GB) on-demand"}}},
        {"id": "g-class.nvl", "published": 23.36, "compute": {**base, "class": "H100 NVL"}},
        {"id": "g-class.none", "published": 23.36, "compute": base},
    ]
    (root / "gpuwithcrypto-llama-70b-finetuning" / "classes.yaml").write_text(yaml.safe_dump({"claims": [
        {**c, "says": {"ja": c["id"], "en": c["id"]}, "unit": "usd"} for c in claims]}), encoding="utf-8")
    rules = load_rules(root)
    scenario["con"].execute("CHECKPOINT")
    shutil.copy(scenario["base"] / "w.duckdb", tmp / "copy.duckdb")
    con = db.connect(tmp / "copy.duckdb")
    try:
        evaluate_claims(con, scenario["runs"]["R1"], rules, trigger="rules")
        rows = con.execute("""SELECT claim_id, status, current_value::DOUBLE, reason FROM claim_evaluations
                              WHERE run_id = ? AND claim_id LIKE 'g-class.%'""", [scenario["runs"]["R1"]]).fetchall()
        picks = con.execute("""SELECT claim_id, provider, offer_key FROM claim_inputs
                               WHERE run_id = ? AND claim_id LIKE 'g-class.%' AND role = 'cheapest'""",
                            [scenario["runs"]["R1"]]).fetchall()
    finally:
        con.close()
    return {r[0]: r[1:] for r in rows}, {p[0]: p[1:] for p in picks}, rules, tmp / "copy.duckdb"


def test_a_cheapest_claim_compares_the_cited_offers_class_only(class_claims):
    outcomes, picks, *_ = class_claims
    # The cheapest 8x H100 SXM is Massed Compute's SXM5 row at $25.12, not its NVL row at $23.36.
    assert outcomes["g-class.sxm"][:2] == ("holds", 25.12)
    assert picks["g-class.sxm"] == ("massed_compute", "8x H100 SXM5 (80GB) on-demand")


def test_a_cheapest_claim_compares_the_class_it_names(class_claims):
    outcomes, picks, *_ = class_claims
    assert outcomes["g-class.nvl"][:2] == ("holds", 23.36)
    assert picks["g-class.nvl"] == ("massed_compute", "8x H100 NVL (94GB) on-demand #NVLink")


def test_the_gate_compares_a_first_seen_offer_with_the_cited_prices_of_its_class(class_claims, scenario):
    # warehouse/sql/cited_prices.sql, as the load asks it for a run after R1 whose offers are H100s of
    # each form factor: each pair gets the cheapest cited 8x on-demand price of its own class
    # (the SXM5 pick $25.12, the NVL pick $23.36); an H100 stating no form factor gets neither.
    from datetime import timedelta
    from warehouse.sql_files import query_sql
    con = db.connect(class_claims[3], read_only=True)
    try:
        (at,) = con.execute("SELECT observed_at FROM runs WHERE run_id = ?", [scenario["runs"]["R1"]]).fetchone()
        pairs = [{"gpu_model": "H100", "form_factor": f} for f in ("SXM", "NVL", None)]
        rows = con.execute(f"SELECT * FROM ({query_sql('cited_prices').rstrip().rstrip(';')}) "
                           "WHERE gpu_count = 8 AND billing = 'on-demand'", [at + timedelta(seconds=1), pairs]).fetchall()
    finally:
        con.close()
    assert [(r[1], r[2], r[5], r[6]) for r in rows] == [
        ("NVL", "H100 NVL", "massed_compute 8x H100 NVL (94GB) on-demand #NVLink", 23.36),
        ("SXM", "H100 SXM", "massed_compute 8x H100 SXM5 (80GB) on-demand", 25.12)]


def test_offers_of_several_classes_and_none_named_are_unverifiable_not_mixed(class_claims):
    outcomes, picks, *_ = class_claims
    status, value, reason = outcomes["g-class.none"]
    assert (status, value) == ("unverifiable", None) and "g-class.none" not in picks
    assert "comparable classes (" in reason and "H100 NVL" in reason and "H100 SXM" in reason
    assert "the rule names none (class:)" in reason


def test_a_class_of_another_model_is_refused_when_rules_load(tmp_path):
    root = _copy_rules(tmp_path)
    (root / "gpuwithcrypto-llama-70b-finetuning" / "bad.yaml").write_text(yaml.safe_dump({"claims": [
        {"id": "g-bad.class", "says": {"ja": "x", "en": "x"}, "published": 1, "unit": "usd",
         "compute": {"kind": "cheapest_offer", "gpu": "H100", "count": 8, "class": "H200 NVL"}}]}), encoding="utf-8")
    with pytest.raises(Exception, match="not a class of 'H100'"):
        load_rules(root)


def test_the_report_charts_one_cheapest_line_set_per_class():
    # Two classes of one model on one day: two charts, each its own cheapest (rows shaped as
    # cheapest_offer_daily's, with its comparable_class column).
    rows = [{"day": date(2026, 8, 22), "gpu_model": "H100", "comparable_class": cls,
             "gpu_count": 8, "billing": "on-demand", "min_price_per_gpu_hour": price}
            for cls, price in (("H100 SXM", 3.14), ("H100 NVL", 2.92))]
    charts = C.cheapest_per_class("H100", rows)
    assert [c.title for c in charts] == ["H100 NVL: cheapest per GPU-hour", "H100 SXM: cheapest per GPU-hour"]


def test_a_pages_own_price_compares_the_class_its_gpus_entry_names(scenario, tmp_path):
    # A copy of page 1's rules whose own price list is Massed Compute's real page (2026-08-22), which
    # lists H100s of three classes: "H100 (80GB)" x1 "$$2.73" (form factor not stated), "H100 NVL
    # (94GB) NVLink" x8 "$$23.36" (2.92 per GPU), "H100 SXM5 (80GB)" x8 "$$25.12" (3.14 per GPU).
    root = _copy_rules(tmp_path)
    page_file = root / "gpuwithcrypto-llama-70b-finetuning" / "page.yaml"
    page = yaml.safe_load(page_file.read_text(encoding="utf-8"))
    page["page"]["own_prices"] = "massed_compute"
    page["gpus"]["H100 SXM"] = {"model": "H100", "vram_gb": 80, "class": "H100 SXM"}
    page["gpus"]["H100 NVL"] = {"model": "H100", "vram_gb": 94, "class": "H100 NVL"}
    page_file.write_text(yaml.safe_dump(page, allow_unicode=True), encoding="utf-8")
    (root / "gpuwithcrypto-llama-70b-finetuning" / "own-classes.yaml").write_text(yaml.safe_dump({"claims": [
        {"id": f"g-own.{name}", "says": {"ja": name, "en": name}, "published": value, "unit": "usd",
         "compute": {"kind": "own_price", "gpu": gpu}}
        for name, gpu, value in (("sxm", "H100 SXM", 3.14), ("nvl", "H100 NVL", 2.92), ("none", "H100", 2.73))]}),
        encoding="utf-8")
    rules = load_rules(root)
    scenario["con"].execute("CHECKPOINT")
    shutil.copy(scenario["base"] / "w.duckdb", tmp_path / "copy.duckdb")
    con = db.connect(tmp_path / "copy.duckdb")
    try:
        evaluate_claims(con, scenario["runs"]["R1"], rules, trigger="rules")
        got = {c: (s, v, r) for c, s, v, r in con.execute(
            """SELECT claim_id, status, current_value::DOUBLE, reason FROM claim_evaluations
               WHERE run_id = ? AND claim_id LIKE 'g-own.%'""", [scenario["runs"]["R1"]]).fetchall()}
    finally:
        con.close()
    assert got["g-own.sxm"][:2] == ("holds", 3.14)
    assert got["g-own.nvl"][:2] == ("holds", 2.92)
    # Not the $2.73 of the row that does not say its form factor, merged with the others.
    status, value, reason = got["g-own.none"]
    assert (status, value) == ("unverifiable", None)
    assert "massed_compute lists H100 (H100) as offers of 3 comparable classes (H100 (form factor not stated), " \
           "H100 NVL, H100 SXM)" in reason

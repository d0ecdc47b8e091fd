"""The record contract: one declaration of each record, and the frozen formats it is written in.

The offer's fields are declared once (pricewatch/record/fields.py OFFER_FIELDS); the Scrapy item,
the offer key, the columns the judge shapes, the snapshot the claims read and the export's
offers dataset are derived from it. The crawl report, the provider run
(pricewatch/record/crawl_report.py) and the claim evaluation
(pricewatch/record/claim_evaluation.py) likewise.

What is stored or exported is a *frozen, versioned format*, written by the code that writes it
with a literal list: warehouse/load.py OFFERS_TABLE_V1_FIELDS (and provider_runs, runs,
source_facts), pricewatch/claims/evaluate.py CLAIM_EVALUATIONS_TABLE_V1_FIELDS,
pricewatch/export/datasets.py DATASETS of EXPORT_VERSION. These tests check each format against
its declaration and against a freshly migrated warehouse.

Changing a frozen format means a new version, never an edit: a table changes by a new numbered
migration and comes with a new list (OFFERS_TABLE_V2_FIELDS); the export's columns change with
EXPORT_VERSION + 1 and a new fingerprint below (the old one stays, it names what v1 shipped).
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import duckdb
import pytest
import yaml

from pricewatch.claims import evaluate
from pricewatch.claims.queries import query as claims_query
from pricewatch.claims.snapshot import OFFER_COLUMNS as SNAPSHOT_COLUMNS
from pricewatch.collect import judge
from pricewatch.export import datasets as ex
from pricewatch.record import fields as F
from pricewatch.record.claim_evaluation import (
    CLAIM_EVALUATION_FIELDS,
    CLAIM_EVALUATION_NAMES,
)
from pricewatch.record.crawl_report import (
    CRAWL_REPORT_NAMES,
    PROVIDER_RUN_FIELDS,
    PROVIDER_RUN_NAMES,
)
from pricewatch.record.offer import IDENTITY_FIELDS, OfferRecord, offer_key
from spiders.extensions import crawl_report
from spiders.items import OfferItem
from tests.conftest import migrated_warehouse
from warehouse import load

ROOT = Path(__file__).resolve().parent.parent

#: The export's column set of each version (sha256 of its datasets' names and types, in order).
#: A new version adds a line; a shipped version's line is never edited.
EXPORT_FINGERPRINTS = {1: "cefaf7d609d1889e0662f4ffe02c8065e1de211f556f7ff57cdc4df83ad3ba49",
                       2: "c183343d2e3e736d875ca294400b744ccf7d0eb06ae966d6bfb54a9e46d4d07a",   # v2: DOUBLE prices, the marts
                       3: "755ae5b0c19a52a779fcdba63f098298a1def3896f199786b99ef4ec892da2c7"}   # v3: comparable_class


def stored_types(fields) -> set[tuple[str, str]]:
    return {(f.name, f.type) for f in fields}


@pytest.fixture(scope="module")
def warehouse_columns(tmp_path_factory) -> dict[str, list[tuple[str, str]]]:
    """{table: [(column, type), ...] in order} of a freshly migrated warehouse."""
    path = migrated_warehouse(tmp_path_factory.mktemp("contract") / "w.duckdb")
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute("""SELECT table_name, column_name, data_type FROM information_schema.columns
                              WHERE table_schema = 'main' ORDER BY table_name, ordinal_position""").fetchall()
    finally:
        con.close()
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, type_ in rows:
        out.setdefault(table, []).append((column, type_))
    return out


# --- the offer -----------------------------------------------------------------------------

def test_the_stored_set_of_the_field_table_is_the_frozen_offers_format():
    assert stored_types(f for f in F.OFFER_FIELDS if "stored" in f.sets) == set(load.OFFERS_TABLE_V1_FIELDS)
    assert len(load.OFFERS_TABLE_V1_FIELDS) == len(F.STORED_FIELDS)
    assert load.OFFER_COLUMNS == [n for n, _ in load.OFFERS_TABLE_V1_FIELDS]


@pytest.mark.parametrize("table, frozen", [
    ("offers", load.OFFERS_TABLE_V1_FIELDS), ("provider_runs", load.PROVIDER_RUNS_TABLE_V2_FIELDS),
    ("runs", load.RUNS_TABLE_V1_FIELDS), ("source_facts", load.SOURCE_FACTS_TABLE_V1_FIELDS),
    ("claim_evaluations", evaluate.CLAIM_EVALUATIONS_TABLE_V1_FIELDS)])
def test_a_fresh_warehouse_has_exactly_the_frozen_formats(warehouse_columns, table, frozen):
    assert warehouse_columns[table] == list(frozen)


def test_the_judge_shapes_every_stored_column_but_the_gates(tmp_path):
    filled_by_load = {f.name for f in F.OFFER_FIELDS if f.filled_by == "load"}
    assert set(F.JUDGED_FIELDS) | filled_by_load == set(F.STORED_FIELDS) and filled_by_load == {"held_reason", "screen_note"}
    assert [n for n, _ in judge._OFFER_CELLS] == list(F.JUDGED_FIELDS)
    assert set(judge._CELL) <= set(F.JUDGED_FIELDS)


def test_the_scrapy_item_is_the_item_set_and_the_record_reads_only_item_fields():
    assert set(OfferItem.fields) == set(F.ITEM_FIELDS)
    assert OfferItem.__module__ == "spiders.items" and OfferItem.fields["vram_gb"]["meaning"] == "VRAM per GPU, GB"
    assert set(OfferRecord.model_fields) <= set(F.ITEM_FIELDS)
    # what a spider fills is an item field; the judge's own columns are not
    assert {f.name for f in F.OFFER_FIELDS if f.filled_by in ("spider", "pipeline")} == set(F.ITEM_FIELDS)


def test_the_claims_snapshot_reads_a_subset_of_the_stored_columns(warehouse_columns, tmp_path):
    assert set(SNAPSHOT_COLUMNS) <= set(F.STORED_FIELDS) and SNAPSHOT_COLUMNS == F.SNAPSHOT_FIELDS
    # ... in the order its query selects them (observed_at as epoch microseconds)
    path = migrated_warehouse(tmp_path / "s.duckdb")
    con = duckdb.connect(str(path))
    try:
        cur = con.execute(claims_query("snapshot_offers"), [[], [], None, None, True, [], [], []])
        got = [d[0] for d in cur.description]
    finally:
        con.close()
    assert got == ["observed_us" if c == "observed_at" else c for c in SNAPSHOT_COLUMNS]


def test_the_export_offers_are_the_export_set_with_the_stored_types():
    offers = {c.name: c.type for c in ex.DATASETS["offers"]}
    fields = {f.name: f.type for f in F.OFFER_FIELDS if "export" in f.sets}
    assert set(offers) - set(ex.OFFERS_EXPORT_ONLY) == set(fields) == set(F.EXPORT_FIELDS)
    # v2: the stored DECIMAL prices are exported as DOUBLE (pandas reads numbers, not Decimal)
    assert {n: offers[n] for n in fields} == {n: "DOUBLE" if t.startswith("DECIMAL") else t for n, t in fields.items()}
    assert set(F.EXPORT_FIELDS) <= set(F.STORED_FIELDS)


def test_the_export_column_set_is_the_frozen_one_of_its_version():
    shape = [[name, [(c.name, c.type) for c in columns]] for name, columns in ex.DATASETS.items()]
    digest = hashlib.sha256(json.dumps(shape).encode()).hexdigest()
    assert EXPORT_FINGERPRINTS.get(ex.EXPORT_VERSION) == digest, (
        f"the export's columns changed: that is EXPORT_VERSION {ex.EXPORT_VERSION + 1} with fingerprint {digest}, "
        "never an edit of a shipped version")


# --- the offer key -------------------------------------------------------------------------

BASE = {"provider": "p", "sku": None, "variant": None, "gpu_label": "H100 SXM", "gpu_count": 8, "vram_gb": 80.0,
        "form_factor": "SXM", "billing": "reserved", "tier": "secure", "reserved_term": "1 month", "self_service": True,
        "region": "us-east", "currency": "USD", "price_raw": "$1.00", "price_unit": "gpu_hour", "stated_per_gpu": None,
        "availability": "3", "is_aggregator": False, "capture": {"warc_file": "w"}, "gpu_model": "H100 SXM",
        "price_per_hour": 8.0, "price_per_gpu_hour": 1.0, "price_text": None, "is_priced": True, "offer_key": "old"}
OTHER = {"sku": "h100x8", "variant": "32 vCPU", "gpu_label": "H200", "gpu_count": 4, "vram_gb": 141.0,
         "billing": "spot", "tier": "community", "reserved_term": "3 years", "region": "eu-west"}


class Reads(dict):
    """A mapping that records the keys read from it."""

    def __init__(self, *a):
        super().__init__(*a)
        self.read: set[str] = set()

    def __getitem__(self, k):
        self.read.add(k)
        return super().__getitem__(k)

    def get(self, k, default=None):
        self.read.add(k)
        return super().get(k, default)


def test_identity_fields_are_the_key_places_in_order():
    places = sorted((f.key, f.name) for f in F.OFFER_FIELDS if f.key)
    assert [k for k, _ in places] == list(range(1, len(places) + 1))
    assert IDENTITY_FIELDS == F.IDENTITY_FIELDS == tuple(n for _, n in places)
    assert IDENTITY_FIELDS == ("gpu_count", "sku", "gpu_label", "vram_gb", "billing", "tier", "reserved_term",
                               "region", "variant")


@pytest.mark.parametrize("name", IDENTITY_FIELDS)
def test_changing_an_identity_field_changes_the_key(name):
    base = dict(BASE, sku="h100" if name == "sku" else None)   # a sku stands for the label
    assert offer_key(base) != offer_key(dict(base, **{name: OTHER[name]}))


@pytest.mark.parametrize("name", sorted(set(F.ITEM_FIELDS) - set(IDENTITY_FIELDS)))
def test_changing_any_other_field_leaves_the_key(name):
    for base in (BASE, dict(BASE, sku="h100", variant="a")):
        changed = dict(base, **{name: {"x": 1} if name == "capture" else f"other {name}"})
        assert offer_key(base) == offer_key(changed)


def test_the_key_reads_only_identity_fields():
    for base in (BASE, dict(BASE, sku="h100", variant="a", region=None, reserved_term=None)):
        item = Reads(base)
        offer_key(item)
        assert item.read <= set(IDENTITY_FIELDS), item.read - set(IDENTITY_FIELDS)


# --- the crawl report and the provider run ---------------------------------------------------

def test_the_crawl_report_has_the_declared_fields():
    assert tuple(crawl_report({}, "p")) == CRAWL_REPORT_NAMES
    assert tuple(crawl_report({"downloader/response_status_count/503": 2, "retry/count": 1}, "p")) == CRAWL_REPORT_NAMES
    assert {f.from_report for f in PROVIDER_RUN_FIELDS if f.from_report} <= set(CRAWL_REPORT_NAMES)


def _report_keys_read(path: Path) -> set[str]:
    """Every "x" of report.get("x") / report["x"] / o.report.get("x") in a module."""
    keys = set()
    for node in ast.walk(ast.parse(path.read_text())):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            target, key = node.func.value, node.args[0]
        elif isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        if target is None or not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            continue
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name == "report":
            keys.add(key.value)
    return keys


@pytest.mark.parametrize("module", ["pricewatch/collect/judge.py", "pricewatch/collect/monitors.py",
                                    "pricewatch/collect/crawl_process.py"])
def test_the_crawl_report_is_read_only_by_declared_fields(module):
    read = _report_keys_read(ROOT / module)
    assert read <= set(CRAWL_REPORT_NAMES), read - set(CRAWL_REPORT_NAMES)


def test_the_provider_run_row_is_the_frozen_provider_runs_format():
    assert stored_types(PROVIDER_RUN_FIELDS) == set(load.PROVIDER_RUNS_TABLE_V2_FIELDS)
    assert len(PROVIDER_RUN_FIELDS) == len(load.PROVIDER_RUNS_TABLE_V2_FIELDS)
    assert set(load.PROVIDER_RUN_COLUMNS) == set(PROVIDER_RUN_NAMES)


def test_the_judge_shapes_a_run_with_the_declared_columns():
    from datetime import datetime, timezone
    at = datetime(2026, 10, 29, tzinfo=timezone.utc)
    item = dict(BASE, capture={"source_url": "u", "warc_file": "w", "warc_record_id": "r", "body_sha256": "b"},
                offer_key="8x H100 SXM 80GB reserved/secure 1 month @us-east")
    ok = judge.ProviderOutcome(provider="p", status="ok", offers=[item], observed_at=at,
                               report=crawl_report({"retry/count": 1}, "p"))
    _, provider_runs, offers, _ = judge.build_run([ok], "replay", at, None, None, known_providers=["p", "q"])
    assert tuple(provider_runs.columns) == PROVIDER_RUN_NAMES
    # and the parser's held_row, which the load's gate stores as held_reason (never a column itself)
    assert tuple(offers.columns) == F.JUDGED_FIELDS + ("held_row",)


# --- the claim evaluation --------------------------------------------------------------------

def test_the_claim_evaluation_is_the_frozen_claim_evaluations_format():
    assert stored_types(CLAIM_EVALUATION_FIELDS) == set(evaluate.CLAIM_EVALUATIONS_TABLE_V1_FIELDS)
    assert len(CLAIM_EVALUATION_FIELDS) == len(evaluate.CLAIM_EVALUATIONS_TABLE_V1_FIELDS)
    assert set(evaluate.EVAL_COLUMNS) == set(CLAIM_EVALUATION_NAMES)


# --- one description of a column -------------------------------------------------------------

def _comments() -> dict[str, dict[str, str]]:
    """{table: {column: its comment}} of warehouse/tables/schema.yaml, same_as resolved."""
    tables = {t["name"]: {c["name"]: c for c in t.get("columns", [])}
              for t in yaml.safe_load((ROOT / "warehouse/tables/schema.yaml").read_text())["tables"]}

    def text(table, column):
        c = tables[table][column]
        return text(*c["same_as"].split(".", 1)) if "same_as" in c else c["description"]

    return {t: {c: text(t, c) for c in cols} for t, cols in tables.items()}


@pytest.mark.parametrize("table, fields", [
    ("offers", [f for f in F.OFFER_FIELDS if "stored" in f.sets]), ("provider_runs", PROVIDER_RUN_FIELDS),
    ("claim_evaluations", CLAIM_EVALUATION_FIELDS)])
def test_a_columns_meaning_is_its_comment_in_the_warehouse(table, fields):
    comments = _comments()[table]
    assert {f.name: f.meaning for f in fields} == {f.name: comments[f.name] for f in fields}
    assert set(comments) == {f.name for f in fields}

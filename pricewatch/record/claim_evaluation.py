"""The claim evaluation, declared once: the row pricewatch/claims/evaluate.py stores in
``claim_evaluations`` for each claim evaluated as of one run's snapshot.

The stored table is a frozen format (pricewatch/claims/evaluate.py
CLAIM_EVALUATIONS_TABLE_V1_FIELDS, which the insert names); tests/test_record_contract.py checks
it against this list and a freshly migrated warehouse, and each meaning against the column's
comment (warehouse/tables/schema.yaml).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EvaluationField:
    name: str
    type: str          # the DuckDB type of the stored column
    meaning: str       # = the column's comment in the warehouse


_P, _T = "DECIMAL(18,6)", "TIMESTAMP WITH TIME ZONE"

#: A claim evaluation's row, in the order the evaluation shapes it.
CLAIM_EVALUATION_FIELDS: tuple[EvaluationField, ...] = tuple(EvaluationField(*r) for r in (
    ("run_id", "VARCHAR", "the run (runs.run_id)"),
    ("claim_id", "VARCHAR", "claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)"),
    ("claim_group", "VARCHAR", "the CLAIMS.md id the claim belongs to"),
    ("page", "VARCHAR", "published page id (rules folder)"),
    ("kind", "VARCHAR", "computation kind: cited_offer, cheapest_offer, ratio, ..."),
    ("status", "VARCHAR", "holds | drifted | unverifiable"),
    ("published_value", _P, "the number the page prints (checkmarks as 1/0; NULL for text)"),
    ("current_value", _P, "the number recomputed from the snapshot (NULL when unverifiable or text)"),
    ("difference", _P, "current_value - published_value (numbers only)"),
    ("tolerance", "VARCHAR", 'what counts as holding: "cents", "rounds to 0 decimals", "±5%", "exact"'),
    ("reason", "VARCHAR", "why drifted or unverifiable (which input, since when)"),
    ("snapshot_at", _T, "the run's observed_at: no later data is used"),
    ("evaluated_at", _T, "when the evaluation was computed"),
    ("published_text", "VARCHAR", 'as the page shows it: "$43.46", "✓", "1,260 GB"'),
    ("current_text", "VARCHAR", "the same, recomputed"),
    ("pick", "VARCHAR", "cheapest/from claims: what the value comes from now"),
    ("note", "VARCHAR", "e.g. a cheaper fitting configuration exists"),
    ("unverifiable_since", _T, "when the missing or failed input was first missing"),
    ("says_ja", "VARCHAR", "the published sentence or table cell (original Japanese)"),
    ("says_en", "VARCHAR", "the same in English"),
    ("cited_date", "VARCHAR", "the date the page cited for its prices"),
    ("rules_version", "VARCHAR", "sha256 (16 hex) of rules/ as used; 'unrecorded' before migration 035"),
    ("trigger", "VARCHAR", ("'run': evaluated after the run loaded; 'rules': the snapshot evaluated again "
                            "because rules/ changed")),
))
CLAIM_EVALUATION_NAMES = tuple(f.name for f in CLAIM_EVALUATION_FIELDS)

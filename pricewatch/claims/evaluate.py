"""Recomputing every claim as of one run's snapshot, and storing the result with its inputs.

``evaluate_claims(con, run_id)`` is what the nightly flow calls after loading a run. It only
adds rows, each recording the version of rules/ it used: a claim already evaluated for that run
under the same rules is left as it is, so evaluating a run again changes nothing. When rules/
has changed since the latest evaluated snapshot was evaluated, that snapshot is evaluated again
first (``trigger = 'rules'``), so what the rule change alone did is told apart from what the new
prices did; ``reevaluate_latest`` does it on demand (``pricewatch claims --reevaluate``).
"""

from __future__ import annotations

from datetime import datetime, timezone

import duckdb
import pandas as pd

from pricewatch.claims import rules as R
from pricewatch.claims.evaluator import Evaluator, interest
from pricewatch.claims.formatting import as_number, display
from pricewatch.claims.judge import judge, tolerance_text
from pricewatch.claims.queries import query
from pricewatch.claims.snapshot import Snapshot
from pricewatch.record.claim_evaluation import CLAIM_EVALUATION_NAMES
from warehouse.load import insert_frame

STATUSES = ("holds", "drifted", "unverifiable")


def _num(v) -> float | None:
    n = as_number(v)
    return None if n is None else round(float(n), 6)


def evaluate_claims(con: duckdb.DuckDBPyConnection, run_id: str, rules: R.RuleSet | None = None,
                    trigger: str = "run") -> dict:
    """Evaluates every claim not yet evaluated for ``run_id`` under the current rules as of that
    run's snapshot and stores the results. With ``trigger='run'`` the latest evaluated snapshot is
    first evaluated again if the rules changed since (its changes are returned as
    ``rule_changes``). Returns {run_id, evaluated, counts, drifted, unverifiable, rule_changes}."""
    from warehouse.migrate import ensure_migrated

    ensure_migrated(con)
    rules = rules or R.cached_rules()
    # The latest evaluated snapshot, this run's own included: re-running the latest night after a
    # rules edit evaluates that night again (told as a rule change), never the one before it.
    rule_changes = reevaluate_latest(con, rules) if trigger == "run" else None
    evaluated, fresh = _evaluate(con, run_id, rules, trigger)
    # A run evaluated for the first time: its rows just stored are its latest evaluations.
    summary = _summary(run_id, [(r["claim_id"], r["status"], r["reason"]) for r in fresh]) if fresh is not None \
        else claims_summary(con, run_id)
    return {**summary, "evaluated": evaluated, "rules_version": rules.version, "rule_changes": rule_changes}


def reevaluate_latest(con: duckdb.DuckDBPyConnection, rules: R.RuleSet | None = None,
                      other_than: str | None = None, force: bool = False) -> dict | None:
    """Evaluates the latest evaluated snapshot again when rules/ changed since it was evaluated
    (or always, with ``force``: rules unchanged give no new rows). Returns None when there was
    nothing to do, else {run_id, rules_version, previous_version, evaluated, changed: [...]}:
    each claim whose status or recomputed text the rule change moved, or that it added/removed."""
    from warehouse.migrate import ensure_migrated

    ensure_migrated(con)
    rules = rules or R.cached_rules()
    row = con.execute(query("latest_evaluated_run"), [other_than or ""]).fetchone()
    if row is None:
        return None
    run_id, previous_version = row
    if previous_version == rules.version and not force:
        return None
    evaluated, _ = _evaluate(con, run_id, rules, "rules")
    cols = ["claim_id", "page", "change", "old_status", "new_status", "old_text", "new_text", "says_en"]
    changed = [dict(zip(cols, r)) for r in con.execute(query("rule_changes"), [run_id, rules.version]).fetchall()] \
        if evaluated else []
    return {"run_id": run_id, "rules_version": rules.version, "previous_version": previous_version,
            "evaluated": evaluated, "changed": changed}


def _evaluate(con: duckdb.DuckDBPyConnection, run_id: str, rules: R.RuleSet, trigger: str) -> tuple[int, list | None]:
    """(claims evaluated, their rows when the run had no evaluation before: else None)."""
    stored = con.execute(query("evaluated_claims_of_run"), [run_id]).fetchall()
    done = {cid for cid, version in stored if version == rules.version}
    todo = [c for c in rules.claims.values() if c.id not in done]
    if not todo:
        return 0, None
    rows, inputs = _rows(con, run_id, rules, todo, trigger)
    _insert(con, rows, inputs)
    return len(todo), (None if stored else sorted(rows, key=lambda r: r["claim_id"]))


def reevaluate_decided(con: duckdb.DuckDBPyConnection, rules: R.RuleSet | None = None) -> dict | None:
    """After an editor's decision on a held reading (offer_decisions, `pricewatch offers
    accept|reject`): the latest evaluated snapshot evaluated again under the current rules, and
    the evaluation of each claim whose status, text, reason or inputs the decision changed
    replaced by the new one (same run, rules version and trigger; a later evaluated_at). Returns
    None when nothing was evaluated yet, else {run_id, evaluated, changed: [{claim_id, page,
    old_status, new_status, old_text, new_text, old_reason, new_reason}]}."""
    from warehouse.migrate import ensure_migrated

    ensure_migrated(con)
    rules = rules or R.cached_rules()
    row = con.execute(query("latest_evaluated_run"), [""]).fetchone()
    if row is None:
        return None
    run_id = row[0]
    cur = con.execute("SELECT * FROM claim_evaluations WHERE run_id = ? AND rules_version = ?", [run_id, rules.version])
    cols = [d[0] for d in cur.description]
    stored = {r["claim_id"]: r for r in (dict(zip(cols, v)) for v in cur.fetchall())}
    ins = con.execute("SELECT claim_id, input_name, provider, offer_key, offer_run_id, input_status, used, price_per_hour "
                      "FROM claim_inputs WHERE run_id = ? AND rules_version = ?", [run_id, rules.version]).fetchall()
    stored_inputs: dict[str, set] = {}
    for cid, *rest in ins:
        stored_inputs.setdefault(cid, set()).add((rest[0], rest[1], rest[2], rest[3], rest[4], bool(rest[5]),
                                                  _num(rest[6])))
    todo = [c for c in rules.claims.values()]
    rows, inputs = _rows(con, run_id, rules, todo, "run")
    by_claim: dict[str, list] = {}
    for i in inputs:
        by_claim.setdefault(i["claim_id"], []).append(i)
    changed, keep_rows, keep_inputs = [], [], []
    for r in rows:
        old = stored.get(r["claim_id"])
        new_inputs = {(i["input_name"], i["provider"], i["offer_key"], i["offer_run_id"], i["input_status"],
                       bool(i["used"]), _num(i["price_per_hour"])) for i in by_claim.get(r["claim_id"], [])}
        same = old is not None and (old["status"], old["current_text"], old["reason"]) == \
            (r["status"], r["current_text"], r["reason"]) and stored_inputs.get(r["claim_id"], set()) == new_inputs
        if same:
            continue
        r["trigger"] = old["trigger"] if old else r["trigger"]
        keep_rows.append(r)
        keep_inputs += by_claim.get(r["claim_id"], [])
        changed.append({"claim_id": r["claim_id"], "page": r["page"],
                        "old_status": old and old["status"], "new_status": r["status"],
                        "old_text": old and old["current_text"], "new_text": r["current_text"],
                        "old_reason": old and old["reason"], "new_reason": r["reason"]})
    if keep_rows:
        _insert(con, keep_rows, keep_inputs, replace=(run_id, rules.version, [r["claim_id"] for r in keep_rows]))
    return {"run_id": run_id, "evaluated": len(rows), "changed": sorted(changed, key=lambda c: c["claim_id"])}


def _rows(con: duckdb.DuckDBPyConnection, run_id: str, rules: R.RuleSet, todo: list, trigger: str) -> tuple[list, list]:
    """The evaluation rows and input rows of the claims ``todo`` as of run_id's snapshot."""
    snap = Snapshot(con, run_id, interest(rules))
    ev = Evaluator(rules, snap)
    now = datetime.now(timezone.utc)
    rows, inputs = [], []
    for claim in todo:
        o = ev.outcome(claim.id)
        status, diff, reason = judge(claim, o)
        page = rules.pages[claim.page]
        cells = {
            "run_id": run_id, "claim_id": claim.id, "claim_group": claim.claim_group, "page": claim.page,
            "kind": claim.compute.kind, "status": status, "published_value": _num(claim.published),
            "current_value": None if o.unverifiable else _num(o.value), "difference": _num(diff),
            "tolerance": tolerance_text(claim), "reason": reason, "snapshot_at": snap.at, "evaluated_at": now,
            "published_text": display(claim, claim.published),
            "current_text": None if o.unverifiable else display(claim, o.value),
            "pick": o.pick, "note": o.note, "unverifiable_since": o.since if o.unverifiable else None,
            "says_ja": claim.says.ja, "says_en": claim.says.en,
            "cited_date": claim.cited_date or page.page.prices_dated,
            "rules_version": rules.version, "trigger": trigger,
        }
        rows.append({name: cells[name] for name in CLAIM_EVALUATION_NAMES})   # the row's fields, in order
        seen = set()
        for i in o.inputs:
            if i["input_name"] in seen:
                continue
            seen.add(i["input_name"])
            inputs.append({"run_id": run_id, "claim_id": claim.id, **i, "rules_version": rules.version})
    return rows, inputs


def claims_summary(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """Status counts of a run's evaluations, and each claim that does not hold (for the flow summary)."""
    return _summary(run_id, con.execute(query("run_evaluation_latest"), [run_id]).fetchall())


def _summary(run_id: str, rows) -> dict:
    """rows: (claim_id, status, reason, ...) of each claim's latest evaluation, by claim id."""
    out = {"run_id": run_id, "counts": {s: 0 for s in STATUSES}, "drifted": [], "unverifiable": []}
    for claim_id, status, reason, *_ in rows:
        out["counts"][status] += 1
        if status != "holds":
            out[status].append({"claim_id": claim_id, "detail": reason})
    return out


#: The stored ``claim_evaluations`` table, format v1 (frozen: a new format is a migration and a
#: v2, never an edit). The insert names these columns; tests/test_record_contract.py checks them
#: against a freshly migrated warehouse and against CLAIM_EVALUATION_FIELDS
#: (pricewatch/record/claim_evaluation.py), the row as the evaluation shapes it.
CLAIM_EVALUATIONS_TABLE_V1_FIELDS = (
    ("run_id", "VARCHAR"), ("claim_id", "VARCHAR"), ("claim_group", "VARCHAR"), ("page", "VARCHAR"),
    ("kind", "VARCHAR"), ("status", "VARCHAR"), ("published_value", "DECIMAL(18,6)"),
    ("current_value", "DECIMAL(18,6)"), ("difference", "DECIMAL(18,6)"), ("tolerance", "VARCHAR"),
    ("reason", "VARCHAR"), ("snapshot_at", "TIMESTAMP WITH TIME ZONE"), ("evaluated_at", "TIMESTAMP WITH TIME ZONE"),
    ("published_text", "VARCHAR"), ("current_text", "VARCHAR"), ("pick", "VARCHAR"), ("note", "VARCHAR"),
    ("unverifiable_since", "TIMESTAMP WITH TIME ZONE"), ("says_ja", "VARCHAR"), ("says_en", "VARCHAR"),
    ("cited_date", "VARCHAR"), ("rules_version", "VARCHAR"), ("trigger", "VARCHAR"),
)
EVAL_COLUMNS = [name for name, _ in CLAIM_EVALUATIONS_TABLE_V1_FIELDS]
INPUT_COLUMNS = ["run_id", "claim_id", "input_name", "role", "provider", "offer_key", "gpu_model", "gpu_count",
                 "billing", "price_per_hour", "price_per_gpu_hour", "observed_at", "source_url", "warc_file",
                 "warc_record_id", "input_status", "used", "offer_run_id", "price_text", "fact", "value_num",
                 "value_text", "rules_version"]


def _frame(rows: list[dict], columns: list[str], numeric: tuple[str, ...]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=columns)
    for col in numeric:
        df[col] = pd.to_numeric(df[col].map(lambda v: None if v is None else float(v)), errors="coerce").astype("float64")
    for col in ("snapshot_at", "evaluated_at", "unverifiable_since", "observed_at"):
        if col in df:
            df[col] = pd.to_datetime(df[col], utc=True)
    return df


def _insert(con: duckdb.DuckDBPyConnection, rows: list[dict], inputs: list[dict], replace: tuple | None = None) -> None:
    """Stores the rows in one transaction; ``replace`` (run_id, rules_version, claim ids): their
    stored evaluations and inputs are deleted first, in the same transaction."""
    ev = _frame(rows, EVAL_COLUMNS, ("published_value", "current_value", "difference"))
    ins = _frame(inputs, INPUT_COLUMNS, ("price_per_hour", "price_per_gpu_hour", "value_num"))
    ins["gpu_count"] = ins["gpu_count"].astype("Int64")
    con.execute("BEGIN")
    try:
        if replace:
            for table in ("claim_inputs", "claim_evaluations"):
                con.execute(f"DELETE FROM {table} WHERE run_id = ? AND rules_version = ? AND list_contains(?, claim_id)",
                            list(replace))
        insert_frame(con, "claim_evaluations", ev, EVAL_COLUMNS)
        insert_frame(con, "claim_inputs", ins, INPUT_COLUMNS)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise

"""rule_change alerts: claims whose status or text changed when a snapshot was evaluated again
under new rules/ (claim_evaluations.trigger = 'rules', pricewatch.claims.evaluate
reevaluate_latest). The rule changed, no price moved: these are never price events, and the
run's claim_status compares evaluations under the same (latest) rules, so the change is told
once, here. One event per page and rules version.
"""

from __future__ import annotations

from pricewatch.alerts.model import Alert, _Run
from pricewatch.alerts.render import _L, S
from pricewatch.alerts.store import _rows, sql
from pricewatch.claims.queries import query as claims_query


def _rule_changes(con, run: _Run) -> list[Alert]:
    runs = [r for r in (run.run_id, run.previous_eval) if r]
    out = []
    for rv in _rows(con, sql("rule_versions"), [runs]):
        changed = _rows(con, claims_query("rule_changes"), [rv["run_id"], rv["rules_version"]])
        previous = _rows(con, """SELECT rules_version FROM claim_evaluations WHERE run_id = ? AND evaluated_at < ?
                                 ORDER BY evaluated_at DESC LIMIT 1""", [rv["run_id"], rv["evaluated_at"]])
        by_page: dict[str, list[dict]] = {}
        for c in changed:
            by_page.setdefault(c["page"], []).append(c)
        for page, items in sorted(by_page.items()):
            false_now = sum(1 for c in items if c["new_status"] == "drifted" and c["old_status"] != "drifted")
            lines: list = [f"Page {page}: the rules changed (version {rv['rules_version']}); "
                           f"{len(items)} claim(s) read differently on the same prices."]
            lines += [_L(f"- {c['claim_id']} ({c['change']}): {c['old_status'] or '-'} -> {c['new_status'] or '-'}, ",
                         S(c["old_text"] or "-"), " -> ", S(c["new_text"] or "-")) for c in items]
            details = {"page": page, "rules_version": rv["rules_version"],
                       "previous_version": previous[0]["rules_version"] if previous else None,
                       "reevaluated_run_id": rv["run_id"], "claims": items}
            out.append(Alert("rule_change", page, f"{rv['run_id']}|{rv['rules_version']}", run.run_id,
                             f"{page}: rules changed, {len(items)} claim(s) changed", lines, details,
                             "warning" if false_now else "info"))
    return out

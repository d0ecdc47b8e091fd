"""claim_status alerts: claims of a page that went holds / drifted / unverifiable.

A first failed night does not page. A claim unverifiable only through the claims it is computed
from (a ratio of two cited prices) has their causes (sql/claim_status_basis.sql follows the
dependencies of rules/). A snapshot evaluated again under new rules is told as a rule change
(rulechange.py), not here. A claim that is unverifiable only because its sources
failed fewer than `failed_runs_threshold` runs in a row is left out of claim_status alerts (a
status no one was told is not a status the claim had). Once a source reaches the threshold,
one alert per page lists those claims, naming the failing source and its error once.
"""

from __future__ import annotations

from pricewatch.alerts.model import Alert, _Run
from pricewatch.alerts.observe import _held, _hold_note
from pricewatch.alerts.render import _L, UTC_FMT, S, _shown
from pricewatch.alerts.sources import _streak, _unprefixed
from pricewatch.alerts.staleness import stale_claims
from pricewatch.alerts.store import _rows, sql
from pricewatch.record.config import AlertConfig


def _claim_status(con, run: _Run, moves: dict, cfg: AlertConfig) -> list[Alert]:
    """One alert per page and new status, listing each claim that changed (a price move
    often flips several cells of one table); claims resting on a suspect reading are held in
    an alert of their own. A claim unverifiable only because its sources failed fewer than
    failed_runs_threshold runs in a row is not news yet (nor is that status compared against
    later); once they reach it, the claims it made unverifiable share one alert per page that
    names those sources and their error once."""
    if not run.claims:
        return []
    # What to compare with, set-based (sql/claim_status_basis.sql): each claim's last status that
    # counts, and whether its status now is only a short outage's.
    basis = {r["claim_id"]: r for r in claim_status_basis(con, run, cfg)}

    def cause(run_id: str, ev: dict) -> tuple[str, ...] | None:
        """The failing sources that alone make this evaluation unverifiable, else None."""
        b = basis.get(ev["claim_id"])
        return tuple(b["now_failing"]) if b and b["now_failing"] and ev["status"] == "unverifiable" else None

    def quiet(run_id: str, ev: dict) -> bool:
        b = basis.get(ev["claim_id"])
        return bool(b and b["now_quiet"])

    before = {c: {"status": b["before_status"], "run_id": b["before_run_id"]}
              for c, b in basis.items() if b["before_status"] is not None}
    # Claims unchecked only because a source is stale are told once per page (staleness.py):
    # going unchecked for staleness, and coming back to what they were, is not a status change here.
    stale = stale_claims(con, sorted({run.run_id} | {b["run_id"] for b in before.values() if b["run_id"]}))

    def stale_in(run_id, claim_id) -> bool:
        return any(claim_id in ids for by_src in stale.get(run_id, {}).values() for ids in by_src.values())
    uses = {}
    for i in run.inputs:
        if i["run_id"] == run.run_id:
            uses.setdefault(i["claim_id"], set()).add(f"{i['provider']}/{i['offer_key']}")
    groups: dict[tuple, list[dict]] = {}
    for claim_id, ev in sorted(run.claims.items()):
        if quiet(run.run_id, ev) or ev.get("trigger") == "rules":
            # A snapshot evaluated again under new rules: what changed is a rule change
            # (rulechange.py), told once as such, never as a status change of the run.
            continue
        old = before.get(claim_id)
        if old and (stale_in(run.run_id, claim_id) or (
                ev["status"] == "holds" and old["status"] == "unverifiable" and stale_in(old["run_id"], claim_id))):
            continue
        # A claim seen for the first time only alerts when the page is already wrong.
        if (old is None and ev["status"] != "drifted") or (old is not None and old["status"] == ev["status"]):
            continue
        held = tuple(sorted(s for s in uses.get(claim_id, ()) if moves.get(s, {}).get("suspect")))
        item = {k: ev.get(k) for k in ("claim_id", "claim_group", "page", "kind", "status", "published_text",
                                        "current_text", "published_value", "current_value", "difference",
                                        "tolerance", "reason", "pick", "note")}
        item["previous_status"] = old["status"] if old else None
        groups.setdefault((ev["page"], ev["status"], held, cause(run.run_id, ev) or ()), []).append(item)
    out = []
    for (page, status, held_subjects, failing), items in sorted(groups.items()):
        olds = {i["previous_status"] or "new" for i in items}
        was = olds.pop() if len(olds) == 1 else "mixed"
        name = f"claim {items[0]['claim_id']}" if len(items) == 1 else f"{len(items)} claims"
        held = _held(moves, held_subjects)
        lines: list = [f"Page {page}: {name} now {status} as of {run.observed_at:{UTC_FMT}}."]
        if failing:
            lines.append("Because " + ("this source has" if len(failing) == 1 else "these sources have") +
                         f" failed {cfg.failed_runs_threshold} or more runs in a row:")
            lines += [_source_line(con, run, p) for p in failing]
            lines += [f"- {i['claim_id']}: {i['previous_status'] or 'new'} -> {status}" for i in items]
        else:
            for i in items:
                # The engine's reason says why (published vs now, which input is missing, since when).
                why = ((S(i["reason"]),) if i.get("reason")
                       else ("published ", S(_shown(i, "published")), ", now ", S(_shown(i, "current"))))
                lines.append(_L(f"- {i['claim_id']}: {i['previous_status'] or 'new'} -> {status}: ", *why))
        lines += _hold_note(held, cfg)
        change = f"{status}|{','.join(held_subjects)}|{run.run_id}" + (f"|failing:{','.join(failing)}" if failing else "")
        title = f"{page}: {name} {was} -> {status}" + (f" ({', '.join(failing)} failing)" if failing else "")
        out.append(Alert("claim_status", page, change, run.run_id, title, lines,
                         {"page": page, "status": status, "claims": items, "held_for": held,
                          "failing_sources": list(failing)},
                         "success" if status == "holds" else "warning"))
    return out


def claim_status_basis(con, run: _Run, cfg: AlertConfig) -> list[dict]:
    """Per claim of the run: its failing sources now (also through the claims it is computed
    from), whether that is a short outage (quiet), and its last status that counts."""
    edges = dependencies()
    return _rows(con, sql("claim_status_basis"), [run.run_id, run.seq, cfg.failed_runs_threshold,
                                                  [c for c, _ in edges], [r for _, r in edges],
                                                  cfg.failed_runs_threshold + 2])


def dependencies() -> list[tuple[str, str]]:
    """(claim, a claim it is computed from), from rules/."""
    from pricewatch.claims.rules import cached_rules, refs
    return sorted({(c.id, r) for c in cached_rules().claims.values() for r in refs(c)})


def _source_line(con, run: _Run, provider: str) -> tuple[str, str]:
    """One line per failing source: how long, since when, its latest error (once)."""
    rows = [h for h in _rows(con, sql("provider_history"), [run.seq, run.run_id]) if h["provider"] == provider]
    streak = _streak(rows)
    since = f" since {streak[-1]['observed_at']:{UTC_FMT}}" if streak else ""
    error = _unprefixed(provider, streak[0]["error"] if streak else None)
    return _L("- ", S(provider), f": {len(streak)} failed runs in a row{since}; latest error: ", S(error))

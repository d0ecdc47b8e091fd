"""claim_status alerts: claims of a page that went holds / drifted / unverifiable.

A first failed night does not page. A claim that is unverifiable only because its sources
failed fewer than `failed_runs_threshold` runs in a row is left out of claim_status alerts (a
status no one was told is not a status the claim had). Once a source reaches the threshold,
one alert per page lists those claims, naming the failing source and its error once.
"""

from __future__ import annotations

import json

from pricewatch.alerts.model import Alert, _Run
from pricewatch.alerts.observe import _held, _hold_note
from pricewatch.alerts.render import UTC_FMT, S, _L, _shown
from pricewatch.alerts.sources import _streak, _unprefixed
from pricewatch.alerts.store import _rows
from pricewatch.config import AlertConfig


def _claim_status(con, run: _Run, moves: dict, cfg: AlertConfig) -> list[Alert]:
    """One alert per page and new status, listing each claim that changed (a price move
    often flips several cells of one table); claims resting on a suspect reading are held in
    an alert of their own. A claim unverifiable only because its sources failed fewer than
    failed_runs_threshold runs in a row is not news yet (nor is that status compared against
    later); once they reach it, the claims it made unverifiable share one alert per page that
    names those sources and their error once."""
    if not run.claims:
        return []
    refuted = set()
    for a in _rows(con, """SELECT run_id, details FROM alerts WHERE kind = 'claim_status' AND state = 'suppressed'
                           AND json_extract_string(details, '$.suppressed_because') IS NULL"""):
        refuted |= {(a["run_id"], c["claim_id"]) for c in json.loads(a["details"])["claims"]}
    history = _rows(con, """SELECT e.*, s.seq FROM claim_evaluations e JOIN run_sequence s USING (run_id)
                            WHERE s.seq < ? ORDER BY s.seq DESC""", [run.seq])
    streaks = _failure_streaks(con, run.seq)
    quiet_runs = {r for runs in streaks.values() for r, n in runs.items() if 0 < n < cfg.failed_runs_threshold}
    causes = _failing_causes(con, quiet_runs | {run.run_id})

    def cause(run_id: str, ev: dict) -> tuple[str, ...] | None:
        """The failing sources that alone make this evaluation unverifiable, else None."""
        found = causes.get((run_id, ev["claim_id"]))
        if ev["status"] != "unverifiable" or not found or found[1]:
            return None
        return found[0]

    def quiet(run_id: str, ev: dict) -> bool:
        c = cause(run_id, ev)
        return bool(c) and all(streaks.get(p, {}).get(run_id, 0) < cfg.failed_runs_threshold for p in c)

    before, verified = {}, set()
    for ev in history:  # a status only a refuted reading or a short outage gave is not a status the claim had
        if (ev["run_id"], ev["claim_id"]) not in refuted and not quiet(ev["run_id"], ev):
            before.setdefault(ev["claim_id"], ev)
            if ev["status"] != "unverifiable":
                verified.add(ev["claim_id"])
    # Never verified so far (its source not yet seen): its first real status is like a new claim's.
    before = {c: ev for c, ev in before.items() if c in verified}
    uses = {}
    for i in run.inputs:
        if i["run_id"] == run.run_id:
            uses.setdefault(i["claim_id"], set()).add(f"{i['provider']}/{i['offer_key']}")
    groups: dict[tuple, list[dict]] = {}
    for claim_id, ev in sorted(run.claims.items()):
        if quiet(run.run_id, ev):
            continue
        old = before.get(claim_id)
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
            lines += [_source_line(con, run, p, streaks) for p in failing]
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


def _failure_streaks(con, upto_seq: int) -> dict[str, dict[str, int]]:
    """provider -> {run_id: how many runs in a row it had failed by that run (0: it worked)};
    a provider not attempted in a run neither failed nor worked there."""
    out: dict[str, dict[str, int]] = {}
    streak: dict[str, int] = {}
    for provider, run_id, status in con.execute(
            """SELECT pr.provider, pr.run_id, pr.status FROM provider_runs pr JOIN run_sequence s USING (run_id)
               WHERE pr.status <> 'not attempted' AND s.seq <= ? ORDER BY s.seq""", [upto_seq]).fetchall():
        streak[provider] = 0 if status == "ok" else streak.get(provider, 0) + 1
        out.setdefault(provider, {})[run_id] = streak[provider]
    return out


def _failing_causes(con, run_ids: set[str]) -> dict[tuple[str, str], tuple[tuple[str, ...], bool]]:
    """(run, claim) -> (sources whose failure made an input unusable, whether any other input
    was unusable for another reason: missing, unpriced, never seen)."""
    if not run_ids:
        return {}
    out = {}
    for run_id, claim_id, failed, other in con.execute(f"""
            SELECT run_id, claim_id, list(DISTINCT provider ORDER BY provider) FILTER (WHERE input_status = 'failed'),
                   bool_or(input_status NOT IN ('ok', 'failed'))
            FROM claim_inputs WHERE input_status <> 'ok' AND run_id IN ({', '.join('?' * len(run_ids))})
            GROUP BY 1, 2""", sorted(run_ids)).fetchall():
        out[(run_id, claim_id)] = (tuple(failed or ()), bool(other))
    return out


def _source_line(con, run: _Run, provider: str, streaks: dict) -> tuple[str, str]:
    """One line per failing source: how long, since when, its latest error (once)."""
    rows = _rows(con, """SELECT pr.run_id, pr.status, pr.error, pr.observed_at FROM provider_runs pr
                         JOIN run_sequence s USING (run_id)
                         WHERE pr.provider = ? AND s.seq <= ? AND pr.status <> 'not attempted' ORDER BY s.seq DESC""",
                    [provider, run.seq])
    streak = _streak(rows)
    since = f" since {streak[-1]['observed_at']:{UTC_FMT}}" if streak else ""
    error = _unprefixed(provider, streak[0]["error"] if streak else None)
    return _L("- ", S(provider), f": {len(streak)} failed runs in a row{since}; latest error: ", S(error))

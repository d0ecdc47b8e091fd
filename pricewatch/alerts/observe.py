"""Price observations and suspect readings.

Only successful provider runs are observations: a failed provider run stores no offers, so it
can neither move a price nor make an offer disappear. A price move beyond the plausibility
bound makes every alert it causes `suspect` (details.held_for names the reading): held until
the provider's next successful run shows the same price (then `pending`) or another one (then
`suppressed`, and the move is judged again from the last trusted price).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from decimal import Decimal

from pricewatch.alerts.model import _Run
from pricewatch.alerts.render import _L, UTC_FMT, S, _cap, _dec, _money
from pricewatch.alerts.store import _dumps, _rows
from pricewatch.claims.readings import trusted_readings
from pricewatch.record.config import AlertConfig


def prefetch(con, run: _Run, subjects: set[tuple[str, str]]) -> None:
    """Reads, for every offer in subjects, its trusted reading in this run (if any) and its last
    trusted reading before it into run.observations (newest first), in a few bounded queries
    (pricewatch/claims/readings.py), and which providers ran ok."""
    if run.ok_providers is None:
        run.ok_providers = {p for (p,) in con.execute(
            "SELECT provider FROM provider_runs WHERE run_id = ? AND trusted", [run.run_id]).fetchall()}
    todo = sorted(s for s in subjects if s not in run.observations)
    if not todo:
        return
    found = trusted_readings(con, [(p, k, run.run_id) for p, k in todo])
    for p, k in todo:
        run.observations[(p, k)] = [r for r in found.get((p, k, run.run_id), (None, None)) if r is not None]


def _observations(con, run: _Run, provider: str, offer_key: str) -> tuple[dict | None, dict | None, bool]:
    """(this run's observation, the last one before it, whether the provider ran ok now)."""
    prefetch(con, run, {(provider, offer_key)})
    ok_now = provider in run.ok_providers
    obs = run.observations[(provider, offer_key)]
    cur = obs[0] if obs and obs[0]["run_id"] == run.run_id else None
    before = [o for o in obs if o["run_id"] != run.run_id]
    return cur, (before[0] if before else None), ok_now


def _resolve_suspects(con, run: _Run, counts: dict) -> dict[str, dict]:
    """Decides the suspect alerts of earlier runs with this run's observations. Returns, per
    held reading, {held, baseline..., outcome: confirmed | refuted}. An alert already resolved
    by this very run is read again (not changed), so deriving a run twice gives one answer."""
    held = _rows(con, """
        SELECT a.* FROM alerts a JOIN run_sequence s USING (run_id)
        WHERE s.seq < ? AND (a.state = 'suspect' OR json_extract_string(a.details, '$.resolved_by_run') = ?)
        ORDER BY s.seq, a.alert_id""", [run.seq, run.run_id])
    out: dict[str, dict] = {}
    for a in held:
        details = json.loads(a["details"])
        outcomes = {}
        for subject, reading in details["held_for"].items():
            provider, offer_key = subject.split("/", 1)
            cur, _, ok_now = _observations(con, run, provider, offer_key)
            if not ok_now or cur is None or not cur["is_priced"]:
                continue  # not observed: still undecided
            same = cur["price_per_hour"] == Decimal(str(reading["held_price"]))
            outcomes[subject] = "confirmed" if same else "refuted"
            out[subject] = {**reading, "outcome": outcomes[subject], "now": cur["price_per_hour"]}
        if "refuted" in outcomes.values():
            state = "suppressed"
        elif len(outcomes) == len(details["held_for"]):
            state = "pending"
        else:
            continue
        notes = [_L(S(s), f": {'confirmed' if o == 'confirmed' else 'not confirmed'} by the run of "
                    f"{run.observed_at:{UTC_FMT}} (${_money(out[s]['now'])}/h)") for s, o in sorted(outcomes.items())]
        details.update(resolved_by_run=run.run_id, resolution=state)
        if "body_markdown" in details:
            details["body_markdown"] = _cap((details["body_markdown"] + "\n" + "; ".join(m for _, m in notes)
                                             + ".").split("\n"))
        changed = con.execute(
            """UPDATE alerts SET state = ?, body = ?, details = ?, updated_at = ?
               WHERE alert_id = ? AND state = 'suspect' RETURNING alert_id""",
            [state, _cap((a["body"] + "\n" + "; ".join(p for p, _ in notes) + ".").split("\n")), _dumps(details),
             datetime.now(timezone.utc), a["alert_id"]]).fetchall()
        if changed:
            counts["confirmed" if state == "pending" else "suppressed"] += 1
    return out


def _moves(con, run: _Run, resolutions: dict, cfg: AlertConfig) -> dict[str, dict]:
    """Price moves of every offer a claim used (this run or the previous evaluation), from the
    last trusted price: a refuted suspect reading is not a price the offer ever had."""
    out = {}
    for provider, offer_key in sorted({(i["provider"], i["offer_key"]) for i in run.inputs}):
        subject = f"{provider}/{offer_key}"
        cur, before, ok_now = _observations(con, run, provider, offer_key)
        if not ok_now or cur is None or before is None or not cur["is_priced"]:
            continue  # failed source: nothing observed; gone or unpriced: see _disappeared
        res = resolutions.get(subject)
        if res and res["outcome"] == "confirmed":
            continue  # the held alerts carry this move
        if res:
            base = {"price_per_hour": _dec(res["old_price"]), "price_per_gpu_hour": res["old_price_per_gpu_hour"],
                    "price_text": None, "observed_at": datetime.fromisoformat(res["old_observed_at"]),
                    "run_id": res["old_run_id"]}
        else:
            base = {k: before[k] for k in ("price_per_hour", "price_per_gpu_hour", "price_text", "observed_at", "run_id")}
        old, new = base["price_per_hour"], cur["price_per_hour"]
        if old == new:
            continue
        pct = None if old is None else round(float((new - old) / old * 100), 2)
        # A move the quality gate let through (confirmed by a second run, or by the market)
        # has been checked already: it is not held a second time here.
        out[subject] = {"cur": cur, "base": base, "pct": pct,
                        "suspect": pct is not None and abs(pct) > cfg.plausibility_pct and not cur.get("screen_note")}
    return out


def _held(moves: dict, subjects) -> dict:
    """details.held_for: the suspect readings an alert waits on."""
    out = {}
    for s in sorted(set(subjects)):
        m = moves.get(s)
        if m and m["suspect"]:
            b = m["base"]
            out[s] = {"held_price": m["cur"]["price_per_hour"], "old_price": b["price_per_hour"],
                      "old_price_per_gpu_hour": b["price_per_gpu_hour"], "old_observed_at": b["observed_at"],
                      "old_run_id": b["run_id"], "percent": m["pct"], "first_seen": bool(m.get("first_seen"))}
    return out


def _hold_note(held: dict, cfg: AlertConfig) -> list:
    if not held:
        return []
    parts: list = ["Held as suspect: "]
    for n, (s, h) in enumerate(held.items()):
        how = (f" first seen at ${_money(h['held_price'])}/h, {h['percent']:+.2f}% from the price it undercuts"
               if h.get("first_seen") else f" moved {h['percent']:+.2f}%")
        parts += ([", "] if n else []) + [S(s), how]
    return [_L(*parts, f", beyond the {cfg.plausibility_pct:g}% plausibility bound; "
                       "sent only once the next run shows the same price.")]

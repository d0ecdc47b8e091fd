"""held_reading: a reading the quality gate holds on an offer a claim cites goes to a person
(issue 20, item 4).

The gate holds a reading outside its model's plausible band (a 10x typo, a -90 % glitch), a
move it cannot confirm yet, a unit switch, or a never-trusted offer below a cited price. The
claims keep the offer's last trusted reading meanwhile; if nobody looks, a real price war never
reaches the pages and a real typo never reaches a person. So:

- the first night a cited offer (an input of a claim of this run or of the previous
  evaluation, or a held offer that would undercut a "cheapest" claim's pick) reads a held
  reading that only a person can release (outside the band, a unit switch, an unreadable cell),
  the page digest carries it as "held: needs a look", with its evidence and the
  `pricewatch offers accept|reject` commands; a move the gate holds until the provider's next
  run confirms it is left to that run (SELF_RELEASING), and told only if the repeat still holds it;
- when the provider's next successful run repeats the same held reading, it is told once more,
  escalated (fingerprint: the first run of the streak: told once, not every night);
- a decision (offer_decisions, pricewatch/claims/decisions.py) or the gate's own release
  (confirmed by the next run, or corroborated by other providers' moves: the reading is then not
  held at all) ends it: nothing more is told.
"""

from __future__ import annotations

from pricewatch.alerts.evidence_links import evidence_command
from pricewatch.alerts.model import Alert, _Run
from pricewatch.alerts.observe import _observations
from pricewatch.alerts.prices import _citing_claims
from pricewatch.alerts.render import _L, UTC_FMT, S, _claim_lines, _evidence, _money
from pricewatch.alerts.store import _rows, sql
from pricewatch.claims.decisions import decision_in_force

#: How many of a provider's earlier successful runs are read to count a held streak.
STREAK_RUNS = 30

#: The quality gate's words for a hold its own next run decides (a move of 25 % or more, a
#: never-trusted offer below a cited price: the same price again confirms it, another one refutes
#: it; pricewatch/collect/gate.py). Such a hold needs no person on its first night: it is told
#: only if a repeat leaves it held. Every other hold (outside the plausible band, a unit switch, a
#: cell that could not be read) waits for a person, and is told at once.
SELF_RELEASING = "until the provider's next run confirms it"


def offer_command(decision: str, provider: str, offer_key: str, run_id: str) -> str:
    import shlex
    return shlex.join(["pricewatch", "offers", decision, offer_key, "--provider", provider, "--run", run_id])


def _held_now(con, run: _Run) -> list[dict]:
    """This run's held readings (of ok provider runs) of offers the claims cite, or that would
    undercut a "cheapest" claim's pick of their comparable class (the gate's "first seen below a
    cited price")."""
    cited = sorted({(i["provider"], i["offer_key"]) for i in run.inputs})
    groups = sorted({(i["comparable_class"], i["gpu_count"], i["billing"]) for i in run.inputs
                     if i["role"] == "cheapest" and i["comparable_class"] is not None})
    return _rows(con, """
        SELECT o.*, comparable_class(o.gpu_model, o.form_factor) AS comparable_class
        FROM offers o JOIN provider_runs pr USING (run_id, provider)
        WHERE o.run_id = ? AND pr.trusted AND o.held_reason IS NOT NULL
          AND (list_contains(?::STRUCT(provider VARCHAR, offer_key VARCHAR)[], {'provider': o.provider, 'offer_key': o.offer_key})
               OR list_contains(?::STRUCT(comparable_class VARCHAR, gpu_count INTEGER, billing VARCHAR)[],
                                {'comparable_class': comparable_class(o.gpu_model, o.form_factor),
                                 'gpu_count': o.gpu_count, 'billing': o.billing}))
        ORDER BY o.provider, o.offer_key""",
                 [run.run_id, [{"provider": p, "offer_key": k} for p, k in cited],
                  [{"comparable_class": c, "gpu_count": n, "billing": b} for c, n, b in groups]])


def _streak(con, run: _Run, h: dict) -> list[str]:
    """The runs (oldest first, ending with this one) of the provider's successful runs in a row
    that held this offer at the same price."""
    rows = _rows(con, sql("held_streak"), [h["offer_key"], h["provider"], run.seq, STREAK_RUNS])
    streak = [run.run_id]
    for r in rows:
        if not r["held"] or r["price_per_hour"] != h["price_per_hour"]:
            break
        streak.insert(0, r["run_id"])
    return streak


def _claims_of(run: _Run, h: dict) -> list[dict]:
    claims = _citing_claims(run, h["provider"], h["offer_key"])
    if claims:
        return claims
    # A never-trusted offer held below a cited price: the "cheapest" claims of its comparable class.
    out = {}
    for i in run.inputs:
        if i["role"] == "cheapest" and (i["comparable_class"], i["gpu_count"], i["billing"]) == \
                (h["comparable_class"], h["gpu_count"], h["billing"]):
            ev = run.claims.get(i["claim_id"], {})
            out.setdefault(i["claim_id"], {"claim_id": i["claim_id"], "input": i["input_name"], "role": "undercut",
                                           "page": ev.get("page"), "status": ev.get("status"),
                                           "published_text": ev.get("published_text"),
                                           "current_text": ev.get("current_text"),
                                           "published_value": ev.get("published_value"),
                                           "current_value": ev.get("current_value")})
    return [out[k] for k in sorted(out)]


def _held_readings(con, run: _Run) -> list[Alert]:
    out = []
    for h in _held_now(con, run):
        provider, offer_key = h["provider"], h["offer_key"]
        if decision_in_force(con, provider, offer_key, run.run_id):
            continue   # decided: accepted (it is the price) or rejected (kept out): nothing to ask
        streak = _streak(con, run, h)
        nights = len(streak)
        escalated = nights >= 2
        if nights > 2:
            continue   # told when first held and once more when repeated: not every night
        if nights == 1 and SELF_RELEASING in (h["held_reason"] or ""):
            continue   # the provider's next run decides it (pricewatch/alerts/observe.py tells the outcome)
        claims = _claims_of(run, h)
        _, before, _ = _observations(con, run, provider, offer_key)
        shown = f"${_money(h['price_per_hour'])}/h" if h["price_per_hour"] is not None else repr(h["price_text"])
        trusted = (f"${_money(before['price_per_hour'])}/h (seen {before['observed_at']:{UTC_FMT}})"
                   if before and before["price_per_hour"] is not None else None)
        accept = offer_command("accept", provider, offer_key, run.run_id)
        reject = offer_command("reject", provider, offer_key, run.run_id)
        evidence = evidence_command(offer_key, provider, run.run_id)
        head = "Held again, still needs a look" if escalated else "Held: needs a look"
        lines = [_L(f"{head}: ", S(provider), " offer ", S(offer_key), f" reads {shown} as of "
                    f"{run.observed_at:{UTC_FMT}}", f" ({nights} runs in a row)" if escalated else "", "; held: ",
                    S(h["held_reason"]), "."),
                 _L("The claims keep the last trusted price" + (f" {trusted}" if trusted else "") +
                    " until the reading is decided."),
                 *_claim_lines(claims), _evidence(h), f"Evidence: {evidence}",
                 f"Accept (it is the price): {accept}", f"Reject (keep it out): {reject}"]
        details = {"provider": provider, "offer_key": offer_key, "gpu_model": h["gpu_model"],
                   "comparable_class": h["comparable_class"], "gpu_count": h["gpu_count"], "billing": h["billing"], "held_price_per_hour": h["price_per_hour"],
                   "price_text": h["price_text"], "held_reason": h["held_reason"], "observed_at": h["observed_at"],
                   "offer_run_id": h["run_id"], "source_url": h["source_url"], "warc_file": h["warc_file"],
                   "warc_record_id": h["warc_record_id"],
                   "trusted_price_per_hour": before["price_per_hour"] if before else None,
                   "trusted_observed_at": before["observed_at"] if before else None,
                   "first_run_id": streak[0], "nights": nights, "escalated": escalated, "claims": claims,
                   "evidence_command": evidence, "accept_command": accept, "reject_command": reject}
        change = f"{'escalated' if escalated else 'held'}|{h['price_per_hour']}|{h['price_text']}|{streak[0]}"
        title = (f"{'Still held' if escalated else 'Held'}: {provider} {offer_key} reads {shown}, needs a look")
        out.append(Alert("held_reading", f"{provider}/{offer_key}", change, run.run_id, title, lines, details))
    return out

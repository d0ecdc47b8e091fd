"""Alerts on the offers the pages cite: price_changed, offer_disappeared, undercut.

Undercuts: the claims engine never picks a reading the quality gate holds; a pick that is
itself held is skipped here too, and a competitor offer seen for the first time that undercuts
a cited price by more than the plausibility bound is held as suspect like a jump.
"""

from __future__ import annotations

from pricewatch.alerts.model import Alert, _Run
from pricewatch.alerts.observe import _held, _hold_note, _observations
from pricewatch.alerts.render import _L, UTC_FMT, S, _claim_lines, _evidence, _money
from pricewatch.alerts.store import _rows
from pricewatch.record.config import AlertConfig

CITING_ROLES = ("cited", "own")  # the page names this very offer; 'cheapest' picks may rotate


def _watched(run: _Run, roles=None) -> list[tuple[str, str]]:
    """The offers the pages cited before this run: the previous evaluation's inputs (this
    one's, for a first evaluation). An offer that only now became a "cheapest" pick is news
    as an undercut, not as a price change."""
    basis = run.previous_eval or run.run_id
    return sorted({(i["provider"], i["offer_key"]) for i in run.inputs
                   if i["run_id"] == basis and (roles is None or i["role"] in roles)})


def _citing_claims(run: _Run, provider: str, offer_key: str) -> list[dict]:
    """Every claim that uses the offer: in this run's evaluation, else in the previous one."""
    mine = [i for i in run.inputs if (i["provider"], i["offer_key"]) == (provider, offer_key)]
    current = [i for i in mine if i["run_id"] == run.run_id] or mine
    out = {}
    for i in current:
        ev = run.claims.get(i["claim_id"], {})
        out.setdefault((i["claim_id"], i["input_name"]), {
            "claim_id": i["claim_id"], "input": i["input_name"], "role": i["role"], "page": ev.get("page"),
            "status": ev.get("status"), "published_text": ev.get("published_text"),
            "current_text": ev.get("current_text"), "published_value": ev.get("published_value"),
            "current_value": ev.get("current_value")})
    return [out[k] for k in sorted(out)]


def _price_alerts(con, run: _Run, moves: dict, cfg: AlertConfig) -> list[Alert]:
    out = []
    for provider, offer_key in _watched(run):
        subject = f"{provider}/{offer_key}"
        if subject not in moves or moves[subject].get("first_seen"):
            continue
        m = moves[subject]
        cur, base, pct = m["cur"], m["base"], m["pct"]
        old, new = base["price_per_hour"], cur["price_per_hour"]
        claims = _citing_claims(run, provider, offer_key)
        held = _held(moves, [subject])
        was = S(f"${_money(old)}/h" if old is not None else repr(base.get("price_text") or "unpriced"))
        move = f" ({pct:+.2f}%)" if pct is not None else ""
        lines = [_L(S(provider), " offer ", S(offer_key), " (", S(cur["gpu_model"] or cur["gpu_label"]),
                    f" x{cur['gpu_count']}, ", S(cur["billing"]), ", tier ", S(cur["tier"]), ")"),
                 _L("was ", was, f" (seen {base['observed_at']:{UTC_FMT}}), now ${_money(new)}/h "
                    f"(seen {cur['observed_at']:{UTC_FMT}}){move}.")]
        if cur.get("screen_note"):
            lines.append(_L("Checked by the quality gate: ", S(cur["screen_note"]), "."))
        lines += _hold_note(held, cfg) + _claim_lines(claims) + [_evidence(cur)]
        details = {"provider": provider, "offer_key": offer_key, "gpu_model": cur["gpu_model"],
                   "gpu_count": cur["gpu_count"], "billing": cur["billing"], "tier": cur["tier"],
                   "old_price_per_hour": old, "new_price_per_hour": new,
                   "old_price_per_gpu_hour": base["price_per_gpu_hour"], "new_price_per_gpu_hour": cur["price_per_gpu_hour"],
                   "percent": pct, "old_observed_at": base["observed_at"], "new_observed_at": cur["observed_at"],
                   "old_run_id": base["run_id"], "claims": claims, "held_for": held, "screen_note": cur.get("screen_note"),
                   "source_url": cur["source_url"], "warc_file": cur["warc_file"], "warc_record_id": cur["warc_record_id"]}
        out.append(Alert("price_changed", subject, run.run_id, run.run_id,
                         f"Price changed: {provider} {offer_key} {was} -> ${_money(new)}/h{move}", lines, details))
    return out


def _disappeared(con, run: _Run) -> list[Alert]:
    out = []
    for provider, offer_key in _watched(run, CITING_ROLES):
        cur, before, ok_now = _observations(con, run, provider, offer_key)
        if not ok_now or before is None or not before["is_priced"] or (cur is not None and cur["is_priced"]):
            continue
        if cur is None and con.execute("SELECT count(*) FROM offers WHERE run_id = ? AND provider = ? AND offer_key = ?",
                                       [run.run_id, provider, offer_key]).fetchone()[0]:
            continue  # listed, with a reading the quality gate holds: not gone
        # News once: only when the offer was there in the provider's previous successful run.
        prev_ok = _rows(con, """SELECT pr.run_id FROM provider_runs pr JOIN run_sequence s USING (run_id)
                                WHERE pr.provider = ? AND pr.trusted AND s.seq < ?
                                ORDER BY s.seq DESC LIMIT 1""", [provider, run.seq])
        if not prev_ok or prev_ok[0]["run_id"] != before["run_id"]:
            continue
        how = "is no longer listed" if cur is None else f"is no longer priced ({cur['price_text']!r})"
        claims = _citing_claims(run, provider, offer_key)
        lines = [_L(S(provider), " offer ", S(offer_key), " (", S(before["gpu_model"] or before["gpu_label"]),
                    f" x{before['gpu_count']}, tier ", S(before["tier"]), ") ", S(how),
                    f" as of {run.observed_at:{UTC_FMT}}; last seen at ${_money(before['price_per_hour'])}/h on "
                    f"{before['observed_at']:{UTC_FMT}}.")]
        lines += _claim_lines(claims) + [_evidence(before)]
        details = {"provider": provider, "offer_key": offer_key, "last_price_per_hour": before["price_per_hour"],
                   "last_seen_at": before["observed_at"], "last_run_id": before["run_id"],
                   "price_text": cur["price_text"] if cur else None, "claims": claims}
        out.append(Alert("offer_disappeared", f"{provider}/{offer_key}", run.run_id, run.run_id,
                         f"Cited offer gone: {provider} {offer_key} {how}", lines, details))
    return out


def _undercut_states(run: _Run, run_id: str) -> dict[tuple[str, str], tuple[dict, dict]]:
    """(claim, input prefix) -> (cited input, cheaper pick) where a claim's cheapest pick is an
    offer other than the one it cites, at a lower price."""
    groups: dict[tuple[str, str], dict[str, dict]] = {}
    for i in run.inputs:
        if i["run_id"] == run_id and i["role"] in ("cited", "cheapest"):
            prefix = i["input_name"].rsplit(": ", 1)[0] if ": " in i["input_name"] else ""
            groups.setdefault((i["claim_id"], prefix), {})[i["role"]] = i
    out = {}
    for key, g in groups.items():
        cited, pick = g.get("cited"), g.get("cheapest")
        if (cited and pick and cited["input_status"] == "ok" and pick["price_per_hour"] is not None
                and (pick["provider"], pick["offer_key"]) != (cited["provider"], cited["offer_key"])
                and pick["price_per_hour"] < cited["price_per_hour"]):
            out[key] = (cited, pick)
    return out


def _screen_first_seen(con, run: "_Run", moves: dict, cfg: AlertConfig) -> None:
    """A competitor offer seen for the first time (no earlier trusted reading) that undercuts a
    cited price by more than the plausibility bound is held like a jump: a placeholder on a new
    tier is likelier than a two-thirds price cut. Added to moves as a suspect first-seen move."""
    if not run.previous_eval:
        return   # a first evaluation: everything is first seen, and nothing is news yet
    for cited, pick in _undercut_states(run, run.run_id).values():
        s = f"{pick['provider']}/{pick['offer_key']}"
        if s in moves:
            continue
        cur, before, ok_now = _observations(con, run, pick["provider"], pick["offer_key"])
        if not ok_now or cur is None or before is not None or not cur["is_priced"]:
            continue
        pct = round(float((pick["price_per_hour"] - cited["price_per_hour"]) / cited["price_per_hour"] * 100), 2)
        if -pct > cfg.plausibility_pct and not cur.get("screen_note"):
            moves[s] = {"cur": cur, "pct": pct, "suspect": True, "first_seen": True,
                        "base": {"price_per_hour": None, "price_per_gpu_hour": None, "price_text": None,
                                 "observed_at": None, "run_id": None}}


def _undercut(con, run: _Run, moves: dict, cfg: AlertConfig) -> list[Alert]:
    """One alert per (cited offer, competitor) that newly undercuts it, listing every claim
    whose cheapest pick moved that way. A pick whose reading the quality gate holds is no
    undercut (the claims engine never picks one; checked here again)."""
    now = _undercut_states(run, run.run_id)
    before = _undercut_states(run, run.previous_eval) if run.previous_eval else {}
    groups: dict[tuple[str, str], list] = {}
    for key, (cited, pick) in sorted(now.items()):
        old = before.get(key)
        if old and (old[1]["provider"], old[1]["offer_key"]) == (pick["provider"], pick["offer_key"]):
            continue
        if con.execute("""SELECT count(*) FROM offers WHERE run_id = ? AND provider = ? AND offer_key = ?
                          AND held_reason IS NOT NULL""",
                       [pick.get("offer_run_id"), pick["provider"], pick["offer_key"]]).fetchone()[0]:
            continue
        groups.setdefault((f"{cited['provider']}/{cited['offer_key']}", f"{pick['provider']}/{pick['offer_key']}"),
                          []).append((key, cited, pick))
    out = []
    for (cited_s, pick_s), items in sorted(groups.items()):
        _, cited, pick = items[0]
        pct = round(float((pick["price_per_hour"] - cited["price_per_hour"]) / cited["price_per_hour"] * 100), 2)
        claims = [c for c in _citing_claims(run, pick["provider"], pick["offer_key"])
                  if any(c["claim_id"] == k[0] for k, _, _ in items)]
        held = _held(moves, [pick_s])
        lines = [_L("The cheapest ", S(pick["comparable_class"] or pick["gpu_model"]), f" x{pick['gpu_count']} ", S(pick["billing"]),
                    " offer is now ", S(pick["provider"]), " ", S(pick["offer_key"]),
                    f" at ${_money(pick['price_per_hour'])}/h, {-pct:.2f}% below the cited ", S(cited["provider"]),
                    " ", S(cited["offer_key"]), f" at ${_money(cited['price_per_hour'])}/h "
                    f"(seen {pick['observed_at']:{UTC_FMT}}).")]
        note = con.execute("SELECT screen_note FROM offers WHERE run_id = ? AND provider = ? AND offer_key = ?",
                           [pick.get("offer_run_id"), pick["provider"], pick["offer_key"]]).fetchone()
        if note and note[0]:
            lines.append(_L("Checked by the quality gate: ", S(note[0]), "."))
        lines += _hold_note(held, cfg) + _claim_lines(claims) + [_evidence(pick)]
        details = {"cited_provider": cited["provider"], "cited_offer_key": cited["offer_key"],
                   "cited_price_per_hour": cited["price_per_hour"], "provider": pick["provider"],
                   "offer_key": pick["offer_key"], "price_per_hour": pick["price_per_hour"],
                   "price_per_gpu_hour": pick["price_per_gpu_hour"], "percent": pct, "gpu_model": pick["gpu_model"],
                   "comparable_class": pick["comparable_class"],
                   "gpu_count": pick["gpu_count"], "claims": claims, "held_for": held, "seen_at": pick["observed_at"],
                   "screen_note": note[0] if note else None,
                   "source_url": pick["source_url"], "warc_file": pick["warc_file"], "warc_record_id": pick["warc_record_id"]}
        out.append(Alert("undercut", cited_s, f"{pick_s}|{run.run_id}", run.run_id,
                         f"Undercut: {pick['provider']} {pick['offer_key']} ${_money(pick['price_per_hour'])}/h is below "
                         f"the cited {cited['provider']} {cited['offer_key']} ${_money(cited['price_per_hour'])}/h",
                         lines, details))
    return out

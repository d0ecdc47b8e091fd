"""Messages from alert events: what an editor receives (table alert_messages).

The events of a run (alerts) are grouped into one message per thing to act on:

- page_digest (one per run and page): every sentence (claim) of the page the run changed, with
  its text, published / was / now, the direction (cheaper, dearer, claim now false, claim true
  again, cannot be checked) and why: each cited price that moved, at which provider, seen when
  (the reading's observed_at), with a link to the archived evidence and the `pricewatch
  evidence` command. Claims that cite a moved price but still read the same are counted, not
  listed. A price moving back down is never a warning by itself: the type is `warning` only
  when a claim is now false, cannot be checked or a cited offer is gone.
- source_outage (one per source and failure streak): how many claims it leaves unverifiable,
  per page, its error once, and where the report is; never one line per claim.
- source_recovered: the source works again, with the claims that are true again (said once:
  their claim_status events are folded in here, not into the page digest).
- rule_change (one per page and rules version), new_gpu_label (one per label).

Muted events are attached to the message but not told; a group of muted events only is stored
as a `muted` message, never sent. Message ids hash kind, subject, run and the events carried,
so composing again adds nothing.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone

from pricewatch.alerts import templating
from pricewatch.alerts.evidence_links import evidence_command, evidence_url
from pricewatch.alerts.model import _Run
from pricewatch.alerts.pageinfo import page_info, provider_name, sentence_of
from pricewatch.alerts.store import _dumps, _rows, sql
from pricewatch.record.config import AlertConfig

PRICE_KINDS = ("price_changed", "undercut", "offer_disappeared")
# What happened to a sentence, in the editor's words (issue 21): its number moved and the page
# regenerated it (updated), a relation it states no longer holds (now false), it reads as
# published again (true again), it cannot be checked (no longer checked), or it can again.
UPDATED, NOW_FALSE, TRUE_AGAIN, UNCHECKABLE, CHECKED_AGAIN = (
    "updated", "now false", "true again", "no longer checked", "checked again")
#: Claim kinds that state a relation (true or false), not a number: drifted means "now false".
RELATION_KINDS = {"fits", "same", "less"}
#: Claim kinds whose value is a price: a move is cheaper / dearer.
PRICE_KINDS_OF_CLAIMS = {"own_price", "config_price", "run_cost", "cited_offer", "cheapest_offer", "from_price"}


def compose_messages(con, run: _Run, cfg: AlertConfig) -> int:
    """Composes and stores the messages for every event not yet in one; returns how many."""
    events = _rows(con, sql("uncomposed_events"), [run.seq])
    if not events:
        return 0
    for e in events:
        e["details"] = json.loads(e["details"])
    recovered = {e["subject"] for e in events if e["kind"] == "source_recovered"}
    groups: dict[tuple[str, str], list[dict]] = {}
    for e in events:
        for key in _keys(con, run, e, recovered):
            groups.setdefault(key, []).append(e)
    made = 0
    now = datetime.now(timezone.utc)
    for (kind, subject), evs in sorted(groups.items()):
        live = [e for e in evs if e["state"] == "pending"]
        fields = BUILDERS[kind](con, run, cfg, subject, live or evs)
        fields["muted_events"] = len(evs) - len(live)
        ids = sorted({e["alert_id"] for e in evs})
        message_id = hashlib.sha256(f"{kind}|{subject}|{run.run_id}|{','.join(ids)}".encode()).hexdigest()[:12]
        fields.update(message_id=message_id, kind=kind, alert_ids=ids, run_id=run.run_id,
                      observed_at=run.observed_at)
        notify_type = fields.pop("notify_type")
        text = templating.render(kind, fields, cfg)
        inserted = con.execute(
            """INSERT INTO alert_messages (message_id, run_id, kind, subject, state, notify_type, title, body_text,
                                           body_markdown, body_html, payload, alert_ids, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING message_id""",
            [message_id, run.run_id, kind, subject, "pending" if live else "muted", notify_type, text["title"],
             text["txt"], text["md"], text["html"], _dumps(fields), ids, now, now]).fetchall()
        made += bool(inserted)
        con.execute("UPDATE alerts SET message_id = ? WHERE list_contains(?, alert_id) AND message_id IS NULL",
                    [message_id, ids])
    return made


def _keys(con, run: _Run, e: dict, recovered: set[str]) -> list[tuple[str, str]]:
    d, kind = e["details"], e["kind"]
    if kind == "new_gpu_label":
        return [("new_gpu_label", e["subject"])]
    if kind == "source_failing":
        return [("source_outage", e["subject"])]
    if kind == "source_recovered":
        return [("source_recovered", e["subject"])]
    if kind == "rule_change":
        return [("rule_change", e["subject"])]
    if kind in ("page_unchecked", "page_checked_again"):
        return [(kind, e["subject"])]
    if kind == "claim_status":
        if d.get("failing_sources"):
            return [("source_outage", p) for p in d["failing_sources"]]
        back = [c for c in d["claims"] if c.get("previous_status") == "unverifiable"]
        if recovered and d["status"] == "holds" and len(back) == len(d["claims"]):
            used = {p for (p,) in con.execute(
                "SELECT DISTINCT provider FROM claim_inputs WHERE run_id = ? AND list_contains(?, claim_id)",
                [run.run_id, [c["claim_id"] for c in back]]).fetchall()}
            mine = sorted(used & recovered)
            if mine:
                return [("source_recovered", mine[0])]
        return [("page_digest", d["page"])]
    pages = sorted({c.get("page") for c in d.get("claims") or [] if c.get("page")})
    return [("page_digest", p) for p in pages] or [("page_digest", "(no page)")]


def _move(e: dict, cfg: AlertConfig) -> dict:
    d, kind = e["details"], e["kind"]
    provider, offer_key = d["provider"], d["offer_key"]
    if kind == "price_changed":
        old, new, seen, was_seen = d["old_price_per_hour"], d["new_price_per_hour"], d["new_observed_at"], d["old_observed_at"]
        direction = "cheaper" if old is not None and new < old else "dearer" if old is not None else "priced again"
    elif kind == "undercut":
        old, new, seen, was_seen = d["cited_price_per_hour"], d["price_per_hour"], None, None
        direction = "cheaper competitor"
    else:
        old, new, seen, was_seen = d["last_price_per_hour"], None, None, d["last_seen_at"]
        direction = "gone"
    run_of = d.get("offer_run_id") or e["run_id"]
    return {"alert_id": e["alert_id"], "kind": kind, "provider": provider, "provider_name": provider_name(provider),
            "offer_key": offer_key, "gpu_model": d.get("gpu_model"), "gpu_count": d.get("gpu_count"),
            "cited_provider": provider_name(d.get("cited_provider")), "cited_offer_key": d.get("cited_offer_key"),
            "old": old, "new": new, "percent": d.get("percent"), "direction": direction,
            "seen_at": seen or e["details"].get("seen_at") or e["created_at"], "was_seen_at": was_seen,
            "price_text": d.get("price_text"), "confirmed_by_gate": d.get("screen_note"),
            "evidence_url": evidence_url(cfg, d.get("warc_file"), d.get("warc_record_id")),
            "evidence_command": evidence_command(offer_key, provider, run_of if kind != "offer_disappeared"
                                                 else d.get("last_run_id")),
            "claim_ids": sorted({c["claim_id"] for c in d.get("claims") or []})}


def _held(e: dict, cfg: AlertConfig) -> dict:
    """A held reading of a cited offer, as the digest tells it: "held: needs a look" (pricewatch/alerts/held.py)."""
    d = e["details"]
    return {"alert_id": e["alert_id"], "provider": d["provider"], "provider_name": provider_name(d["provider"]),
            "offer_key": d["offer_key"], "held": d.get("held_price_per_hour"), "price_text": d.get("price_text"),
            "trusted": d.get("trusted_price_per_hour"), "reason": d.get("held_reason"), "seen_at": d.get("observed_at"),
            "nights": d.get("nights"), "escalated": bool(d.get("escalated")),
            "evidence_url": evidence_url(cfg, d.get("warc_file"), d.get("warc_record_id")),
            "evidence_command": d.get("evidence_command"), "accept_command": d.get("accept_command"),
            "reject_command": d.get("reject_command"),
            "claim_ids": sorted({c["claim_id"] for c in d.get("claims") or []})}


def _page_digest(con, run: _Run, cfg: AlertConfig, page_id: str, evs: list[dict]) -> dict:
    moves = [_move(e, cfg) for e in evs if e["kind"] in PRICE_KINDS]
    held = [_held(e, cfg) for e in evs if e["kind"] == "held_reading"]
    status_before = {}
    claim_ids = set()
    for e in evs:
        d = e["details"]
        if e["kind"] == "claim_status":
            for c in d["claims"]:
                claim_ids.add(c["claim_id"])
                status_before[c["claim_id"]] = c.get("previous_status")
        else:
            claim_ids |= {c["claim_id"] for c in d.get("claims") or [] if c.get("page") == page_id}
    states = _rows(con, sql("claim_states"), [run.run_id, run.previous_eval, sorted(claim_ids)])
    sentence = sentence_of(page_id, run.claims)
    claims, same = [], 0
    for s in states:
        before = status_before.get(s["claim_id"], s["before_status"])
        was = s["before_text"] if s["before_status"] is not None else s["published_text"]
        mine = [m for m in moves if s["claim_id"] in m["claim_ids"]]
        if (s["claim_id"] not in status_before and s["before_status"] == s["now_status"]
                and s["before_text"] == s["now_text"]):
            same += 1
            continue
        if not was:   # never blank: the last text it had, else the published one
            was = s["published_text"]
        direction = _direction(before, s["now_status"], s["kind"])
        now = s["now_text"] if s["now_text"] is not None else "-"
        claims.append({"claim_id": s["claim_id"], "says": s["says_en"], "says_ja": s["says_ja"],
                       "sentence": sentence(s["claim_id"]), "published": s["published_text"], "was": was,
                       "now": now, "status_before": before, "status": s["now_status"], "direction": direction,
                       "what": _what(direction, s, was, now), "reason": s["reason"],
                       "moved": [m["alert_id"] for m in mine], "evidence_command": evidence_command(s["claim_id"])})
    directions = {c["direction"] for c in claims} | {m["direction"] for m in moves}
    # warning: the published page reads wrong (a number moved, a relation is false, a sentence
    # cannot be checked, a cited offer is gone) or a reading waits for a person
    notify_type = ("warning" if directions & {UPDATED, NOW_FALSE, UNCHECKABLE, "gone"} or held else
                   "success" if claims and directions <= {TRUE_AGAIN, CHECKED_AGAIN, "cheaper", "dearer", "priced again"}
                   and TRUE_AGAIN in directions else "info")
    counts = {d: sum(c["direction"] == d for c in claims) for d in (UPDATED, NOW_FALSE, TRUE_AGAIN, UNCHECKABLE,
                                                                    CHECKED_AGAIN)}
    return {"page": page_info(page_id), "claims": claims, "moves": moves, "held": held, "unchanged_claims": same,
            "now_false": counts[NOW_FALSE], "true_again": counts[TRUE_AGAIN], "updated": counts[UPDATED],
            "unchecked": counts[UNCHECKABLE], "checked_again": counts[CHECKED_AGAIN],
            "counts_line": ", ".join(f"{n} {d}" for d, n in counts.items() if n),
            "notify_type": notify_type}


def _direction(before: str | None, now: str, kind: str | None) -> str:
    """What happened to the sentence (see UPDATED ...)."""
    if now == "unverifiable":
        return UNCHECKABLE
    if now == "holds":
        return CHECKED_AGAIN if before == "unverifiable" else TRUE_AGAIN
    # drifted: the published text no longer reads true
    return NOW_FALSE if kind in RELATION_KINDS else UPDATED


def _what(direction: str, s: dict, was: str, now: str) -> str:
    """The sentence's change in words, with the numbers: "updated: $1.09 → $1.05 (cheaper by
    3.7%)", "now false: <why>", "true again: reads the published $1.09 again", ..."""
    if direction == UPDATED:
        return f"updated: {was} → {now}{_by_how_much(s)}" + ("" if was == s["published_text"] else
                                                           f" (published {s['published_text']})")
    if direction == NOW_FALSE:
        return f"now false: published {s['published_text']}, our prices give {now}" + (
            f"; {s['reason']}" if s.get("reason") else "")
    if direction == TRUE_AGAIN:
        return f"true again: reads the published {s['published_text']} again (was {was})"
    if direction == CHECKED_AGAIN:
        return f"checked again: {now}" + (" as published" if s["now_status"] == "holds" else "")
    return f"no longer checked: {s.get('reason') or 'an input cannot be read'}; the page keeps {s['published_text']}"


def _by_how_much(s: dict) -> str:
    """" (cheaper by 3.7%)" for a price, " (up 2.5%)" for another number; "" when not numbers."""
    old = s.get("before_value") if s.get("before_status") not in (None, "unverifiable") else s.get("published_value")
    new = s.get("now_value")
    try:
        old, new = float(old), float(new)
    except (TypeError, ValueError):
        return ""
    if not old or old == new:
        return ""
    pct = abs(new - old) / abs(old) * 100
    if s.get("kind") in PRICE_KINDS_OF_CLAIMS:
        return f" ({'cheaper' if new < old else 'dearer'} by {pct:.1f}%)"
    return f" ({'up' if new > old else 'down'} {pct:.1f}%)"


def _source_outage(con, run: _Run, cfg: AlertConfig, provider: str, evs: list[dict]) -> dict:
    failing = next((e["details"] for e in evs if e["kind"] == "source_failing"), None)
    from pricewatch.alerts.claims import claim_status_basis
    counts: dict[str, int] = {}
    for b in claim_status_basis(con, run, cfg):
        ev = run.claims.get(b["claim_id"])
        if ev and ev["status"] == "unverifiable" and provider in (b["now_failing"] or ()):
            counts[ev["page"]] = counts.get(ev["page"], 0) + 1
    per_page = [{"page": page_info(p), "claims": n} for p, n in sorted(counts.items())]
    if failing:
        errors, seen = [], set()
        for x in failing["errors"]:
            key = (x["status"], x["error"])
            if key not in seen:
                seen.add(key)
                errors.append({"status": x["status"], "error": _unprefixed(provider, x["error"]),
                               "runs": sum(1 for y in failing["errors"] if (y["status"], y["error"]) == key)})
        streak = {"failed_runs": failing["failed_runs"], "since": failing["since"], "last_ok_at": failing["last_ok_at"]}
    else:
        row = _rows(con, "SELECT status, error FROM provider_runs WHERE run_id = ? AND provider = ?", [run.run_id, provider])
        errors = [{"status": r["status"], "error": _unprefixed(provider, r["error"]), "runs": 1} for r in row]
        streak = {"failed_runs": None, "since": None, "last_ok_at": None}
    return {"provider": provider, "provider_name": provider_name(provider), **streak, "errors": errors,
            "unverifiable": per_page, "unverifiable_total": sum(p["claims"] for p in per_page),
            "threshold": cfg.failed_runs_threshold, "report": cfg.report_url or "report/claims-report.md",
            "report_command": "pricewatch claims --status unverifiable", "notify_type": "failure"}


def _source_recovered(con, run: _Run, cfg: AlertConfig, provider: str, evs: list[dict]) -> dict:
    rec = next((e["details"] for e in evs if e["kind"] == "source_recovered"), {})
    back = [{"claim_id": c["claim_id"], "page": c.get("page")} for e in evs if e["kind"] == "claim_status"
            for c in e["details"]["claims"]]
    return {"provider": provider, "provider_name": provider_name(provider), "failed_runs": rec.get("failed_runs"),
            "true_again": back, "pages": sorted({page_info(c["page"])["title"] for c in back if c["page"]}),
            "notify_type": "success"}


def _rule_change(con, run: _Run, cfg: AlertConfig, page_id: str, evs: list[dict]) -> dict:
    claims = [c for e in evs for c in e["details"]["claims"]]
    d = evs[-1]["details"]
    return {"page": page_info(page_id), "rules_version": d["rules_version"], "previous_version": d["previous_version"],
            "claims": claims, "now_false": sum(c["new_status"] == "drifted" for c in claims),
            "notify_type": "warning" if any(c["new_status"] == "drifted" for c in claims) else "info"}


def _new_gpu_label(con, run: _Run, cfg: AlertConfig, subject: str, evs: list[dict]) -> dict:
    d = evs[0]["details"]
    return {"provider": d["provider"], "provider_name": provider_name(d["provider"]), "label": d["label"],
            "offers": d["offers"], "notify_type": "info"}


def _unprefixed(provider: str, error: str | None) -> str:
    from pricewatch.alerts.sources import _unprefixed as unprefixed
    return unprefixed(provider, error)


def _page_staleness(con, run: _Run, cfg: AlertConfig, page_id: str, evs: list[dict]) -> dict:
    d = evs[-1]["details"]
    sources = [{**s, "provider_name": provider_name(s["provider"])} for s in d["sources"]]
    out = {"page": page_info(page_id), "sources": sources, "claims": d["claims"], "claims_total": len(d["claims"]),
           "limit_hours": d.get("limit_hours"), "counts": d.get("counts"),
           "report_command": "pricewatch claims --status unverifiable"}
    out["notify_type"] = "warning" if evs[-1]["kind"] == "page_unchecked" or (d.get("counts") or {}).get("drifted") \
        else "success"
    return out


BUILDERS = {"page_digest": _page_digest, "page_unchecked": _page_staleness, "page_checked_again": _page_staleness, "source_outage": _source_outage, "source_recovered": _source_recovered,
            "rule_change": _rule_change, "new_gpu_label": _new_gpu_label}

"""An editor's answers: acknowledgements and mute rules (tables alert_acks, alert_mutes).

A mute names a provider, a canonical GPU model or a claim, until a date (exclusive). An event
derived from a run observed before that date is stored `muted` (recorded, never sent) when its
provider or GPU is muted, or when every claim it concerns is; claims muted inside an event that
also concerns others are taken out of it (details.muted_claims) and the rest is told.
An ack records that someone has seen a message (or event) and is on it; a pending message that
is acked is not sent (state `acked`).
"""

from __future__ import annotations

from datetime import datetime, timezone

from pricewatch.alerts.model import Alert
from pricewatch.alerts.store import _rows, sql

SCOPES = ("provider", "gpu", "claim")


def add_mute(con, scope: str, value: str, until: datetime, reason: str | None = None) -> str:
    if scope not in SCOPES:
        raise ValueError(f"mute scope must be one of {', '.join(SCOPES)} (got {scope!r})")
    if until.tzinfo is None:
        raise ValueError("a mute's end needs a time zone")
    mute_id = f"{scope}:{value}"
    con.execute("""INSERT INTO alert_mutes VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (mute_id) DO UPDATE SET until = excluded.until, reason = excluded.reason""",
                [mute_id, scope, value, until, reason, datetime.now(timezone.utc)])
    return mute_id


def remove_mute(con, mute_id: str) -> bool:
    return bool(con.execute("DELETE FROM alert_mutes WHERE mute_id = ? RETURNING mute_id", [mute_id]).fetchall())


def list_mutes(con, at: datetime | None = None) -> list[dict]:
    return _rows(con, sql("active_mutes"), [at or datetime.now(timezone.utc)])


def ack(con, ident: str, note: str | None = None) -> dict:
    """Acknowledges a message (or an event): recorded once; a pending message is then not sent.
    Raises KeyError for an id no message or event has."""
    kind = "message" if _rows(con, "SELECT 1 FROM alert_messages WHERE message_id = ?", [ident]) else (
        "event" if _rows(con, "SELECT 1 FROM alerts WHERE alert_id = ?", [ident]) else None)
    if kind is None:
        raise KeyError(ident)
    now = datetime.now(timezone.utc)
    new = bool(con.execute("INSERT INTO alert_acks VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                           [ident, now, note]).fetchall())
    if kind == "message":
        con.execute("UPDATE alert_messages SET state = 'acked', updated_at = ? WHERE message_id = ? AND state = 'pending'",
                    [now, ident])
    return {"id": ident, "what": kind, "new": new}


def apply_mutes(alerts: list[Alert], mutes: list[dict]) -> int:
    """Marks the events that mute rules cover (details.muted_by); returns how many are muted."""
    if not mutes:
        return 0
    by = {s: {m["value"]: m["mute_id"] for m in mutes if m["scope"] == s} for s in SCOPES}
    muted = 0
    for a in alerts:
        d = a.details
        hits = [by["provider"][p] for p in _providers(a) if p in by["provider"]]
        hits += [by["gpu"][d["gpu_model"]] for _ in [0] if d.get("gpu_model") in by["gpu"]]
        claims = [c.get("claim_id") for c in d.get("claims") or []]
        claim_hits = [c for c in claims if c in by["claim"]]
        if claims and claim_hits and len(claim_hits) < len(claims) and a.kind in ("claim_status", "rule_change"):
            d["muted_claims"] = claim_hits
            d["claims"] = [c for c in d["claims"] if c.get("claim_id") not in claim_hits]
        elif claims and len(claim_hits) == len(claims):
            hits += [by["claim"][c] for c in claim_hits]
        if hits:
            d["muted_by"] = sorted(set(hits))
            muted += 1
    return muted


def _providers(a: Alert) -> list[str]:
    d = a.details
    found = [d.get("provider"), d.get("cited_provider") if a.kind != "undercut" else None]
    found += list(d.get("failing_sources") or [])
    return [p for p in found if p]

"""Delivery of pending alerts (deliver_alerts) and the stored alerts as the CLI lists them.

Delivery: at least once to a receiver that was down or refused, at most once to one that was
sent the whole alert but did not answer within `timeout_s` (it may well have processed it;
resending is how a slow receiver got every alert twice). Exactly once is not possible over a
plain webhook: every payload carries `alert_id` (JSON/form/XML field and Idempotency-Key
header, and the body's last line) so a receiver can drop a duplicate.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import duckdb

from pricewatch import notify
from pricewatch.alerts.render import UTC_FMT
from pricewatch.alerts.store import _alert_config, _dumps, _has, _rows
from pricewatch.config import AlertConfig, Config
from warehouse import db


def deliver_alerts(con: duckdb.DuckDBPyConnection, config: Config | AlertConfig | None = None) -> dict:
    """Sends every pending alert, oldest first, to each alert URL that has not got it yet.

    One attempt per alert and URL per delivery, each bounded by `timeout_s`; what happens next
    depends on what is known (pricewatch.notify, Delivery.outcome):

    - accepted: recorded in alert_deliveries; never sent to that URL again.
    - unconfirmed (the whole request went out, no answer within timeout_s): recorded as
      delivered too, with a note (details.unconfirmed, last_error), and not sent again: the
      receiver may well have processed it, and resending is how a slow receiver got every alert
      twice. At most once per URL; receivers can dedupe by `alert_id`, sent with every alert.
    - unreachable or rejected (refused, no such host, HTTP 500): stays pending with the
      (redacted) error; the next delivery, i.e. the next run, retries only the URLs that failed.

    A URL that was unreachable or did not answer in time is not tried again for the other alerts
    of this delivery (they wait for the next run), so a dead receiver costs one timeout, not one
    per alert. An alert becomes `sent` once every configured URL has it."""
    cfg = _alert_config(config)
    db.migrate(con)
    pending = _rows(con, "SELECT * FROM alerts WHERE state = 'pending' ORDER BY created_at, alert_id")
    result = {"sent": 0, "failed": 0, "unconfirmed": 0, "pending": len(pending), "error": None}
    if not pending:
        return result
    if not cfg.urls:
        result["error"] = notify.SendResult(()).error
        return result
    targets = {notify.target_id(u): u for u in cfg.urls}
    benched: dict[str, str] = {}     # URL -> why it is not tried again in this delivery
    errors = set()
    for a in pending:
        done = {t for (t,) in con.execute("SELECT target FROM alert_deliveries WHERE alert_id = ?",
                                          [a["alert_id"]]).fetchall()}
        todo = [t for t in targets if t not in done]
        now_try = [t for t in todo if t not in benched]
        details = json.loads(a["details"])
        markdown = details.get("body_markdown")
        sent = notify.send(a["title"], (markdown or a["body"]) + f"\nAlert id: {a['alert_id']}", a["notify_type"],
                           [targets[t] for t in now_try], timeout_s=cfg.timeout_s,
                           body_format="markdown" if markdown else "text",
                           idempotency_key=a["alert_id"]) if now_try else notify.SendResult(())
        now = datetime.now(timezone.utc)
        missing, problems, unconfirmed = [], [], dict(details.get("unconfirmed") or {})
        for d in sent.deliveries:
            if d.reached:
                con.execute("INSERT INTO alert_deliveries VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                            [a["alert_id"], d.target, d.label, now])
            if d.outcome == "unconfirmed":
                unconfirmed[d.label] = f"{d.error} ({now:{UTC_FMT}})"
                problems.append(f"unconfirmed: {d.label}: {d.error}")
                benched[d.target] = f"{d.label}: not tried: it did not answer in time earlier in this delivery"
            elif not d.reached:
                missing.append(d.target)
                problems.append(f"{d.label}: {d.error}")
                if d.outcome == "unreachable":
                    benched[d.target] = f"{d.label}: not tried: {d.error} earlier in this delivery"
        for t in todo:
            if t not in now_try:
                missing.append(t)
                problems.append(benched[t])
        ok = not missing
        if unconfirmed:
            details["unconfirmed"] = unconfirmed
            result["unconfirmed"] += sum(1 for d in sent.deliveries if d.outcome == "unconfirmed")
        error = "; ".join(problems) or None
        con.execute("""UPDATE alerts SET attempts = attempts + ?, updated_at = ?, last_error = ?, details = ?,
                       state = CASE WHEN ? THEN 'sent' ELSE state END,
                       delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END
                       WHERE alert_id = ?""",
                    [1 if now_try else 0, now, error, _dumps(details), ok, ok, now, a["alert_id"]])
        result["sent" if ok else "failed"] += 1
        if not ok:
            errors.update(p for p in problems if not p.startswith("unconfirmed: "))
    result["pending"] = result["failed"]
    result["error"] = "; ".join(sorted(errors)) or None
    return result


def list_alerts(con: duckdb.DuckDBPyConnection, pending_only: bool = False, limit: int | None = None) -> list[dict]:
    if not _has(con, "alerts"):
        return []
    where = "WHERE state = 'pending'" if pending_only else ""
    rows = _rows(con, f"""SELECT alert_id, created_at, run_id, kind, state, notify_type, subject, title, body,
                                 details, attempts, last_error, delivered_at
                          FROM alerts {where} ORDER BY created_at DESC, alert_id
                          {'LIMIT ' + str(int(limit)) if limit else ''}""")
    for r in rows:
        r["details"] = json.loads(r["details"])
    return rows

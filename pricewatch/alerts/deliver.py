"""Delivery of pending messages (deliver_alerts) and the stored alerts and messages as the CLI
lists them.

Delivery: at least once to a receiver that was down or refused, at most once to one that was
sent the whole alert but did not answer within `timeout_s` (it may well have processed it;
resending is how a slow receiver got every alert twice). Exactly once is not possible over a
plain webhook: every payload carries `alert_id`, the message id (JSON/form/XML field and
Idempotency-Key header, and the body's last line) so a receiver can drop a duplicate.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import duckdb

from pricewatch.alerts import notify
from pricewatch.alerts.render import UTC_FMT
from pricewatch.alerts.store import _alert_config, _has, _rows, sql
from pricewatch.alerts.templating import fit
from pricewatch.record.config import AlertConfig, Config
from warehouse import migrate


def deliver_alerts(con: duckdb.DuckDBPyConnection, config: Config | AlertConfig | None = None) -> dict:
    """Sends every pending message (alert_messages), oldest first, to each alert URL that has
    not got it yet, in the format that URL wants (notify.style: HTML for e-mail, Markdown for
    chat, text for webhooks; JSON webhooks also get the structured fields), shortened to what
    the target takes by dropping whole lines.

    One attempt per message and URL per delivery, each bounded by `timeout_s`; what happens next
    depends on what is known (pricewatch.alerts.notify, Delivery.outcome):

    - accepted: recorded in alert_message_deliveries; never sent to that URL again.
    - unconfirmed (the whole request went out, no answer within timeout_s): recorded as
      delivered too, with a note (last_error), and not sent again: the receiver may well have
      processed it, and resending is how a slow receiver got every alert twice. At most once
      per URL; receivers can dedupe by `alert_id` (the message id), sent with every message.
    - unreachable or rejected (refused, no such host, HTTP 500): stays pending with the
      (redacted) error; the next delivery, i.e. the next run, retries only the URLs that failed.

    A URL that was unreachable or did not answer in time is not tried again for the other
    messages of this delivery (they wait for the next run), so a dead receiver costs one
    timeout, not one per message. A message becomes `sent` once every configured URL has it,
    and the events it carries with it; muted and acked messages are never sent."""
    cfg = _alert_config(config)
    migrate.migrate(con)
    pending = _rows(con, "SELECT * FROM alert_messages WHERE state = 'pending' ORDER BY created_at, message_id")
    result = {"sent": 0, "failed": 0, "unconfirmed": 0, "pending": len(pending), "error": None}
    if not pending:
        return result
    if not cfg.urls:
        result["error"] = notify.SendResult(()).error
        return result
    targets = {notify.target_id(u): u for u in cfg.urls}
    styles = {t: notify.style(u) for t, u in targets.items()}
    benched: dict[str, str] = {}     # URL -> why it is not tried again in this delivery
    errors = set()
    for m in pending:
        done = {t for (t,) in con.execute("SELECT target FROM alert_message_deliveries WHERE message_id = ?",
                                          [m["message_id"]]).fetchall()}
        todo = [t for t in targets if t not in done]
        now_try = [t for t in todo if t not in benched]
        payload = json.loads(m["payload"])
        deliveries = []
        for t in now_try:
            st = styles[t]
            body = {"html": m["body_html"], "markdown": m["body_markdown"]}.get(st.body_format, m["body_text"])
            if st.body_format != "html":
                body = fit(body, st.max_body, f": pricewatch alerts show {m['message_id']}")
            deliveries += notify.send(m["title"], body, m["notify_type"], [targets[t]], timeout_s=cfg.timeout_s,
                                      body_format=st.body_format, idempotency_key=m["message_id"],
                                      fields=payload if st.fields else None).deliveries
        now = datetime.now(timezone.utc)
        missing, problems = [], []
        for d in deliveries:
            if d.reached:
                con.execute("INSERT INTO alert_message_deliveries VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                            [m["message_id"], d.target, d.label, now])
            if d.outcome == "unconfirmed":
                problems.append(f"unconfirmed: {d.label}: {d.error} ({now:{UTC_FMT}})")
                benched[d.target] = f"{d.label}: not tried: it did not answer in time earlier in this delivery"
                result["unconfirmed"] += 1
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
        error = "; ".join(problems) or None
        con.execute("""UPDATE alert_messages SET attempts = attempts + ?, updated_at = ?, last_error = ?,
                       state = CASE WHEN ? THEN 'sent' ELSE state END,
                       delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END
                       WHERE message_id = ?""",
                    [1 if now_try else 0, now, error, ok, ok, now, m["message_id"]])
        con.execute("""UPDATE alerts SET attempts = attempts + ?, updated_at = ?, last_error = ?,
                       state = CASE WHEN ? AND state = 'pending' THEN 'sent' ELSE state END,
                       delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END
                       WHERE message_id = ? AND state IN ('pending', 'sent')""",
                    [1 if now_try else 0, now, error, ok, ok, now, m["message_id"]])
        result["sent" if ok else "failed"] += 1
        if not ok:
            errors.update(p for p in problems if not p.startswith("unconfirmed: "))
    result["pending"] = result["failed"]
    result["error"] = "; ".join(sorted(errors)) or None
    return result


def list_messages(con: duckdb.DuckDBPyConnection, pending_only: bool = False, limit: int | None = None) -> list[dict]:
    if not _has(con, "alert_messages"):
        return []
    rows = _rows(con, sql("list_messages"), [pending_only, limit or 1_000_000_000])
    for r in rows:
        r["payload"] = json.loads(r["payload"])
    return rows


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

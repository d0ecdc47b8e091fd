"""derive_alerts: the alerts one run raises, stored once per state change.

Backfill. Runs are compared in snapshot order (view run_sequence), whatever the load order. A
run loaded after a newer one has already been derived (an older archive replayed late) is
history, not news: its alerts are stored with state `suppressed` and
details.suppressed_because = 'backfill' (naming the newer run), and are never delivered; nor
does a backfilled run decide suspect readings (the newer runs have judged them).
"""

from __future__ import annotations

from datetime import datetime, timezone

import duckdb

from pricewatch.alerts.claims import _claim_status
from pricewatch.alerts.compose import compose_messages
from pricewatch.alerts.held import _held_readings
from pricewatch.alerts.model import _Run
from pricewatch.alerts.mutes import apply_mutes, list_mutes
from pricewatch.alerts.observe import _moves, _resolve_suspects, prefetch
from pricewatch.alerts.prices import (
    _disappeared,
    _price_alerts,
    _screen_first_seen,
    _undercut,
)
from pricewatch.alerts.rulechange import _rule_changes
from pricewatch.alerts.sources import _new_labels, _source_health
from pricewatch.alerts.staleness import _page_staleness
from pricewatch.alerts.store import _alert_config, _dumps, _has, _rows, sql
from pricewatch.record.config import AlertConfig, Config
from warehouse import migrate


def derive_alerts(con: duckdb.DuckDBPyConnection, run_id: str, config: Config | AlertConfig | None = None) -> dict:
    """Stores the alerts run_id raises; returns counts of what happened."""
    cfg = _alert_config(config)
    migrate.ensure_migrated(con)
    found = _rows(con, "SELECT seq, observed_at FROM run_sequence WHERE run_id = ?", [run_id])
    if not found:
        raise ValueError(f"run {run_id} is not in the warehouse")
    run = _load_run(con, run_id, found[0]["seq"], found[0]["observed_at"])
    counts = {"raised": 0, "suspect": 0, "confirmed": 0, "suppressed": 0, "muted": 0}
    newer = _newer_derived(con, run)
    resolutions = {} if newer else _resolve_suspects(con, run, counts)
    moves = _moves(con, run, resolutions, cfg)
    _screen_first_seen(con, run, moves, cfg)
    alerts = (_price_alerts(con, run, moves, cfg) + _disappeared(con, run) + _undercut(con, run, moves, cfg)
              + _claim_status(con, run, moves, cfg) + _source_health(con, run, cfg) + _new_labels(con, run)
              + _rule_changes(con, run) + _held_readings(con, run) + _page_staleness(con, run))
    apply_mutes(alerts, list_mutes(con, run.observed_at))
    if newer:
        for a in alerts:
            a.backfill(run, newer)
    for state in _insert_alerts(con, alerts):
        counts[state if state in ("suspect", "suppressed", "muted") else "raised"] += 1
    if not newer:
        counts["messages"] = compose_messages(con, run, cfg)
    return counts


def _insert_alerts(con, alerts: list) -> list[str]:
    """Stores the alerts in one INSERT ... SELECT (one statement whatever their number, each column
    one list parameter); an alert whose id or fingerprint is stored already, or comes again later in
    the list, is not stored (as one INSERT each with ON CONFLICT DO NOTHING did, in list order).
    Returns the states of those stored."""
    fresh, seen = [], set()
    for a in alerts:
        if a.alert_id not in seen and ("fp", a.fingerprint) not in seen:
            seen.update((a.alert_id, ("fp", a.fingerprint)))
            fresh.append(a)
    if not fresh:
        return []
    now = datetime.now(timezone.utc)
    columns = {"alert_id": [a.alert_id for a in fresh], "run_id": [a.run_id for a in fresh],
               "kind": [a.kind for a in fresh], "subject": [a.subject for a in fresh],
               "fingerprint": [a.fingerprint for a in fresh], "state": [a.state for a in fresh],
               "notify_type": [a.notify_type for a in fresh], "title": [a.title for a in fresh],
               "body": [a.body for a in fresh], "details": [_dumps(a.details) for a in fresh]}
    unnested = ", ".join(f"unnest(?::VARCHAR[]) AS {c}" for c in columns)
    return [state for (state,) in con.execute(
        f"""INSERT INTO alerts ({', '.join(columns)}, created_at, updated_at)
            SELECT * REPLACE (details::JSON AS details), ?::TIMESTAMPTZ, ?::TIMESTAMPTZ
            FROM (SELECT {unnested})
            ON CONFLICT DO NOTHING RETURNING state""", [now, now, *columns.values()]).fetchall()]


def _newer_derived(con, run: "_Run") -> dict | None:
    """The newest run after this one in snapshot order that has already been evaluated or
    derived: when there is one, this run is a backfill."""
    checks = [f"EXISTS (SELECT 1 FROM {t} x WHERE x.run_id = s.run_id)"
              for t in ("claim_evaluations", "alerts") if _has(con, t)]
    if not checks:
        return None
    found = _rows(con, f"""SELECT s.run_id, s.observed_at FROM run_sequence s
                           WHERE s.seq > ? AND ({' OR '.join(checks)}) ORDER BY s.seq DESC LIMIT 1""", [run.seq])
    return found[0] if found else None


def _load_run(con, run_id: str, seq: int, observed_at: datetime) -> _Run:
    if not _has(con, "claim_evaluations"):
        return _Run(run_id, seq, observed_at, None, {}, [])
    prev = _rows(con, """SELECT e.run_id FROM claim_evaluations e JOIN run_sequence s USING (run_id)
                         WHERE s.seq < ? ORDER BY s.seq DESC LIMIT 1""", [seq])
    previous = prev[0]["run_id"] if prev else None
    claims = {r["claim_id"]: r for r in _rows(con, sql("run_claims"), [run_id])}
    inputs = _rows(con, sql("run_inputs"), [[r for r in (run_id, previous) if r]])
    run = _Run(run_id, seq, observed_at, previous, claims, inputs)
    prefetch(con, run, {(i["provider"], i["offer_key"]) for i in inputs})
    return run

"""An editor's decision on a reading the quality gate held (issue 20, item 4).

`pricewatch offers accept|reject OFFER --provider P --run RUN` records one row in
offer_decisions (migration 058): who ($PRICEWATCH_USER, else the OS user), when, and the held
reading decided (its price, text, time and reason). What it does:

- accept: the reading is the offer's price. latest_offers shows it (view held_offers carries the
  decision in force) and the claims' snapshots use it (pricewatch/claims/snapshot.py).
- reject: the reading stays out for good; the offer's last trusted reading stays current and the
  digest no longer asks about it. The reading and its evidence stay in offers.

A decision covers the offer's held readings at the same price from the decided run on (a
reading outside its model's band is held again every night it repeats); a different price is
a new reading. The newest decision wins, so a rejected reading can be accepted later.
The claims are then evaluated again (pricewatch/claims/evaluate.py reevaluate_decided).
"""

from __future__ import annotations

import getpass
import os
from datetime import datetime, timezone

import duckdb

DECISIONS = ("accept", "reject")


class DecisionError(ValueError):
    """A decision that cannot be recorded (one line, for the CLI)."""


def decided_by() -> str:
    """$PRICEWATCH_USER, else the OS user."""
    who = os.environ.get("PRICEWATCH_USER", "").strip()
    if who:
        return who
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container without a passwd entry)
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


def held_reading(con: duckdb.DuckDBPyConnection, provider: str, offer_key: str, run_id: str) -> dict:
    """The held reading of an offer in a run, or DecisionError saying what there is instead."""
    cur = con.execute("SELECT provider, offer_key, run_id, price_per_hour, price_text, observed_at, held_reason, "
                      "warc_file, warc_record_id FROM offers WHERE provider = ? AND offer_key = ? AND run_id = ?",
                      [provider, offer_key, run_id])
    row = cur.fetchone()
    if row is None:
        if not con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchone()[0]:
            raise DecisionError(f"no run {run_id!r} in the warehouse")
        held = [k for (k,) in con.execute("SELECT offer_key FROM offers WHERE provider = ? AND run_id = ? "
                                           "AND held_reason IS NOT NULL ORDER BY offer_key", [provider, run_id]).fetchall()]
        there = f"held there: {', '.join(repr(k) for k in held[:5])}" if held else "no reading of it is held there"
        raise DecisionError(f"run {run_id} has no {provider} offer {offer_key!r} ({there})")
    reading = dict(zip([d[0] for d in cur.description], row))
    if reading["held_reason"] is None:
        raise DecisionError(f"{provider} {offer_key!r} in run {run_id} is not held by the quality gate: "
                            "nothing to accept or reject")
    return reading


def record_decision(con: duckdb.DuckDBPyConnection, provider: str, offer_key: str, run_id: str, decision: str,
                    note: str | None = None, who: str | None = None, at: datetime | None = None) -> dict:
    """Stores the decision on the held reading; returns the row stored."""
    if decision not in DECISIONS:
        raise DecisionError(f"decision must be accept or reject (got {decision!r})")
    reading = held_reading(con, provider, offer_key, run_id)
    row = {"provider": provider, "offer_key": offer_key, "run_id": run_id, "decision": decision,
           "price_per_hour": reading["price_per_hour"], "price_text": reading["price_text"],
           "observed_at": reading["observed_at"], "held_reason": reading["held_reason"],
           "decided_by": who or decided_by(), "decided_at": at or datetime.now(timezone.utc), "note": note}
    con.execute(f"INSERT INTO offer_decisions ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})", list(row.values()))
    return {**row, "warc_file": reading["warc_file"], "warc_record_id": reading["warc_record_id"]}


def decision_in_force(con: duckdb.DuckDBPyConnection, provider: str, offer_key: str, run_id: str):
    """(decision, decided_by, decided_at) covering this reading (the snapshot's rule), or None."""
    from pricewatch.claims.queries import query
    reading = con.execute("SELECT price_per_hour, observed_at FROM offers WHERE provider = ? AND offer_key = ? "
                          "AND run_id = ?", [provider, offer_key, run_id]).fetchone()
    if reading is None:
        return None
    found = con.execute(query("snapshot_decisions"), [[provider], [offer_key], [run_id], [reading[0]],
                                                      [reading[1]]]).fetchone()
    return found[3:] if found else None

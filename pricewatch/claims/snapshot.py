"""What the warehouse knew as of one run: every provider's latest successful offers and facts
from runs observed at or before that run (never later data), and which providers were failing.

"At or before" compares the runs' own observed_at (a run's providers are seen a few seconds
apart; all of them belong to the run's snapshot). Among runs of the same observed_at, the
evaluated run itself counts as the latest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

import duckdb


@dataclass
class Attempt:
    run_id: str
    status: str            # ok | suspect | failed
    observed_at: datetime
    error: str | None


@dataclass
class ProviderState:
    provider: str
    attempts: list[Attempt]                       # oldest first, up to the snapshot
    offers: dict[str, dict] = field(default_factory=dict)   # offer_key -> offer row of the last ok run
    facts: dict[str, dict] = field(default_factory=dict)

    @property
    def last_ok(self) -> Attempt | None:
        return next((a for a in reversed(self.attempts) if a.status == "ok"), None)

    @property
    def failing_since(self) -> Attempt | None:
        """The first attempt of the current streak of unusable ones (failed, or suspect: held back
        by a run monitor), if the latest attempt is one."""
        first = None
        for a in reversed(self.attempts):
            if a.status == "ok":
                break
            first = a
        return first

    @property
    def last_error(self) -> str | None:
        return self.attempts[-1].error if self.attempts else None


OFFER_COLUMNS = ("run_id", "provider", "offer_key", "gpu_label", "gpu_model", "gpu_count", "vram_gb", "billing",
                 "tier", "self_service", "currency", "price_per_hour", "price_per_gpu_hour", "is_priced",
                 "price_text", "is_aggregator", "observed_at", "source_url", "warc_file", "warc_record_id",
                 "held_reason")


class Snapshot:
    def __init__(self, con: duckdb.DuckDBPyConnection, run_id: str):
        row = con.execute("SELECT observed_at FROM runs WHERE run_id = ?", [run_id]).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id!r} in the warehouse")
        self.con = con
        self.run_id = run_id
        self.at: datetime = row[0]
        self.providers: dict[str, ProviderState] = {}
        rows = con.execute("""
            SELECT pr.provider, pr.run_id, pr.status, pr.observed_at, pr.error
            FROM provider_runs pr JOIN runs r USING (run_id)
            WHERE r.observed_at <= ? AND pr.status <> 'not attempted'
            ORDER BY pr.provider, r.observed_at, (pr.run_id = ?), r.finished_at, pr.run_id""",
                           [self.at, run_id]).fetchall()
        for provider, rid, status, observed, error in rows:
            state = self.providers.setdefault(provider, ProviderState(provider, []))
            state.attempts.append(Attempt(rid, status, observed, error))
        for state in self.providers.values():
            ok = state.last_ok
            if ok is None:
                continue
            cur = con.execute(f"SELECT {', '.join(OFFER_COLUMNS)} FROM offers WHERE run_id = ? AND provider = ?",
                              [ok.run_id, state.provider])
            for values in cur.fetchall():
                offer = dict(zip(OFFER_COLUMNS, values))
                if offer["held_reason"]:
                    # The quality gate holds this reading: the last trusted one stays current.
                    offer = self._last_trusted(state.provider, offer)
                    if offer is None:
                        continue
                state.offers[offer["offer_key"]] = offer
            for fact, num, text, observed, url, warc, rec in con.execute(
                    "SELECT fact, value_num, value_text, observed_at, source_url, warc_file, warc_record_id "
                    "FROM source_facts WHERE run_id = ? AND provider = ?", [ok.run_id, state.provider]).fetchall():
                state.facts[fact] = {"fact": fact, "value_num": num, "value_text": text, "observed_at": observed,
                                     "source_url": url, "warc_file": warc, "warc_record_id": rec,
                                     "run_id": ok.run_id, "provider": state.provider}

    def _last_trusted(self, provider: str, held: dict) -> dict | None:
        row = self.con.execute(f"""
            SELECT {', '.join('o.' + c for c in OFFER_COLUMNS)} FROM offers o
            JOIN provider_runs pr USING (run_id, provider)
            WHERE pr.status = 'ok' AND o.provider = ? AND o.offer_key = ? AND o.held_reason IS NULL
              AND o.observed_at < ?
            ORDER BY o.observed_at DESC LIMIT 1""", [provider, held["offer_key"], held["observed_at"]]).fetchone()
        if row is None:
            return None
        return {**dict(zip(OFFER_COLUMNS, row)), "held_reading": held["held_reason"]}

    def state(self, provider: str) -> ProviderState | None:
        return self.providers.get(provider)

    def all_offers(self, include_failing: bool = False):
        """Offers of every provider's latest successful run; a provider whose latest attempt
        failed is left out unless asked for (its prices are the last good ones, not current)."""
        for state in self.providers.values():
            if state.failing_since and not include_failing:
                continue
            yield from state.offers.values()

    def absent_since(self, provider: str, offer_key: str) -> datetime | None:
        """When an offer stopped being in its provider's successful runs (None: never seen)."""
        state = self.providers.get(provider)
        if state is None:
            return None
        seen_in = {r for (r,) in self.con.execute(
            "SELECT run_id FROM offers WHERE provider = ? AND offer_key = ?", [provider, offer_key]).fetchall()}
        since = None
        for a in state.attempts:
            if a.status != "ok":
                continue
            if a.run_id in seen_in:
                since = None
            elif since is None:
                since = a.observed_at
        return since if seen_in & {a.run_id for a in state.attempts} else None

    def unpriced_since(self, provider: str, offer_key: str) -> datetime | None:
        """The first successful run of the current streak in which the offer had no price."""
        state = self.providers.get(provider)
        priced = dict(self.con.execute(
            "SELECT run_id, is_priced FROM offers WHERE provider = ? AND offer_key = ?", [provider, offer_key]).fetchall())
        since = None
        for a in state.attempts if state else []:
            if a.status != "ok" or a.run_id not in priced:
                continue
            since = None if priced[a.run_id] else (since or a.observed_at)
        return since


def dec(value) -> Decimal | None:
    if value is None:
        return None
    return value if isinstance(value, Decimal) else Decimal(str(value))

"""What the warehouse knew as of one run: every provider's latest successful offers and facts
from runs observed at or before that run (never later data), and which providers were failing.

"At or before" compares the runs' own observed_at (a run's providers are seen a few seconds
apart; all of them belong to the run's snapshot). Among runs of the same observed_at, the
evaluated run itself counts as the latest.

Reads cost O(one run), not O(history) (issue 11): the named queries of warehouse/sql/snapshot_*.sql
read only each provider's attempts from its last successful one on, its offers within their
observed_at range (the zone maps of offers skip every other run), and the stored price spells
bound the look-backs (last trusted reading, absence and unpriced streaks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import duckdb

from pricewatch.claims.queries import query as query_sql
from pricewatch.claims.readings import trusted_readings
from pricewatch.record.fields import SNAPSHOT_FIELDS


@dataclass
class Attempt:
    run_id: str
    status: str            # ok | suspect | failed
    observed_at: datetime
    error: str | None
    trusted: bool = False  # its readings are in force (provider_runs.trusted, migration 059)


@dataclass
class ProviderState:
    provider: str
    attempts: list[Attempt]                       # oldest first, up to the snapshot, from the last ok one on
    offers: dict[str, dict] = field(default_factory=dict)   # offer_key -> offer row of the last ok run
    facts: dict[str, dict] = field(default_factory=dict)

    @property
    def last_ok(self) -> Attempt | None:
        return next((a for a in reversed(self.attempts) if a.trusted), None)

    @property
    def failing_since(self) -> Attempt | None:
        """The first attempt of the current streak of unusable ones (failed, or suspect: held back
        by a run monitor), if the latest attempt is one."""
        first = None
        for a in reversed(self.attempts):
            if a.trusted:
                break
            first = a
        return first

    @property
    def last_error(self) -> str | None:
        return self.attempts[-1].error if self.attempts else None


#: The columns of offers a snapshot reads: the "snapshot" set of the offer's field table, in the
#: order sql/snapshot_offers.sql selects them (observed_at as epoch microseconds; the contract
#: test checks the query against this).
OFFER_COLUMNS = SNAPSHOT_FIELDS


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Interest:
    """The offers a snapshot reads (the claims' evaluator says which: Evaluator.interest): every
    offer of these providers, these (provider, offer_key) offers, and every offer of these
    (gpu_model, gpu_count, billing) groups. A snapshot with no interest reads every offer."""
    providers: frozenset[str] = frozenset()
    offers: frozenset[tuple[str, str]] = frozenset()
    groups: frozenset[tuple[str, int, str]] = frozenset()

    def covers(self, provider: str, offer_key: str | None = None, group: tuple | None = None) -> bool:
        return (provider in self.providers or (offer_key is not None and (provider, offer_key) in self.offers)
                or (group is not None and group in self.groups))


class Snapshot:
    def __init__(self, con: duckdb.DuckDBPyConnection, run_id: str, interest: Interest | None = None):
        """``interest``: only those offers are read (the others are never asked for); None: all."""
        row = con.execute("SELECT observed_at FROM runs WHERE run_id = ?", [run_id]).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id!r} in the warehouse")
        self.con = con
        self.run_id = run_id
        self.interest = interest
        self.at: datetime = row[0]
        self.providers: dict[str, ProviderState] = {}
        self._classes: dict[tuple, str | None] = {}
        for provider, rid, status, trusted, observed, error in con.execute(query_sql("snapshot_attempts"),
                                                                            [self.at, run_id]).fetchall():
            state = self.providers.setdefault(provider, ProviderState(provider, []))
            state.attempts.append(Attempt(rid, status, observed, error, bool(trusted)))
        last_ok = {p: s.last_ok for p, s in self.providers.items() if s.last_ok is not None}
        if not last_ok:
            return
        providers = sorted(last_ok)
        run_ids = [last_ok[p].run_id for p in providers]
        times = [last_ok[p].observed_at for p in providers]
        tz = times[0].tzinfo
        moments: dict[int, datetime] = {}
        at_index = OFFER_COLUMNS.index("observed_at")
        held = []
        want = interest or Interest()
        params = [providers, run_ids, min(times), max(times), interest is None, sorted(want.providers),
                  [{"provider": p, "offer_key": k} for p, k in sorted(want.offers)],
                  [{"gpu_model": g, "gpu_count": n, "billing": b} for g, n, b in sorted(want.groups)]]
        for values in con.execute(query_sql("snapshot_offers"), params).fetchall():
            offer = dict(zip(OFFER_COLUMNS, values))
            us = values[at_index]
            if us not in moments:
                moments[us] = (_EPOCH + timedelta(microseconds=us)).astimezone(tz)
            offer["observed_at"] = moments[us]
            state = self.providers[offer["provider"]]
            if offer["run_id"] != last_ok[offer["provider"]].run_id:
                continue
            if offer["held_reason"]:
                held.append(offer)
            state.offers[offer["offer_key"]] = offer
        if held:
            # An editor's decision on a held reading (offer_decisions): accepted, the reading is
            # the offer's price; rejected or undecided, it stays held.
            decided = _decisions(con, held)
            for offer in held:
                d = decided.get((offer["provider"], offer["offer_key"], offer["run_id"]))
                if d and d[0] == "accept":
                    offer["decision"] = f"accepted by {d[1]} at {d[2].astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC"
            held = [o for o in held if "decision" not in o]
        if held:
            # The quality gate holds these readings: the last trusted one of each stays current
            # (in the held reading's place), read for all of them at once. A held reading
            # without a price (a cell that could not be read) keeps its text: a cited offer
            # that reads so is a placeholder (pricewatch/claims/placeholders.py).
            trusted = trusted_readings(con, [(o["provider"], o["offer_key"], o["run_id"]) for o in held])
            for offer in held:
                offers = self.providers[offer["provider"]].offers
                _, before = trusted[(offer["provider"], offer["offer_key"], offer["run_id"])]
                unpriced = {} if offer["is_priced"] else {"held_text": offer["price_text"] or "", "held_row": offer}
                if before is None and not unpriced:
                    del offers[offer["offer_key"]]
                elif before is None:
                    offers[offer["offer_key"]] = {**offer, **unpriced, "held_reading": offer["held_reason"]}
                else:
                    offers[offer["offer_key"]] = {**{c: before[c] for c in OFFER_COLUMNS},
                                                  "held_reading": offer["held_reason"], **unpriced}
        for provider, rid, fact, num, text, observed, url, warc, rec in con.execute(
                query_sql("snapshot_facts"), [providers, run_ids]).fetchall():
            self.providers[provider].facts[fact] = {
                "fact": fact, "value_num": num, "value_text": text, "observed_at": observed, "source_url": url,
                "warc_file": warc, "warc_record_id": rec, "run_id": rid, "provider": provider}

    def comparable_class(self, offer: dict) -> str | None:
        """The offer's comparable class ("H100 SXM", "B200"), asked of the warehouse's one
        definition (warehouse/macros/comparable_class.sql) once per model and form factor."""
        pair = (offer["gpu_model"], offer.get("form_factor"))
        if pair not in self._classes:
            self._classes[pair] = self.con.execute(query_sql("comparable_class"), list(pair)).fetchone()[0]
        return self._classes[pair]

    def last_class(self, provider: str, offer_key: str) -> str | None:
        """The comparable class of an offer's latest stored reading up to the snapshot (None: none)."""
        row = self.con.execute(query_sql("offer_last_class"), [provider, offer_key, self.at]).fetchone()
        return row[0] if row else None

    def state(self, provider: str) -> ProviderState | None:
        return self.providers.get(provider)

    def all_offers(self, include_failing: bool = False):
        """Offers of every provider's latest successful run; a provider whose latest attempt
        failed is left out unless asked for (its prices are the last good ones, not current)."""
        for state in self.providers.values():
            if state.failing_since and not include_failing:
                continue
            yield from state.offers.values()

    def _streak_start(self, provider: str, offer_key: str):
        absent_from, unpriced_from, spells = self.con.execute(
            query_sql("snapshot_streak_start"), [provider, offer_key, self.at]).fetchall()[0]
        return absent_from, unpriced_from, spells

    def _ok_runs(self, provider: str, since) -> list[tuple[str, datetime]]:
        return self.con.execute(query_sql("snapshot_ok_runs"), [provider, since, self.at, self.run_id]).fetchall()

    def absent_since(self, provider: str, offer_key: str) -> datetime | None:
        """When an offer stopped being in its provider's successful runs (None: never seen)."""
        state = self.providers.get(provider)
        if state is None:
            return None
        absent_from, _, spells = self._streak_start(provider, offer_key)
        bound = absent_from if spells else None
        if spells and absent_from is None:
            return None     # its latest spell by the snapshot had not ended by then
        seen_in = {r for (r, _) in self.con.execute(query_sql("snapshot_offer_readings"),
                                                    [provider, offer_key, bound]).fetchall()}
        ok_runs = self._ok_runs(provider, bound)
        since = None
        for rid, observed in ok_runs:
            if rid in seen_in:
                since = None
            elif since is None:
                since = observed
        return since if spells or seen_in & {r for r, _ in ok_runs} else None

    def unpriced_since(self, provider: str, offer_key: str) -> datetime | None:
        """The first successful run of the current streak in which the offer had no price."""
        if provider not in self.providers:
            return None
        _, unpriced_from, spells = self._streak_start(provider, offer_key)
        bound = unpriced_from if spells else None
        priced = dict(self.con.execute(query_sql("snapshot_offer_readings"), [provider, offer_key, bound]).fetchall())
        since = None
        for rid, observed in self._ok_runs(provider, bound):
            if rid not in priced:
                continue
            since = None if priced[rid] else (since or observed)
        return since


def _decisions(con, held: list[dict]) -> dict[tuple[str, str, str], tuple]:
    """{(provider, offer_key, run_id): (decision, decided_by, decided_at)} of the held readings an
    editor decided (sql/snapshot_decisions.sql); none in a warehouse without offer_decisions."""
    if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'offer_decisions'").fetchone()[0]:
        return {}
    cols = ("provider", "offer_key", "run_id", "price_per_hour", "observed_at")
    params = [[o[c] for o in held] for c in cols]
    return {(p, k, r): (d, by, at) for p, k, r, d, by, at in con.execute(query_sql("snapshot_decisions"), params).fetchall()}


def dec(value) -> Decimal | None:
    if value is None:
        return None
    return value if isinstance(value, Decimal) else Decimal(str(value))

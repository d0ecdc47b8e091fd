"""Recomputing every claim as of one run's snapshot, and storing the result with its inputs.

``evaluate_claims(con, run_id)`` is what the nightly flow calls after loading a run. It only
adds rows, each recording the version of rules/ it used: a claim already evaluated for that run
under the same rules is left as it is, so evaluating a run again changes nothing. When rules/
has changed since the latest evaluated snapshot was evaluated, that snapshot is evaluated again
first (``trigger = 'rules'``), so what the rule change alone did is told apart from what the new
prices did; ``reevaluate_latest`` does it on demand (``pricewatch claims --reevaluate``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal

import duckdb
import pandas as pd

from pricewatch.claims import rules as R
from pricewatch.claims.formatting import as_number, display, quantize
from pricewatch.claims.queries import query
from pricewatch.claims.snapshot import Snapshot, dec
from warehouse.db import insert_frame


STATUSES = ("holds", "drifted", "unverifiable")


@dataclass
class Outcome:
    value: Decimal | bool | str | None = None
    inputs: list[dict] = field(default_factory=list)
    pick: str | None = None
    note: str | None = None
    unverifiable: str | None = None     # which input is missing or failed
    since: datetime | None = None       # ... and since when
    drift: str | None = None            # drifted even if the number is within tolerance (e.g. another provider)


def ts(dt: datetime | None) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if dt else "?"


def usd(v) -> str:
    v = Decimal(v)
    return f"${quantize(v, max(2, min(4, -v.normalize().as_tuple().exponent))):,}"


def _input(name: str, role: str, provider: str, offer: dict | None = None, status: str = "ok",
           used: bool = True, offer_key: str | None = None, fact: dict | None = None) -> dict:
    o = offer or {}
    f = fact or {}
    return {
        "input_name": name, "role": role, "provider": provider,
        "offer_key": o.get("offer_key", offer_key), "gpu_model": o.get("gpu_model"), "gpu_count": o.get("gpu_count"),
        "billing": o.get("billing"), "price_per_hour": o.get("price_per_hour"),
        "price_per_gpu_hour": o.get("price_per_gpu_hour"),
        "observed_at": o.get("observed_at", f.get("observed_at")), "source_url": o.get("source_url", f.get("source_url")),
        "warc_file": o.get("warc_file", f.get("warc_file")), "warc_record_id": o.get("warc_record_id", f.get("warc_record_id")),
        "input_status": status, "used": used, "offer_run_id": o.get("run_id", f.get("run_id")),
        "price_text": o.get("price_text"), "fact": f.get("fact"), "value_num": f.get("value_num"),
        "value_text": f.get("value_text"),
    }


class Evaluator:
    def __init__(self, rules: R.RuleSet, snap: Snapshot):
        self.rules = rules
        self.snap = snap
        self.claims = rules.claims
        self._done: dict[str, Outcome] = {}
        # Sources whose last good data is older than the staleness limit at this snapshot.
        self.stale = {p: (at, age, limit) for p, at, age, limit in
                      snap.con.execute(query("stale_sources"), [snap.at]).fetchall()}

    # ---- one claim -------------------------------------------------------------------------
    def outcome(self, claim_id: str) -> Outcome:
        if claim_id not in self._done:
            claim = self.claims[claim_id]
            page = self.rules.pages[claim.page]
            self._done[claim_id] = getattr(self, f"_{claim.compute.kind}")(claim.compute, claim, page)
        return self._done[claim_id]

    def _term(self, t) -> tuple[Decimal | None, Outcome]:
        if isinstance(t, R.ClaimRef):
            o = self.outcome(t.claim)
            inherited = [{**i, "input_name": f"{t.claim}: {i['input_name']}"} for i in o.inputs]
            if o.unverifiable:
                return None, Outcome(inputs=inherited, unverifiable=f"needs {t.claim}: {o.unverifiable}", since=o.since)
            return as_number(o.value), Outcome(inputs=inherited)
        return t, Outcome()

    def _terms(self, terms) -> tuple[list[Decimal] | None, Outcome]:
        values, acc = [], Outcome()
        for t in terms:
            v, o = self._term(t)
            acc.inputs += o.inputs
            if o.unverifiable and not acc.unverifiable:
                acc.unverifiable, acc.since = o.unverifiable, o.since
            values.append(v)
        return (None if acc.unverifiable else values), acc

    # ---- offers ----------------------------------------------------------------------------
    def _provider_problem(self, provider: str, role: str, name: str) -> Outcome | None:
        """Unverifiable when the provider was never seen or its latest attempt failed."""
        state = self.snap.state(provider)
        if state is None or state.last_ok is None:
            return Outcome(unverifiable=f"no successful {provider} run at or before {ts(self.snap.at)}",
                           inputs=[_input(name, role, provider, status="never_seen", used=False)])
        if provider in self.stale:
            at, age, limit = self.stale[provider]
            return Outcome(unverifiable=f"{provider} is stale: its last good data is {age:.0f} h old "
                                        f"(from {ts(at)}; limit {limit:g} h)",
                           since=at, inputs=[_input(name, role, provider, status="failed", used=False)])
        since = state.failing_since
        if since:
            word = "held back as suspect" if state.attempts[-1].status == "suspect" else "failing"
            return Outcome(unverifiable=f"{provider} {word} since {ts(since.observed_at)} "
                                        f"({(state.last_error or 'no error text')[:300]})",
                           since=since.observed_at,
                           inputs=[_input(name, role, provider, status="failed", used=False)])
        return None

    def _offer(self, provider: str, offer_key: str, role: str, name: str) -> tuple[dict | None, Outcome]:
        what = f"{provider} offer {offer_key!r}"
        problem = self._provider_problem(provider, role, name)
        if problem:
            problem.inputs[0]["offer_key"] = offer_key
            return None, problem
        offer = self.snap.state(provider).offers.get(offer_key)
        if offer is None:
            since = self.snap.absent_since(provider, offer_key)
            seen = f"gone since {ts(since)}" if since else "never listed"
            return None, Outcome(unverifiable=f"{what}: {seen}", since=since,
                                 inputs=[_input(name, role, provider, status="missing", used=False, offer_key=offer_key)])
        if not offer["is_priced"]:
            since = self.snap.unpriced_since(provider, offer_key)
            return None, Outcome(unverifiable=f"{what}: no price ({offer['price_text']!r}) since {ts(since)}",
                                 since=since, inputs=[_input(name, role, provider, offer, status="unpriced", used=False)])
        return offer, Outcome(inputs=[_input(name, role, provider, offer)])

    def _own(self, page: R.Page, gpu: str) -> tuple[dict | None, Outcome]:
        """The page's own price for a GPU it names: the cheapest per GPU-hour of its price list."""
        provider, model = page.page.own_prices, page.gpus[gpu].model
        name = f"own price {gpu}"
        problem = self._provider_problem(provider, "own", name)
        if problem:
            return None, problem
        offers = [o for o in self.snap.state(provider).offers.values() if o["gpu_model"] == model]
        priced = [o for o in offers if o["is_priced"]]
        if priced:
            best = min(priced, key=lambda o: (o["price_per_gpu_hour"], o["offer_key"]))
            return best, Outcome(inputs=[_input(name, "own", provider, best)])
        if offers:
            return self._offer(provider, offers[0]["offer_key"], "own", name)
        last = self.snap.con.execute(
            "SELECT o.offer_key FROM offers o JOIN runs r USING (run_id) WHERE o.provider = ? AND o.gpu_model = ? "
            "AND r.observed_at <= ? ORDER BY r.observed_at DESC LIMIT 1", [provider, model, self.snap.at]).fetchone()
        if last:
            return self._offer(provider, last[0], "own", name)
        return None, Outcome(unverifiable=f"{provider} has never listed {gpu} ({model})",
                             inputs=[_input(name, "own", provider, status="never_seen", used=False)])

    # ---- kinds -----------------------------------------------------------------------------
    def _own_price(self, c: R.OwnPrice, claim, page) -> Outcome:
        offer, o = self._own(page, c.gpu)
        if offer:
            o.value = dec(offer["price_per_gpu_hour"])
        return o

    def _config_price(self, c: R.ConfigPrice, claim, page) -> Outcome:
        offer, o = self._own(page, c.gpu)
        if offer:
            o.value = c.count * dec(offer["price_per_gpu_hour"])
        return o

    def _run_cost(self, c: R.RunCost, claim, page) -> Outcome:
        offer, o = self._own(page, c.gpu)
        if offer:
            o.value = c.count * c.hours * dec(offer["price_per_gpu_hour"])
        return o

    def _cited_offer(self, c: R.CitedOffer, claim, page) -> Outcome:
        offer, o = self._offer(c.provider, c.offer, "cited", "cited offer")
        if offer:
            o.value = dec(offer["price_per_hour" if c.price == "per_hour" else "price_per_gpu_hour"])
            o.pick = self.rules.provider_name(c.provider)
        return o

    def _cheapest_offer(self, c: R.CheapestOffer, claim, page) -> Outcome:
        price = "price_per_hour" if c.price == "per_hour" else "price_per_gpu_hour"
        cited = (c.cites.provider, c.cites.offer) if c.cites else None
        candidates = [
            o for o in self.snap.all_offers()
            if o["gpu_model"] == c.gpu and o["gpu_count"] == c.count and o["billing"] == c.billing
            and o["is_priced"] and o["currency"] == "USD" and o["provider"] not in c.exclude_providers
            and o["tier"] not in c.exclude_tiers and o["provider"] not in self.stale
            and (c.include_aggregators or not o["is_aggregator"])
            and (c.self_service is None or bool(o["self_service"]) == c.self_service)]
        # On a tie the cited offer stays the pick: the page is not wrong about it.
        pick = min(candidates, key=lambda o: (o["price_per_hour"], (o["provider"], o["offer_key"]) != cited,
                                              o["provider"], o["offer_key"]), default=None)
        out = Outcome()
        cited_offer, cited_out = (None, Outcome())
        if cited:
            cited_offer, cited_out = self._offer(*cited, "cited", "cited offer")
            for i in cited_out.inputs:
                i["used"] = pick is not None and cited_offer is not None and pick is cited_offer
            out.inputs += cited_out.inputs
        if pick is not None:
            out.inputs.append(_input("cheapest pick", "cheapest", pick["provider"], pick))
        failing = sorted(s.provider for s in self.snap.providers.values()
                         if s.failing_since and s.provider not in c.exclude_providers)
        providers = {o["provider"] for o in candidates}
        note = f"cheapest of {len(candidates)} matching offer(s) from {len(providers)} provider(s)"
        if failing:
            note += "; not compared (failing): " + ", ".join(failing)
        stale = sorted(p for p in self.stale if p not in c.exclude_providers)
        if stale:
            note += "; not compared (stale): " + ", ".join(stale)
        out.note = note
        what = f"{c.count}× {c.gpu} {c.billing}" + (" self-service" if c.self_service else "")
        if pick is None:
            out.unverifiable = cited_out.unverifiable or f"no {what} offer in the snapshot"
            out.since = cited_out.since
            return out
        out.value = dec(pick[price])
        out.pick = self.rules.provider_name(pick["provider"])
        cited_provider_down = cited and cited_out.unverifiable and cited_offer is None and any(
            i["input_status"] in ("failed", "never_seen") for i in cited_out.inputs)
        published = claim.published if isinstance(claim.published, Decimal) else None
        if cited_provider_down and not (published is not None and out.value < published):
            # The cited provider cannot be read: only a competitor below the published price proves a drift.
            out.unverifiable, out.since = cited_out.unverifiable, cited_out.since
            return out
        if cited and pick is not cited_offer:
            state = "now " + usd(cited_offer[price]) if cited_offer else cited_out.unverifiable
            out.drift = (f"cheapest is now {out.pick} {pick['offer_key']!r} at {usd(out.value)}; "
                         f"the page cites {self.rules.provider_name(cited[0])} {cited[1]!r} ({state})")
        return out

    def _ratio(self, c: R.Ratio, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.to])
        if values is not None:
            if values[1] == 0:
                o.unverifiable = "division by zero"
            else:
                o.value = values[0] / values[1]
        return o

    def _product(self, c: R.Product, claim, page) -> Outcome:
        values, o = self._terms(c.of)
        if values is not None:
            o.value = math.prod(values, start=Decimal(1))
        return o

    def _sum(self, c: R.Sum, claim, page) -> Outcome:
        values, o = self._terms(c.of)
        if values is not None:
            o.value = sum(values, Decimal(0))
        return o

    def _memory(self, c: R.Memory, claim, page) -> Outcome:
        method = page.memory.methods[c.method]
        gb = c.params_b * method.bytes_per_param * method.margin
        if page.memory.rounding != "none":
            for step in page.memory.rounding:
                if step.below_gb is None or gb < step.below_gb:
                    gb = quantize(gb, step.decimals)
                    break
        return Outcome(value=gb.normalize() if gb == gb.to_integral() else gb)

    def _fits(self, c: R.Fits, claim, page) -> Outcome:
        need, o = self._term(c.needs)
        if need is None:
            return o
        if c.gpu == "any":
            fitting = [g for g in page.gpus if c.count * page.vram(g) >= need]
            o.value = bool(fitting)
            o.note = (f"fits {c.count}× " + ", ".join(fitting)) if fitting else \
                f"largest: {c.count}× {max(page.gpus, key=page.vram)} = {c.count * max(map(page.vram, page.gpus))} GB"
        else:
            o.value = all(c.count * page.vram(g) >= need for g in c.named())
        return o

    def _total_vram(self, c: R.TotalVram, claim, page) -> Outcome:
        return Outcome(value=c.count * page.vram(c.gpu))

    def _from_price(self, c: R.FromPrice, claim, page) -> Outcome:
        out, options, missing = Outcome(), [], []
        for gpu in c.gpus:
            offer, o = self._own(page, gpu)
            out.inputs += o.inputs
            if offer:
                options.append((c.count * dec(offer["price_per_gpu_hour"]), gpu != claim.published_pick, gpu, o.inputs[0]))
            else:
                missing.append((gpu, o))
        if not options:
            reasons = [o.unverifiable for _, o in missing]
            out.unverifiable = "; ".join(dict.fromkeys(reasons))
            out.since = min((o.since for _, o in missing if o.since), default=None)
            return out
        for i in out.inputs:
            i["used"] = False
        value, _, pick, used = min(options, key=lambda x: x[:3])
        used["used"] = True
        out.value, out.pick = value, pick
        notes = [f"{gpu}: {o.unverifiable}" for gpu, o in missing]
        if claim.published_pick and pick != claim.published_pick:
            out.drift = f"the cheapest named GPU is now {pick} (the page names {claim.published_pick})"
        if c.needs is not None:
            need, _ = self._term(c.needs)
            alt = self._cheaper_fit(page, need, c.count, value) if need is not None else None
            if alt:
                notes.append(alt)
        out.note = "; ".join(notes) or None
        return out

    def _cheaper_fit(self, page: R.Page, need: Decimal, max_count: int, price: Decimal) -> str | None:
        """A configuration of no more GPUs than the page's pick that holds the GB for less."""
        state = self.snap.state(page.page.own_prices)
        best = None
        for o in state.offers.values() if state else []:
            if not o["is_priced"] or not o["vram_gb"]:
                continue
            n = math.ceil(need / dec(o["vram_gb"]))
            total = n * dec(o["price_per_gpu_hour"])
            if n <= max_count and total < price and (best is None or (total, n) < best[:2]):
                best = (total, n, o)
        if best is None:
            return None
        total, n, o = best
        return (f"cheaper fitting configuration: {n}× {o['gpu_label']} ({n * dec(o['vram_gb']):.0f} GB) "
                f"from {usd(total)} per hour")

    def _fact(self, c: R.Fact, claim, page) -> Outcome:
        provider = c.provider or page.page.own_prices
        role = "own" if provider == page.page.own_prices else "cited"
        name = f"fact {c.fact}"
        problem = self._provider_problem(provider, role, name)
        if problem:
            return problem
        fact = self.snap.state(provider).facts.get(c.fact)
        if fact is None:
            return Outcome(unverifiable=f"{provider}'s latest page does not state {c.fact!r}",
                           inputs=[_input(name, role, provider, status="missing", used=False,
                                          fact={"fact": c.fact})])
        o = Outcome(inputs=[_input(name, role, provider, fact=fact)])
        if c.element is not None:
            numbers = re.findall(r"\d+(?:\.\d+)?", fact["value_text"] or "")
            if len(numbers) <= c.element:
                return Outcome(unverifiable=f"{provider}'s {c.fact!r} ({fact['value_text']!r}) has no item {c.element + 1}",
                               inputs=o.inputs)
            o.value = Decimal(numbers[c.element])
        elif claim.unit == "mark":
            o.value = bool(fact["value_num"])
        elif isinstance(claim.published, str):
            o.value = fact["value_text"] if fact["value_text"] is not None else str(fact["value_num"])
        else:
            o.value = dec(fact["value_num"])
        return o

    def _constant(self, c: R.Constant, claim, page) -> Outcome:
        rec = self.rules.records[c.record]
        value = rec.read if c.figure == "read" else rec.figures[c.figure]
        where = f"{rec.document}" + (f", {rec.table}" if rec.table else "") + f" (recorded {rec.read})"
        return Outcome(value=value, note=f"{c.figure} = {value} per {where}",
                       inputs=[_input(f"record {c.record}", "cited", rec.publisher,
                                      fact={"fact": f"{c.record}.{c.figure}", "source_url": rec.url,
                                            "value_num": float(value) if isinstance(value, Decimal) else None,
                                            "value_text": value if isinstance(value, str) else None})])

    def _difference(self, c: R.Difference, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.minus])
        if values is not None:
            o.value = values[0] - values[1]
        return o

    def _same(self, c: R.Same, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.to])
        if values is not None:
            a, b = (quantize(v, c.rounds_to) for v in values)
            o.value = a == b
            o.note = f"{a} vs {b}"
        return o

    def _rule_param(self, c: R.RuleParam, claim, page) -> Outcome:
        method = page.memory.methods[c.method]
        if c.field == "bytes_per_param":
            return Outcome(value=method.bytes_per_param.normalize())
        if c.field == "margin":
            return Outcome(value=method.margin.normalize())
        return Outcome(value=((method.margin - 1) * 100).normalize())

    def _observed_date(self, c: R.ObservedDate, claim, page) -> Outcome:
        dated, seen = [], []
        out = Outcome()
        for cid in c.of:
            o = self.outcome(cid)
            if o.unverifiable:
                return Outcome(unverifiable=f"dates {cid}: {o.unverifiable}", since=o.since)
            status, _, _ = judge(self.claims[cid], o)
            if status == "drifted":
                dated.append(cid)
            seen += [i["observed_at"] for i in o.inputs if i["used"] and i["observed_at"] is not None]
        if not seen:
            return Outcome(unverifiable="no dated input among " + ", ".join(c.of))
        day = max(seen).astimezone(timezone.utc)
        out.value = {"ja_date": f"{day.year}年{day.month}月{day.day}日", "iso_date": f"{day:%Y-%m-%d}",
                     "ja_minute_utc": f"{day.year}年{day.month}月{day.day}日 {day:%H:%M} UTC"}[c.format]
        if dated:
            # Not a drift of its own (one price change is one event): the regenerated page shows
            # the new date wherever a claim it dates drifted (pricewatch/claims/pages.py).
            out.note = "the readings it dates changed: " + ", ".join(dated[:5]) + (" ..." if len(dated) > 5 else "")
        return out

    def _less(self, c: R.Less, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.than])
        if values is not None:
            o.value = values[0] < values[1]
            o.note = f"{values[0].normalize()} vs {values[1].normalize()}"
        return o

    def _parameter(self, c: R.Parameter, claim, page) -> Outcome:
        value = getattr(self.claims[c.of].compute, c.field, None)
        if value is None:
            return Outcome(unverifiable=f"{c.of} has no {c.field}")
        return Outcome(value=Decimal(value))

    def _smallest_fit(self, c: R.SmallestFit, claim, page) -> Outcome:
        need, o = self._term(c.needs)
        if need is None:
            return o
        provider = page.page.own_prices
        problem = self._provider_problem(provider, "own", "own GPUs")
        if problem:
            return problem
        rented = {o2["gpu_model"] for o2 in self.snap.state(provider).offers.values() if o2["is_priced"]}
        fitting = sorted((page.vram(g), g) for g, spec in page.gpus.items()
                         if spec.model in rented and page.vram(g) >= need)
        if not fitting:
            o.value = "none"
            o.note = f"no GPU {provider} rents holds {need} GB"
            return o
        o.value = fitting[0][1]
        o.note = "fitting, smallest first: " + ", ".join(f"{g} ({v} GB)" for v, g in fitting)
        return o

    def _count_of(self, c: R.CountOf, claim, page) -> Outcome:
        return Outcome(value=Decimal(len(c.claims)))


def judge(claim: R.Claim, o: Outcome) -> tuple[str, Decimal | None, str | None]:
    """(status, difference, reason) of an outcome against the published value."""
    if o.unverifiable:
        return "unverifiable", None, o.unverifiable
    pub, cur, diff = claim.published, o.value, None
    if claim.compute.kind == "observed_date":
        # A date states when the readings were taken: it is never itself wrong (what it dates may
        # be). A page that left the date blank ("価格確認日：") is filled in by the regenerated page.
        ok = True
    elif isinstance(pub, bool) or claim.unit == "mark":
        ok = bool(cur) == bool(pub)
    elif isinstance(pub, str) or isinstance(cur, str):
        ok = str(cur) == str(pub)
    else:
        cur = Decimal(cur)
        diff = cur - pub
        tol = claim.tol
        if tol == "exact":
            ok = cur == pub
        elif tol == "cents":
            ok = quantize(cur, 2) == pub
        elif isinstance(tol, R.RoundsTo):
            ok = quantize(cur, tol.rounds_to) == pub
        else:
            ok = abs(diff) <= abs(pub) * tol.percent / 100
    if ok and not o.drift:
        return "holds", diff, None
    reason = [] if ok else [f"published {display(claim, pub)}, now {display(claim, cur)}"]
    if o.drift:
        reason.append(o.drift)
    return "drifted", diff, "; ".join(reason)


def tolerance_text(claim: R.Claim) -> str:
    tol = claim.tol
    if isinstance(tol, R.RoundsTo):
        return f"rounds to {tol.rounds_to} decimal{'s' if tol.rounds_to != 1 else ''}"
    if isinstance(tol, R.Percent):
        return f"±{tol.percent}%"
    return tol


def _num(v) -> float | None:
    n = as_number(v)
    return None if n is None else round(float(n), 6)


def evaluate_claims(con: duckdb.DuckDBPyConnection, run_id: str, rules: R.RuleSet | None = None,
                    trigger: str = "run") -> dict:
    """Evaluates every claim not yet evaluated for ``run_id`` under the current rules as of that
    run's snapshot and stores the results. With ``trigger='run'`` the latest evaluated snapshot is
    first evaluated again if the rules changed since (its changes are returned as
    ``rule_changes``). Returns {run_id, evaluated, counts, drifted, unverifiable, rule_changes}."""
    from warehouse.db import ensure_migrated

    ensure_migrated(con)
    rules = rules or R.cached_rules()
    rule_changes = reevaluate_latest(con, rules, other_than=run_id) if trigger == "run" else None
    evaluated = _evaluate(con, run_id, rules, trigger)
    return {**claims_summary(con, run_id), "evaluated": evaluated, "rules_version": rules.version,
            "rule_changes": rule_changes}


def reevaluate_latest(con: duckdb.DuckDBPyConnection, rules: R.RuleSet | None = None,
                      other_than: str | None = None, force: bool = False) -> dict | None:
    """Evaluates the latest evaluated snapshot again when rules/ changed since it was evaluated
    (or always, with ``force``: rules unchanged give no new rows). Returns None when there was
    nothing to do, else {run_id, rules_version, previous_version, evaluated, changed: [...]}:
    each claim whose status or recomputed text the rule change moved, or that it added/removed."""
    from warehouse.db import ensure_migrated

    ensure_migrated(con)
    rules = rules or R.cached_rules()
    row = con.execute(query("latest_evaluated_run"), [other_than or ""]).fetchone()
    if row is None:
        return None
    run_id, previous_version = row
    if previous_version == rules.version and not force:
        return None
    evaluated = _evaluate(con, run_id, rules, "rules")
    cols = ["claim_id", "page", "change", "old_status", "new_status", "old_text", "new_text", "says_en"]
    changed = [dict(zip(cols, r)) for r in con.execute(query("rule_changes"), [run_id, rules.version]).fetchall()] \
        if evaluated else []
    return {"run_id": run_id, "rules_version": rules.version, "previous_version": previous_version,
            "evaluated": evaluated, "changed": changed}


def _evaluate(con: duckdb.DuckDBPyConnection, run_id: str, rules: R.RuleSet, trigger: str) -> int:
    done = {cid for (cid,) in con.execute(query("evaluated_claims_of_run"), [run_id, rules.version]).fetchall()}
    todo = [c for c in rules.claims.values() if c.id not in done]
    if not todo:
        return 0
    snap = Snapshot(con, run_id)
    ev = Evaluator(rules, snap)
    now = datetime.now(timezone.utc)
    rows, inputs = [], []
    for claim in todo:
        o = ev.outcome(claim.id)
        status, diff, reason = judge(claim, o)
        page = rules.pages[claim.page]
        rows.append({
            "run_id": run_id, "claim_id": claim.id, "claim_group": claim.claim_group, "page": claim.page,
            "kind": claim.compute.kind, "status": status, "published_value": _num(claim.published),
            "current_value": None if o.unverifiable else _num(o.value), "difference": _num(diff),
            "tolerance": tolerance_text(claim), "reason": reason, "snapshot_at": snap.at, "evaluated_at": now,
            "published_text": display(claim, claim.published),
            "current_text": None if o.unverifiable else display(claim, o.value),
            "pick": o.pick, "note": o.note, "unverifiable_since": o.since if o.unverifiable else None,
            "says_ja": claim.says.ja, "says_en": claim.says.en,
            "cited_date": claim.cited_date or page.page.prices_dated,
            "rules_version": rules.version, "trigger": trigger,
        })
        seen = set()
        for i in o.inputs:
            if i["input_name"] in seen:
                continue
            seen.add(i["input_name"])
            inputs.append({"run_id": run_id, "claim_id": claim.id, **i, "rules_version": rules.version})
    _insert(con, rows, inputs)
    return len(todo)


def claims_summary(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """Status counts of a run's evaluations, and each claim that does not hold (for the flow summary)."""
    rows = con.execute(query("run_evaluation_latest"), [run_id]).fetchall()
    out = {"run_id": run_id, "counts": {s: 0 for s in STATUSES}, "drifted": [], "unverifiable": []}
    for claim_id, status, reason, *_ in rows:
        out["counts"][status] += 1
        if status != "holds":
            out[status].append({"claim_id": claim_id, "detail": reason})
    return out


EVAL_COLUMNS = ["run_id", "claim_id", "claim_group", "page", "kind", "status", "published_value", "current_value",
                "difference", "tolerance", "reason", "snapshot_at", "evaluated_at", "published_text", "current_text",
                "pick", "note", "unverifiable_since", "says_ja", "says_en", "cited_date", "rules_version", "trigger"]
INPUT_COLUMNS = ["run_id", "claim_id", "input_name", "role", "provider", "offer_key", "gpu_model", "gpu_count",
                 "billing", "price_per_hour", "price_per_gpu_hour", "observed_at", "source_url", "warc_file",
                 "warc_record_id", "input_status", "used", "offer_run_id", "price_text", "fact", "value_num",
                 "value_text", "rules_version"]


def _frame(rows: list[dict], columns: list[str], numeric: tuple[str, ...]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=columns)
    for col in numeric:
        df[col] = pd.to_numeric(df[col].map(lambda v: None if v is None else float(v)), errors="coerce").astype("float64")
    for col in ("snapshot_at", "evaluated_at", "unverifiable_since", "observed_at"):
        if col in df:
            df[col] = pd.to_datetime(df[col], utc=True)
    return df


def _insert(con: duckdb.DuckDBPyConnection, rows: list[dict], inputs: list[dict]) -> None:
    ev = _frame(rows, EVAL_COLUMNS, ("published_value", "current_value", "difference"))
    ins = _frame(inputs, INPUT_COLUMNS, ("price_per_hour", "price_per_gpu_hour", "value_num"))
    ins["gpu_count"] = ins["gpu_count"].astype("Int64")
    con.execute("BEGIN")
    try:
        insert_frame(con, "claim_evaluations", ev, EVAL_COLUMNS)
        insert_frame(con, "claim_inputs", ins, INPUT_COLUMNS)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise

"""The Evaluator: each claim's outcome as of one snapshot, kind by kind (rules/README.md). The
price kinds are here; the kinds of whole pages are pricewatch/claims/page_kinds.py."""

from __future__ import annotations

import math
import re
from decimal import Decimal

from pricewatch.claims import kinds as K
from pricewatch.claims import rules as R
from pricewatch.claims.classes import chosen_class
from pricewatch.claims.formatting import as_number, quantize
from pricewatch.claims.page_kinds import PageKinds
from pricewatch.claims.placeholders import placeholder_text, what_it_is
from pricewatch.claims.placeholders import reading as placeholder_reading
from pricewatch.claims.queries import query
from pricewatch.claims.result import Outcome, _input, ts, usd
from pricewatch.claims.snapshot import Interest, Snapshot, dec


def interest(rules: R.RuleSet) -> Interest:
    """The offers the claims of ``rules`` can read (a Snapshot reads only those): every offer of
    each page's own price list (own prices, configurations, run costs, "from" prices, fits),
    each cited offer, and every offer of each "cheapest" claim's GPU, count and billing. A kind
    that reads other offers must be added here (the reads are checked: Evaluator._reads)."""
    providers = {p.page.own_prices for p in rules.pages.values()}
    offers, groups = set(), set()
    for claim in rules.claims.values():
        c = claim.compute
        if isinstance(c, K.CitedOffer):
            offers.add((c.provider, c.offer))
        elif isinstance(c, K.CheapestOffer):
            groups.add((c.gpu, c.count, c.billing))
            if c.cites:
                offers.add((c.cites.provider, c.cites.offer))
    return Interest(frozenset(providers), frozenset(offers), frozenset(groups))


class Evaluator(PageKinds):
    """Every kind of rules/README.md: the price kinds here, the kinds of whole pages in
    pricewatch/claims/page_kinds.py."""

    def __init__(self, rules: R.RuleSet, snap: Snapshot):
        self.rules = rules
        self.snap = snap
        self.claims = rules.claims
        self._done: dict[str, Outcome] = {}
        self._picks: dict[str, tuple[str, str]] | None = None
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
        if isinstance(t, K.ClaimRef):
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
    def _reads(self, provider: str, offer_key: str | None = None, group: tuple | None = None) -> None:
        """A read the snapshot's Interest must cover (else the answer would be wrong, not slow)."""
        if self.snap.interest is not None and not self.snap.interest.covers(provider, offer_key, group):
            raise LookupError(f"the snapshot did not read {provider} {offer_key or group or 'offers'}: "
                              "add it to pricewatch.claims.evaluator.interest")

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
                           since=at, inputs=[_input(name, role, provider, status="stale", used=False)])
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
        self._reads(provider, offer_key)
        offer = self.snap.state(provider).offers.get(offer_key)
        if offer is None:
            since = self.snap.absent_since(provider, offer_key)
            seen = f"gone since {ts(since)}" if since else "never listed"
            return None, Outcome(unverifiable=f"{what}: {seen}", since=since,
                                 inputs=[_input(name, role, provider, status="missing", used=False, offer_key=offer_key)])
        if role == "cited":
            placeholder = self._placeholder(provider, offer_key, offer, name, role, "cited offer")
            if placeholder:
                return None, placeholder
        if not offer["is_priced"]:
            since = self.snap.unpriced_since(provider, offer_key)
            return None, Outcome(unverifiable=f"{what}: no price ({offer['price_text']!r}) since {ts(since)}",
                                 since=since, inputs=[_input(name, role, provider, offer, status="unpriced", used=False)])
        return offer, Outcome(inputs=[_input(name, role, provider, offer)])

    def _placeholder(self, provider: str, offer_key: str, offer: dict | None, name: str, role: str,
                     which: str) -> Outcome | None:
        """Unverifiable when a cited offer (or a "cheapest" claim's current pick) reads as a
        placeholder: the text it printed where its price stood, and since when
        (pricewatch/claims/placeholders.py)."""
        text = placeholder_text(offer)
        if text is None:
            return None
        row = placeholder_reading(offer)
        since = self.snap.unpriced_since(provider, offer_key) or row.get("observed_at")
        held = " (held by the quality gate)" if offer.get("held_row") is not None else ""
        reason = (f"{which} {provider} {offer_key!r} reads {text!r} since {ts(since)}{held}: {what_it_is(text)} "
                  "where a price stood, unverifiable until a price reads again")
        return Outcome(unverifiable=reason, since=since,
                       inputs=[_input(name, role, provider, {**row, "price_per_hour": None, "price_per_gpu_hour": None},
                                      status="unpriced", used=False)])

    def _previous_pick(self, claim_id: str) -> tuple[str, str] | None:
        """The offer a "cheapest" claim picked in the latest evaluation before this snapshot."""
        if self._picks is None:
            self._picks = {c: (p, k) for c, p, k in self.snap.con.execute(
                query("previous_picks"), [self.snap.at, self.snap.run_id]).fetchall()}
        return self._picks.get(claim_id)

    def _own(self, page: R.Page, gpu: str) -> tuple[dict | None, Outcome]:
        """The page's own price for a GPU it names: the cheapest per GPU-hour of its price list."""
        provider, model = page.page.own_prices, page.gpus[gpu].model
        name = f"own price {gpu}"
        problem = self._provider_problem(provider, "own", name)
        if problem:
            return None, problem
        self._reads(provider)
        offers = [o for o in self.snap.state(provider).offers.values() if o["gpu_model"] == model]
        # like with like: the offers of one comparable class (pricewatch/claims/classes.py)
        target, problem = chosen_class(self.snap, offers, page.gpus[gpu].class_)
        if problem:
            return None, Outcome(unverifiable=f"{provider} lists {gpu} ({model}) as {problem}")
        offers = [o for o in offers if self.snap.comparable_class(o) == target]
        priced = [o for o in offers if o["is_priced"]]
        if priced:
            best = min(priced, key=lambda o: (o["price_per_gpu_hour"], o["offer_key"]))
            return best, Outcome(inputs=[_input(name, "own", provider, best)])
        if offers:
            return self._offer(provider, offers[0]["offer_key"], "own", name)
        last = self.snap.con.execute(query("own_last_listed"), [provider, model, self.snap.at]).fetchone()
        if last:
            return self._offer(provider, last[0], "own", name)
        return None, Outcome(unverifiable=f"{provider} has never listed {gpu} ({model})",
                             inputs=[_input(name, "own", provider, status="never_seen", used=False)])

    # ---- kinds -----------------------------------------------------------------------------
    def _own_price(self, c: K.OwnPrice, claim, page) -> Outcome:
        offer, o = self._own(page, c.gpu)
        if offer:
            o.value = dec(offer["price_per_gpu_hour"])
        return o

    def _config_price(self, c: K.ConfigPrice, claim, page) -> Outcome:
        offer, o = self._own(page, c.gpu)
        if offer:
            o.value = c.count * dec(offer["price_per_gpu_hour"])
        return o

    def _run_cost(self, c: K.RunCost, claim, page) -> Outcome:
        offer, o = self._own(page, c.gpu)
        if offer:
            o.value = c.count * c.hours * dec(offer["price_per_gpu_hour"])
        return o

    def _cited_offer(self, c: K.CitedOffer, claim, page) -> Outcome:
        offer, o = self._offer(c.provider, c.offer, "cited", "cited offer")
        if offer:
            o.value = dec(offer["price_per_hour" if c.price == "per_hour" else "price_per_gpu_hour"])
            o.pick = self.rules.provider_name(c.provider)
        return o

    def _cheapest_offer(self, c: K.CheapestOffer, claim, page) -> Outcome:
        price = "price_per_hour" if c.price == "per_hour" else "price_per_gpu_hour"
        cited = (c.cites.provider, c.cites.offer) if c.cites else None
        self._reads("", group=(c.gpu, c.count, c.billing))
        comparable = [
            o for o in self.snap.all_offers()
            if o["gpu_model"] == c.gpu and o["gpu_count"] == c.count and o["billing"] == c.billing
            and o["is_priced"] and o["currency"] == "USD" and o["provider"] not in c.exclude_providers
            and o["tier"] not in c.exclude_tiers and o["provider"] not in self.stale
            and (c.include_aggregators or not o["is_aggregator"])
            and (c.self_service is None or bool(o["self_service"]) == c.self_service)
            # an offer whose newest reading the quality gate holds is not compared: the trusted
            # reading in its place is older than its page (a cited offer keeps it, as published)
            and (not o.get("held_reading") or (o["provider"], o["offer_key"]) == cited)]
        # Like with like: only the offers of one comparable class (pricewatch/claims/classes.py).
        target, problem = chosen_class(self.snap, comparable, c.class_, cited)
        if problem:
            return Outcome(unverifiable=f"{c.count}× {c.gpu} {c.billing}: {problem}")
        candidates = [o for o in comparable if self.snap.comparable_class(o) == target]
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
        # A cited offer, or the offer the claim picked last time, that now reads as a placeholder
        # keeps the claim unverifiable: the pick never moves to the next provider on a "$0.00".
        blocked = cited_out if cited_offer is None and any(i["input_status"] == "unpriced"
                                                           for i in cited_out.inputs) else None
        previous = self._previous_pick(claim.id)
        if blocked is None and previous and previous != cited and previous[0] not in c.exclude_providers:
            state = self.snap.state(previous[0])
            if state and not state.failing_since and previous[0] not in self.stale:
                self._reads(previous[0], previous[1], (c.gpu, c.count, c.billing))
                blocked = self._placeholder(previous[0], previous[1], state.offers.get(previous[1]), "cheapest pick",
                                            "cheapest", "the current pick")
        published = claim.published if isinstance(claim.published, Decimal) else None
        proven = pick is not None and published is not None and dec(pick[price]) < published
        if blocked is not None and not proven:
            if blocked is not cited_out:
                out.inputs += blocked.inputs
            what = f"{c.count}× {target or c.gpu} {c.billing}" + (" self-service" if c.self_service else "")
            out.unverifiable, out.since = blocked.unverifiable, blocked.since
            out.note = (f"not re-picked: the cheapest other {what} offer is "
                        f"{self.rules.provider_name(pick['provider'])} {pick['offer_key']!r} at {usd(pick[price])}"
                        if pick is not None else None)
            return out
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
        held = sorted({o["provider"] for o in self.snap.all_offers()
                       if o.get("held_reading") and o["gpu_model"] == c.gpu and o["gpu_count"] == c.count
                       and o["billing"] == c.billing and (o["provider"], o["offer_key"]) != cited
                       and self.snap.comparable_class(o) == target})
        if held:
            note += "; not compared (newest reading held by the quality gate): " + ", ".join(held)
        out.note = note
        what = f"{c.count}× {target or c.gpu} {c.billing}" + (" self-service" if c.self_service else "")
        if pick is None:
            out.unverifiable = cited_out.unverifiable or f"no {what} offer in the snapshot"
            out.since = cited_out.since
            return out
        out.value = dec(pick[price])
        out.pick = self.rules.provider_name(pick["provider"])
        cited_provider_down = cited and cited_out.unverifiable and cited_offer is None and any(
            i["input_status"] in ("failed", "stale", "never_seen") for i in cited_out.inputs)
        if cited_provider_down and not (published is not None and out.value < published):
            # The cited provider cannot be read: only a competitor below the published price proves a drift.
            out.unverifiable, out.since = cited_out.unverifiable, cited_out.since
            return out
        if cited and pick is not cited_offer:
            state = "now " + usd(cited_offer[price]) if cited_offer else cited_out.unverifiable
            out.drift = (f"cheapest is now {out.pick} {pick['offer_key']!r} at {usd(out.value)}; "
                         f"the page cites {self.rules.provider_name(cited[0])} {cited[1]!r} ({state})")
        return out

    def _ratio(self, c: K.Ratio, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.to])
        if values is not None:
            if values[1] == 0:
                o.unverifiable = "division by zero"
            else:
                o.value = values[0] / values[1]
        return o

    def _product(self, c: K.Product, claim, page) -> Outcome:
        values, o = self._terms(c.of)
        if values is not None:
            o.value = math.prod(values, start=Decimal(1))
        return o

    def _sum(self, c: K.Sum, claim, page) -> Outcome:
        values, o = self._terms(c.of)
        if values is not None:
            o.value = sum(values, Decimal(0))
        return o

    def _memory(self, c: K.Memory, claim, page) -> Outcome:
        method = page.memory.methods[c.method]
        gb = c.params_b * method.bytes_per_param * method.margin
        if page.memory.rounding != "none":
            for step in page.memory.rounding:
                if step.below_gb is None or gb < step.below_gb:
                    gb = quantize(gb, step.decimals)
                    break
        return Outcome(value=gb.normalize() if gb == gb.to_integral() else gb)

    def _fits(self, c: K.Fits, claim, page) -> Outcome:
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

    def _total_vram(self, c: K.TotalVram, claim, page) -> Outcome:
        return Outcome(value=c.count * page.vram(c.gpu))

    def _from_price(self, c: K.FromPrice, claim, page) -> Outcome:
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
        self._reads(page.page.own_prices)
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

    def _fact(self, c: K.Fact, claim, page) -> Outcome:
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

"""The computation kinds that whole pages need (rules/README.md, "Kinds added for whole pages"):
cited document figures, differences, comparisons, the page's own rule numbers, dates of readings,
the smallest fitting GPU, counts. A mixin of pricewatch.claims.evaluate.Evaluator."""

from __future__ import annotations

from datetime import timezone
import re
from decimal import ROUND_HALF_UP, Decimal

from pricewatch.claims import kinds as K
from pricewatch.claims.formatting import display, quantize
from pricewatch.claims.judge import judge
from pricewatch.claims.result import Outcome, _input


_NUMBERS = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _to_step(value: Decimal, step: Decimal) -> Decimal:
    """The multiple of ``step`` nearest to ``value`` (half up): 0.738 to 0.05 is 0.75."""
    return ((Decimal(value) / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step).normalize()


def _plain(value: Decimal) -> str:
    return format(Decimal(value).normalize(), "f")


class PageKinds:
    def _constant(self, c: K.Constant, claim, page) -> Outcome:
        rec = self.rules.records[c.record]
        value = rec.read if c.figure == "read" else rec.figures[c.figure]
        where = f"{rec.document}" + (f", {rec.table}" if rec.table else "") + f" (recorded {rec.read})"
        return Outcome(value=value, note=f"{c.figure} = {value} per {where}",
                       inputs=[_input(f"record {c.record}", "cited", rec.publisher,
                                      fact={"fact": f"{c.record}.{c.figure}", "source_url": rec.url,
                                            "value_num": float(value) if isinstance(value, Decimal) else None,
                                            "value_text": value if isinstance(value, str) else None})])

    def _difference(self, c: K.Difference, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.minus])
        if values is not None:
            o.value = values[0] - values[1]
        return o

    def _same(self, c: K.Same, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.to])
        if values is not None:
            a, b = (_to_step(v, c.step) if c.step else quantize(v, c.rounds_to) for v in values)
            o.value = a == b
            o.note = f"{self._term_words(c.of, a)} {'=' if a == b else '≠'} {self._term_words(c.to, b)}"
        return o

    def _pick_source(self, c: K.PickSource, claim, page) -> Outcome:
        """The sources-list line of the provider claim ``c.of`` cites or picks now (see K.PickSource)."""
        o = self.outcome(c.of)
        if o.unverifiable:
            return Outcome(unverifiable=f"names the source of {c.of}: {o.unverifiable}", since=o.since)
        picked = [i for i in o.inputs if i["used"] and i["role"] in ("cited", "cheapest")]
        picked.sort(key=lambda i: not i["input_name"].endswith("cheapest pick"))   # the pick first
        if not picked:
            return Outcome(unverifiable=f"{c.of} used no offer to name a source for")
        provider, seen = picked[0]["provider"], picked[0]["observed_at"]
        address = c.pages.get(provider) or self._source_address(provider, picked[0].get("source_url"))
        name = self.rules.provider_name(provider)
        day = seen.astimezone(timezone.utc) if seen else None
        out = Outcome(value=f"{name}の料金 {address} — {name} (read {day:%Y-%m-%d})" if day else
                      f"{name}の料金 {address} — {name}", inputs=[])
        published = str(claim.published)
        if not published.startswith(f"{name}の料金 "):
            out.drift = (f"the sources list names {published.split('の料金')[0]}, but {c.of} now cites or picks "
                         f"{name}: the line is now {out.value}")
        return out

    def _source_address(self, provider: str, url: str | None) -> str:
        """A provider's price page as a sources list prints it (host and path, no scheme)."""
        from urllib.parse import urlsplit
        if not url:
            return provider
        parts = urlsplit(url)
        return (parts.netloc.removeprefix("www.") + parts.path.rstrip("/")) or url

    def _term_words(self, term, value) -> str:
        """A term of a relation in words, with its number as the page shows it: "the ratio at
        our prices (g-ratio-full-vs-qlora.own) 34×"; a constant is its number."""
        if isinstance(term, K.ClaimRef) and term.claim in self.claims:
            claim = self.claims[term.claim]
            return f"{claim.says.en if claim.says and claim.says.en else claim.id} ({claim.id}) {display(claim, value)}"
        return str(Decimal(value).normalize())

    def _rule_param(self, c: K.RuleParam, claim, page) -> Outcome:
        method = page.memory.methods[c.method]
        if c.field == "bytes_per_param":
            return Outcome(value=method.bytes_per_param.normalize())
        if c.field == "margin":
            return Outcome(value=method.margin.normalize())
        return Outcome(value=((method.margin - 1) * 100).normalize())

    def _observed_date(self, c: K.ObservedDate, claim, page) -> Outcome:
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

    def _less(self, c: K.Less, claim, page) -> Outcome:
        values, o = self._terms([c.of, c.than])
        if values is not None:
            o.value = values[0] < values[1]
            o.note = (f"{self._term_words(c.of, values[0])} {'<' if o.value else '≥'} "
                      f"{self._term_words(c.than, values[1])}")
        return o

    def _parameter(self, c: K.Parameter, claim, page) -> Outcome:
        value = getattr(self.claims[c.of].compute, c.field, None)
        if value is None:
            return Outcome(unverifiable=f"{c.of} has no {c.field}")
        return Outcome(value=Decimal(value))

    def _smallest_fit(self, c: K.SmallestFit, claim, page) -> Outcome:
        need, o = self._term(c.needs)
        if need is None:
            return o
        provider = page.page.own_prices
        problem = self._provider_problem(provider, "own", "own GPUs")
        if problem:
            return problem
        self._reads(provider)
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

    def _among(self, c: K.Among, claim, page) -> Outcome:
        values, o = self._terms(c.of)
        lo = self.outcome(c.listed)
        o.inputs += [{**i, "input_name": f"{c.listed}: {i['input_name']}"} for i in lo.inputs]
        if lo.unverifiable:
            return Outcome(inputs=o.inputs, unverifiable=f"needs {c.listed}: {lo.unverifiable}", since=lo.since)
        if values is None:
            return o
        allowed = [Decimal(n.replace(",", "")) for n in _NUMBERS.findall(str(lo.value))]
        outside = [v for v in values if v not in allowed]
        o.value = not outside
        words = ", ".join(_plain(v) for v in values)
        listed_words = ", ".join(_plain(v) for v in allowed)
        o.note = (f"{words} are all among {c.listed} ({listed_words})" if not outside else
                  f"{', '.join(_plain(v) for v in outside)} not among {c.listed} ({listed_words})")
        return o

    def _count_of(self, c: K.CountOf, claim, page) -> Outcome:
        return Outcome(value=Decimal(len(c.claims)))

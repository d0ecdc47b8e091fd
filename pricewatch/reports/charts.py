"""Price-history charts of the HTML report: altair specs rendered to inline SVG offline by
vl-convert (no JavaScript, no network: ``allowed_base_urls=[]``, the data is inline).

Two kinds, both small (a few dozen per report, ~0.1 s each):

* an offer a claim names (cited, cheapest or own price): its price spells from
  offer_price_history as a step line, one point per spell start, broken where the offer was
  absent, with the published value of every price claim that used it as a dashed reference line;
* the cheapest offer per comparable class per day (cheapest_offer_daily, which groups by the
  macro comparable_class of warehouse/macros/comparable_class.sql), one line per billing
  (an H100 SXM chart and an H100 NVL chart, never one line mixing them: issue 23 item 3), and for
  a "cheapest" claim its own class, count and billing with the published value as reference.

Charts carry no scraped text: a chart's title (provider and offer key) and unit are printed by the
HTML template (escaped) above it; the SVG holds only axes, numbers, dates and billing names, which
vl-convert writes as escaped SVG text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from functools import cache

import altair as alt
import vl_convert

from pricewatch.claims import rules as R

WIDTH, HEIGHT = 330, 130
REF_COLOUR = "#c0392b"
LINE_COLOUR = "#1f6feb"
PRICE_KINDS = ("own_price", "config_price", "from_price", "cited_offer", "cheapest_offer")


@dataclass
class Reference:
    """A published value drawn on a chart: in the chart's unit, with the claims it comes from."""
    value: float
    claims: list[str] = field(default_factory=list)
    published_text: str = ""


@dataclass
class Chart:
    title: str
    unit: str                  # "per hour" | "per GPU-hour"
    svg: str
    references: list[Reference]
    note: str = ""


def render(template: str, **datasets: list[dict]) -> str:
    """One chart as an inline <svg> element (no XML declaration, no external reference): an
    altair template (built once per process: building and validating altair objects costs more
    than rendering) with its named datasets filled in. A spec already rendered in this process
    (an offer whose history did not change since the last report) is not rendered again."""
    spec = dict(_templates()[template])
    spec["datasets"] = datasets
    text = json.dumps(spec, sort_keys=True, default=str)
    svg = _rendered.get(text)
    if svg is None:
        svg = vl_convert.vegalite_to_svg(text, allowed_base_urls=[])
        svg = svg[svg.index("<svg"):]
        if len(_rendered) >= 512:
            _rendered.clear()
        _rendered[text] = svg
    return svg


_rendered: dict[str, str] = {}


#: billing -> its colour, the same in every chart of the report.
BILLING_COLOURS = {"on-demand": "#1f77b4", "reserved": "#2ca02c", "spot": "#d62728", "marketplace": "#9467bd"}


@cache
def _templates() -> dict[str, dict]:
    """The chart shapes, as Vega-Lite specs from altair; data by name ("points", "refs").

    step: a price in force from one reading to the next (step line, a dot at each spell's
          start, a new segment after an absence), the published values as dashed rules;
    billing: one line per billing, dots at each day."""
    # UTC, 24-hour: a 17:40 UTC snapshot reads "10-31 17:40", never vega's 12-hour "05:40"
    x = alt.X("t:T", title=None, scale=alt.Scale(type="utc"),
              axis=alt.Axis(labelAngle=0, tickCount=4, grid=False, labelOverlap=False,
                            labelExpr="utcFormat(datum.value, '%m-%d %H:%M')"))
    y = alt.Y("price:Q", title=None, scale=alt.Scale(zero=False),
              axis=alt.Axis(format="$,.3~f", tickCount=4, labelOverlap=False))
    points = alt.NamedData("points")
    line = alt.Chart(points).mark_line(interpolate="step-after", color=LINE_COLOUR).encode(x=x, y=y, detail="segment:N")
    dots = alt.Chart(points).transform_filter("datum.start").mark_point(filled=True, size=28, color=LINE_COLOUR) \
        .encode(x=x, y=y)
    refs = alt.Chart(alt.NamedData("refs")).mark_rule(color=REF_COLOUR, strokeDash=[5, 3], strokeWidth=1.5) \
        .encode(y=alt.Y("published:Q"))
    # One colour per billing in every chart (a fixed domain: reserved is never spot's colour elsewhere).
    billing = alt.Chart(points).mark_line(point=True).encode(
        x=x, y=y, color=alt.Color("billing:N", legend=alt.Legend(title=None, orient="right"),
                                  scale=alt.Scale(domain=list(BILLING_COLOURS), range=list(BILLING_COLOURS.values()))))
    # Titles and units are printed by the page (HTML text, escaped), not drawn: fewer texts to
    # measure, ~3x faster to render, and no scraped text in the SVG.
    return {"step": alt.layer(line, dots, refs).properties(width=WIDTH, height=HEIGHT).to_dict(),
            "billing": billing.properties(width=WIDTH, height=HEIGHT).to_dict()}


# ---- cited offers ----------------------------------------------------------------------------

def reference_of(claim: R.Claim, published_value) -> tuple[str, float] | None:
    """A price claim's published value as (unit, value) on a chart of the offer it used, or None
    when the claim is not a price (a ratio, a sum, a check mark)."""
    kind = claim.compute.kind
    if kind not in PRICE_KINDS or published_value is None:
        return None
    value = float(published_value)
    if kind in ("cited_offer", "cheapest_offer"):
        return ("per hour" if claim.compute.price == "per_hour" else "per GPU-hour"), value
    if kind in ("config_price", "from_price"):        # count x the per-GPU-hour price
        return "per GPU-hour", value / claim.compute.count
    return "per GPU-hour", value                        # own_price


def spell_points(spells: list[dict], unit: str) -> list[dict]:
    """Step-line points of an offer's spells: each spell's start and end (its valid_to, or its
    last reading while current); a new segment after an absence or an unpriced spell."""
    col = "price_per_hour" if unit == "per hour" else "price_per_gpu_hour"
    rows, segment, previous_end = [], 0, None
    for s in spells:
        if s[col] is None:             # "Contact sales": no price to draw
            segment += 1
            previous_end = None
            continue
        if previous_end is None or s["valid_from"] != previous_end:
            segment += 1
        end = s["valid_to"] or s["last_seen_at"]
        price = float(s[col])
        rows.append({"t": _iso(s["valid_from"]), "price": price, "segment": segment, "start": True})
        if end and end != s["valid_from"]:
            rows.append({"t": _iso(end), "price": price, "segment": segment, "start": False})
        previous_end = s["valid_to"]
    return rows


def offer_chart(title: str, spells: list[dict], refs: list[Reference], unit: str) -> Chart:
    points = spell_points(spells, unit)
    note = "" if points else "no priced reading stored"
    if any(s["price_per_hour"] is None for s in spells):
        note = "gaps: the offer printed no price (e.g. Contact sales)"
    return Chart(title, unit, render("step", points=points, refs=[{"published": r.value} for r in refs]), refs, note)


def offer_charts(rules: R.RuleSet, offers: list[dict], spells: list[dict], published: dict[str, tuple]) -> list[Chart]:
    """One chart per offer a claim named (``offers``: report_cited_offers.sql rows), the
    published value of each price claim that used it as reference. ``published``: claim id ->
    (published_value, published_text) of its latest evaluation."""
    by_offer: dict[tuple[str, str], list[dict]] = {}
    for o in offers:
        by_offer.setdefault((o["provider"], o["offer_key"]), []).append(o)
    history: dict[tuple[str, str], list[dict]] = {}
    for s in spells:
        history.setdefault((s["provider"], s["offer_key"]), []).append(s)
    charts = []
    for (provider, key), uses in by_offer.items():
        gpu_count = next((u["gpu_count"] for u in uses if u["gpu_count"]), 1)
        found = []
        for u in uses:
            claim = rules.claims.get(u["claim_id"])
            if claim is None or not u["used"] or u["claim_id"] not in published:
                continue
            ref = reference_of(claim, published[u["claim_id"]][0])
            if ref:
                found.append((u["claim_id"], *ref))
        unit = "per hour" if any(r[1] == "per hour" for r in found) else "per GPU-hour"
        refs: dict[float, Reference] = {}
        for claim_id, ref_unit, value in found:
            if ref_unit != unit:       # a per-GPU-hour claim on a per-hour chart
                value = value * gpu_count
            ref = refs.setdefault(round(value, 6), Reference(value, [], published[claim_id][1]))
            ref.claims.append(claim_id)
        title = f"{rules.provider_name(provider)} · {key}"
        chart = offer_chart(title, history.get((provider, key), []), list(refs.values()), unit)
        chart.note = "; ".join(x for x in (chart.note, _others(uses, refs)) if x)
        charts.append(chart)
    return charts


def _others(uses: list[dict], refs: dict[float, Reference]) -> str:
    drawn = {c for r in refs.values() for c in r.claims}
    rest = sorted({u["claim_id"] for u in uses} - drawn)
    if not rest:
        return ""
    shown = ", ".join(rest[:4]) + (f" and {len(rest) - 4} more" if len(rest) > 4 else "")
    return f"also an input of {shown}"


# ---- cheapest offer per comparable class --------------------------------------------------------

def cheapest_per_class(model: str, rows: list[dict]) -> list[Chart]:
    """One chart per comparable class of ``model``: its cheapest USD per GPU-hour per day and
    billing (over every GPU count)."""
    best: dict[str, dict[tuple, float]] = {}
    for r in rows:
        if r["gpu_model"] == model and r["min_price_per_gpu_hour"] is not None:
            key, price = (r["day"], r["billing"]), float(r["min_price_per_gpu_hour"])
            by_day = best.setdefault(r["comparable_class"], {})
            by_day[key] = min(price, by_day.get(key, price))
    charts = []
    for cls, by_day in sorted(best.items()):
        points = [{"t": _iso(day), "price": price, "billing": billing} for (day, billing), price in sorted(by_day.items())]
        charts.append(Chart(f"{cls}: cheapest per GPU-hour", "per GPU-hour", render("billing", points=points), [],
                            "the cheapest comparable offer of this class each day (self-service, USD, no "
                            "aggregator), any GPU count"))
    return charts


def cheapest_for_claim(claim: R.Claim, rows: list[dict], published_value, published_text: str,
                       cls: str | None = None) -> Chart:
    """A "cheapest" claim's own market (its comparable class ``cls``: the one the claim compares,
    pricewatch/claims/classes.py; count and billing) per day, its published value as reference."""
    c = claim.compute
    cls = cls or c.class_ or c.gpu
    col = "min_price_per_hour" if c.price == "per_hour" else "min_price_per_gpu_hour"
    unit = "per hour" if c.price == "per_hour" else "per GPU-hour"
    points = [{"t": _iso(r["day"]), "price": float(r[col]), "segment": 1, "start": True} for r in rows
              if r["gpu_model"] == c.gpu and r["comparable_class"] == cls and r["gpu_count"] == c.count
              and r["billing"] == c.billing and r[col] is not None]
    refs = [Reference(float(published_value), [claim.id], published_text)] if published_value is not None else []
    return Chart(f"Cheapest {c.count}x {cls} {c.billing} ({claim.id})", unit,
                 render("step", points=points, refs=[{"published": r.value} for r in refs]), refs,
                 "market cheapest per day (cheapest_offer_daily); the claim's own exclusions may differ")


def _iso(value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{value.isoformat()}T00:00:00Z"


def money(value) -> str:
    return f"${Decimal(str(value)).normalize():f}"

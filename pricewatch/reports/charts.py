"""Price-history charts of the HTML report: altair specs rendered to inline SVG offline by
vl-convert (no JavaScript, no network: ``allowed_base_urls=[]``, the data is inline).

Two kinds, both small (a few dozen per report, ~0.1 s each):

* an offer a claim names (cited, cheapest or own price): its price spells from
  offer_price_history as a step line, one point per spell start, broken where the offer was
  absent, with the published value of every price claim that used it as a dashed reference line;
* the cheapest offer per GPU per day (cheapest_offer_daily), one line per billing, and for a
  "cheapest" claim its own GPU, count and billing with the published value as reference.

Charts carry no scraped text: a chart's title (provider and offer key) and unit are printed by the
HTML template (escaped) above it; the SVG holds only axes, numbers, dates and billing names, which
vl-convert writes as escaped SVG text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal

import altair as alt
import pandas as pd
import vl_convert

from pricewatch.claims import rules as R

WIDTH, HEIGHT = 330, 130
REF_COLOUR = "#c0392b"
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


def to_svg(chart: alt.TopLevelMixin) -> str:
    """One chart as an inline <svg> element (no XML declaration, no external reference)."""
    svg = vl_convert.vegalite_to_svg(chart.to_dict(), allowed_base_urls=[])
    return svg[svg.index("<svg"):]


def _time_axis(field_name: str) -> alt.X:
    return alt.X(f"{field_name}:T", title=None, scale=alt.Scale(type="utc"),
                 axis=alt.Axis(labelAngle=0, tickCount=4, grid=False, labelOverlap=False))   # vega's own
                                                                                            # date format: days or hours


def _price_axis(unit: str) -> alt.Y:
    return alt.Y("price:Q", title=None, scale=alt.Scale(zero=False),
                 axis=alt.Axis(format="$,.3~f", tickCount=4, labelOverlap=False))


def _ref_layer(refs: list[Reference]) -> alt.Chart | None:
    if not refs:
        return None
    frame = pd.DataFrame({"published": [r.value for r in refs]})
    return alt.Chart(frame).mark_rule(color=REF_COLOUR, strokeDash=[5, 3], strokeWidth=1.5).encode(y="published:Q")


def _compose(line: alt.Chart, refs: list[Reference]) -> alt.TopLevelMixin:
    """The chart with its reference lines; its title and unit are printed by the page (HTML
    text, escaped), not drawn: fewer texts to measure, ~3x faster to render."""
    ref = _ref_layer(refs)
    chart = line + ref if ref is not None else line
    return chart.properties(width=WIDTH, height=HEIGHT)


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


def spell_points(spells: list[dict], unit: str) -> pd.DataFrame:
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
    return pd.DataFrame(rows, columns=["t", "price", "segment", "start"])


def offer_chart(title: str, spells: list[dict], refs: list[Reference], unit: str) -> Chart:
    points = spell_points(spells, unit)
    note = ""
    if points.empty:
        note = "no priced reading stored"
        points = pd.DataFrame({"t": [], "price": [], "segment": [], "start": []})
    if any(s["price_per_hour"] is None for s in spells):
        note = "gaps: the offer printed no price (e.g. Contact sales)"
    y = _price_axis(unit)
    line = alt.Chart(points).mark_line(interpolate="step-after", color="#1f6feb").encode(
        x=_time_axis("t"), y=y, detail="segment:N")
    dots = alt.Chart(points).transform_filter("datum.start").mark_point(filled=True, size=28, color="#1f6feb").encode(
        x=_time_axis("t"), y=y)
    return Chart(title, unit, to_svg(_compose(line + dots, refs)), refs, note)


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


# ---- cheapest offer per GPU --------------------------------------------------------------------

def cheapest_per_gpu(model: str, rows: list[dict]) -> Chart:
    """The cheapest USD per GPU-hour of ``model`` per day and billing (over every GPU count)."""
    frame = pd.DataFrame([r for r in rows if r["gpu_model"] == model and r["min_price_per_gpu_hour"] is not None])
    if frame.empty:
        frame = pd.DataFrame({"t": [], "price": [], "billing": []})
    else:
        frame["price"] = frame["min_price_per_gpu_hour"].astype(float)
        frame = frame.loc[frame.groupby(["day", "billing"])["price"].idxmin()]
        frame = pd.DataFrame({"t": [_iso(d) for d in frame["day"]], "price": frame["price"],
                              "billing": frame["billing"]})
    line = alt.Chart(frame).mark_line(point=True).encode(
        x=_time_axis("t"), y=_price_axis("per GPU-hour"),
        color=alt.Color("billing:N", legend=alt.Legend(title=None, orient="right")))
    title = f"{model}: cheapest per GPU-hour"
    return Chart(title, "per GPU-hour", to_svg(_compose(line, [])), [],
                 "the cheapest comparable offer each day (self-service, USD, no aggregator), any GPU count")


def cheapest_for_claim(claim: R.Claim, rows: list[dict], published_value, published_text: str) -> Chart:
    """A "cheapest" claim's own market (its GPU, count and billing) per day, its published
    value as reference."""
    c = claim.compute
    col = "min_price_per_hour" if c.price == "per_hour" else "min_price_per_gpu_hour"
    unit = "per hour" if c.price == "per_hour" else "per GPU-hour"
    mine = [r for r in rows if r["gpu_model"] == c.gpu and r["gpu_count"] == c.count and r["billing"] == c.billing
            and r[col] is not None]
    frame = pd.DataFrame({"t": [_iso(r["day"]) for r in mine], "price": [float(r[col]) for r in mine]})
    refs = [Reference(float(published_value), [claim.id], published_text)] if published_value is not None else []
    line = alt.Chart(frame).mark_line(point=True, color="#1f6feb").encode(
        x=_time_axis("t"), y=_price_axis(unit))
    title = f"Cheapest {c.count}x {c.gpu} {c.billing} ({claim.id})"
    return Chart(title, unit, to_svg(_compose(line, refs)), refs,
                 "market cheapest per day (cheapest_offer_daily); the claim's own exclusions may differ")


def _iso(value) -> str:
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{value.isoformat()}T00:00:00Z"


def money(value) -> str:
    return f"${Decimal(str(value)).normalize():f}"

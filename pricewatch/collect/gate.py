"""The quality gate: the screens a reading passes before it can become the latest price.

Two kinds of screen, in the spirit of the public price indices:

- **The parse itself is wrong** (:func:`crawl_findings`, a run monitor: the provider run is
  ``suspect``): an instance price that does not divide into the per-GPU price the page prints
  beside it (half a cent tolerance), a spot price above the on-demand price of the same offer,
  and a page whose prices scale with the GPU count the wrong way (:func:`unit_findings`): the
  same GPU at two or more counts whose per-GPU prices grow with the count as instance prices do
  (an instance price read per GPU), or whose instance prices stay the same whatever the count
  (a per-GPU price read per instance).
- **One reading is not yet believable** (:func:`screen`, per offer: the reading is stored but
  *held*, and the offer's last trusted reading stays current): a per-GPU price outside the
  model's plausible band (``usd_per_gpu_hour`` in the GPU catalog), or a move of 25 % or more
  from the last trusted price, until the provider's next successful run shows the same price
  again or other providers moved the same GPU by 10 % or more the same way in this run.
- **A unit switch** (:func:`screen`): a multi-GPU offer whose price is its GPU count times, or
  one GPU-count-th of, the last trusted price (10 % tolerance) is a per-GPU header read over
  instance prices or the reverse until a person says otherwise: held with a reason that starts
  "unit switch?", and neither a repeat of it by the next run nor other providers' moves release
  it (a misread unit repeats every night; it is not a confirmation).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pricewatch.record.catalog import load_catalog

# Wide enough for any GPU rented by the hour in USD; the catalog narrows it per model.
DEFAULT_BAND = (0.01, 250.0)


@dataclass(frozen=True)
class GateConfig:
    move_pct: float = float(os.environ.get("PRICEWATCH_GATE_MOVE_PCT", 25))
    market_pct: float = float(os.environ.get("PRICEWATCH_GATE_MARKET_PCT", 10))
    per_gpu_tolerance: float = 0.005
    # How close a move between runs must be to x GPU count (or / GPU count) to be a unit switch.
    unit_tolerance: float = 0.10
    # Within a run: how close per-GPU prices at two counts must be to "count times" / "the same
    # instance price" (real pages: 0.79x-2.02x between counts, never near x2 at once for all).
    unit_group_tolerance: float = 0.25


def crawl_findings(offers: list[dict], config: GateConfig = GateConfig()) -> list[str]:
    """Signals that the parse is wrong (each one line, counted)."""
    findings = []
    bad = []
    for o in offers:
        stated = o.get("stated_per_gpu")
        if stated is None or not o.get("is_priced"):
            continue
        try:
            stated = float(str(stated).replace("$", "").replace(",", "").strip())
        except ValueError:
            bad.append(f"{o['offer_key']}: per-GPU price {o['stated_per_gpu']!r} is not a number")
            continue
        if abs(float(o["price_per_hour"]) / int(o["gpu_count"]) - stated) > config.per_gpu_tolerance:
            bad.append(f"{o['offer_key']}: ${o['price_per_hour']}/h / {o['gpu_count']} GPUs is not the "
                       f"${stated} per GPU the page prints")
    if bad:
        findings.append(f"{len(bad)} offer(s) whose instance and per-GPU prices disagree, e.g. {bad[0]}")
    on_demand = {_twin(o): o for o in offers if o.get("billing") == "on-demand" and o.get("is_priced")}
    inverted = [o for o in offers if o.get("billing") == "spot" and o.get("is_priced")
                and _twin(o) in on_demand
                and float(o["price_per_hour"]) > float(on_demand[_twin(o)]["price_per_hour"])]
    if inverted:
        o = inverted[0]
        findings.append(f"{len(inverted)} spot price(s) above the on-demand price of the same offer, e.g. "
                        f"{o['offer_key']} ${o['price_per_hour']}/h > ${on_demand[_twin(o)]['price_per_hour']}/h")
    return findings + unit_findings(offers, config)


def unit_findings(offers: list[dict], config: GateConfig = GateConfig()) -> list[str]:
    """A run's offers read in the wrong unit, seen from the page alone (no history needed): the
    same GPU (model or label, VRAM, form factor, billing, tier, term, region, currency) at two or
    more GPU counts, where every count at least twice the smallest one has a per-GPU price about
    the smallest count's times the count ratio (a per-GPU header over instance prices), or about
    the same instance price (a per-instance header over per-GPU prices); "about": within
    ``unit_group_tolerance`` (25 %). Real pages price a GPU about the same per GPU whatever the
    count (the shipped captures: 0.79x-2.02x between counts); neither pattern is one a provider
    prints on purpose. Spot and marketplace prices are bids (a real 8x spot H100 reads 13x the
    1x per GPU) and are not read this way; their page's on-demand rows show a switch."""
    groups: dict[tuple, dict[int, list[tuple[float, float, str]]]] = {}
    for o in offers:
        if not o.get("is_priced") or o.get("billing") in ("spot", "marketplace"):
            continue
        try:
            count, per_hour, per_gpu = int(o["gpu_count"]), float(o["price_per_hour"]), float(o["price_per_gpu_hour"])
        except (KeyError, TypeError, ValueError):
            continue
        if count < 1 or per_gpu <= 0:
            continue
        key = (o.get("gpu_model") or o.get("gpu_label"), o.get("vram_gb"), o.get("form_factor"), o.get("billing"),
               o.get("tier"), o.get("reserved_term"), o.get("region"), o.get("currency") or "USD")
        groups.setdefault(key, {}).setdefault(count, []).append((per_hour, per_gpu, o.get("offer_key", "?")))
    near = float(np.log1p(config.unit_group_tolerance))
    up, down = [], []
    for by_count in (groups[k] for k in sorted(groups, key=str)):
        base = min(by_count)
        larger = [c for c in sorted(by_count) if c >= 2 * base]
        if not larger:
            continue
        base_gpu = float(np.median([p[1] for p in by_count[base]]))
        # log(per-GPU price at c / at the base count) against log(c / base): 0 is a page read right.
        moves = [(c, float(np.log(np.median([p[1] for p in by_count[c]]) / base_gpu)), float(np.log(c / base)))
                 for c in larger]
        top = by_count[larger[-1]][0]
        if all(abs(m - step) <= near for _, m, step in moves):
            up.append(f"{top[2]} ${top[1]:g} per GPU, {top[1] / base_gpu:.2g}x the {base}-GPU offer's ${base_gpu:g}")
        elif all(abs(m + step) <= near for _, m, step in moves):
            base_hour = float(np.median([p[0] for p in by_count[base]]))
            up_or = top[0] / base_hour
            down.append(f"{top[2]} ${top[0]:g}/h, {up_or:.2g}x the {base}-GPU offer's ${base_hour:g}/h")
    findings = []
    if up:
        findings.append(f"unit switch? {len(up)} GPU(s) whose per-GPU price grows with the GPU count as an "
                        f"instance price does (an instance price read as per-GPU?), e.g. {up[0]}")
    if down:
        findings.append(f"unit switch? {len(down)} GPU(s) whose instance price stays the same at every GPU count "
                        f"(a per-GPU price read as per-instance?), e.g. {down[0]}")
    return findings


# Tiers that only restate the billing: a "preemptible" spot offer is the twin of the plain
# on-demand one. Any other tier (RunPod's secure / community) pairs only with the same tier.
_BILLING_TIERS = {"on-demand", "spot", "preemptible", "interruptible"}


def _twin(o: dict) -> tuple:
    """What a spot offer shares with its on-demand twin."""
    tier = o.get("tier") or ""
    return (o.get("gpu_label"), o.get("gpu_count"), o.get("vram_gb"), o.get("region"), o.get("sku"),
            "" if tier in _BILLING_TIERS else tier)


def band_for(model: str | None) -> tuple[float, float]:
    if model is None:
        return DEFAULT_BAND
    return load_catalog().plausible_band(model) or DEFAULT_BAND


def screen(offers: pd.DataFrame, previous: pd.DataFrame, cited: pd.DataFrame | None = None,
           config: GateConfig = GateConfig()) -> pd.DataFrame:
    """offers with held_reason / screen_note filled in (vectorised over the run's offers: numpy
    column arithmetic, dict look-ups for the previous readings and the cited prices; Python
    only formats the message of an offer that is held or noted).

    previous: one row per (provider, offer_key) seen in the provider's previous successful run,
    with ``trusted_price`` (the last trusted price per hour), ``last_price`` and ``last_held``
    (its reading then, and whether it was held).
    cited: per GPU model and form factor (each pair of the run's offers: warehouse/sql/cited_prices.sql
    gives each the cited prices of its comparable class), count and billing, the cheapest offer the
    published claims cite now (``cited``, ``cited_price`` per hour): a never-trusted offer below it
    is held like a jump (a placeholder price on a new tier must not become "the cheapest" of a page
    at once); an offer of another class (an H100 NVL below a cited H100 SXM) is not compared.
    """
    out = offers.copy()
    n = len(out)
    # A row the parser could not read (spiders/base.py Parsed.hold) is held with its reason; it
    # has no price, so no screen below touches it.
    held = (np.array([r if isinstance(r, str) else None for r in out["held_row"].tolist()], dtype=object)
            if "held_row" in out.columns else np.full(n, None, dtype=object))
    note = np.full(n, None, dtype=object)
    if not n:
        return _with_verdicts(out, held, note)
    priced = out["is_priced"].to_numpy(dtype=bool)
    per_gpu = _floats(out["price_per_gpu_hour"])
    price = _floats(out["price_per_hour"])
    models = [m if isinstance(m, str) else None for m in out["gpu_model"].tolist()]
    bands = {m: band_for(m) for m in set(models)}
    low = np.array([bands[m][0] for m in models], dtype=float)
    high = np.array([bands[m][1] for m in models], dtype=float)
    # The bands are USD: a price stated in another currency is stored as printed, never
    # compared with them (claims and "cheapest" views compare USD offers only).
    usd = (np.array([_is_usd(c) for c in out["currency"].tolist()], dtype=bool) if "currency" in out
           else np.ones(n, dtype=bool))
    outside = priced & usd & ~((per_gpu >= low) & (per_gpu <= high))
    for i in np.flatnonzero(outside):
        held[i] = (f"${per_gpu[i]:g} per GPU-hour is outside the plausible band "
                   f"${low[i]:g}-${high[i]:g} for {models[i] or 'any GPU'}")
    providers, keys, billings = out["provider"].tolist(), out["offer_key"].tolist(), out["billing"].tolist()
    before = {}
    if previous is not None and len(previous):
        before = dict(zip(zip(previous["provider"].tolist(), previous["offer_key"].tolist()),
                          zip(_floats(previous["trusted_price"]), _floats(previous["last_price"]),
                              previous["last_held"].tolist())))
    nothing = (np.nan, np.nan, False)
    found = [before.get(k, nothing) for k in zip(providers, keys)]
    trusted = np.array([f[0] for f in found], dtype=float)
    last_price = np.array([f[1] for f in found], dtype=float)
    last_held = np.array([_flag(f[2]) for f in found], dtype=bool)
    counts = _floats(out["gpu_count"])
    with np.errstate(divide="ignore", invalid="ignore"):
        # A multi-GPU offer that moved by exactly its GPU count, up or down: a unit switch.
        ratio = price / trusted
        tol = config.unit_tolerance
        switched = (priced & (trusted > 0) & (counts >= 2)
                    & ((np.abs(ratio - counts) <= tol * counts) | (np.abs(ratio * counts - 1) <= tol)))
    for i in np.flatnonzero(switched):
        n = int(counts[i])
        how = f"{n}x" if ratio[i] > 1 else f"1/{n} of"
        what = "an instance price read as per-GPU" if ratio[i] > 1 else "a per-GPU price read as per-instance"
        held[i] = (f"unit switch? ${price[i]:g}/h is {how} the last trusted ${trusted[i]:g}/h of this {n}-GPU "
                   f"offer ({what}?); held until a person accepts it, a repeat does not confirm it")
    candidates = priced & ~outside & ~switched
    with np.errstate(divide="ignore", invalid="ignore"):
        # A reading the gate held last run, repeated now at the same price, is confirmed.
        confirmed = candidates & last_held & (np.abs(last_price - price) < 1e-9)
        move = (price - trusted) / trusted * 100
        comparable = candidates & (trusted > 0)
        big = comparable & ~confirmed & (np.abs(move) >= config.move_pct)
        moving = comparable & (np.abs(move) >= config.market_pct)
    for i in np.flatnonzero(confirmed):
        what = f"moved {move[i]:+.1f}%" if trusted[i] > 0 else "first seen below a cited price"
        note[i] = f"{what}, confirmed by the provider's next run"
    # Who moved each GPU (model, billing) by market_pct or more, up and down, in this run.
    moved_by: dict[tuple, set] = {}
    for i in np.flatnonzero(moving):
        if models[i] is not None:
            moved_by.setdefault((models[i], billings[i], bool(move[i] > 0)), set()).add(providers[i])
    for i in np.flatnonzero(big):
        pct = move[i]
        others = sorted(p for p in moved_by.get((models[i], billings[i], bool(pct > 0)), ())
                        if p != providers[i]) if models[i] else []
        if others:
            note[i] = f"moved {pct:+.1f}%; {models[i]} moved the same way at {', '.join(others)}"
            continue
        held[i] = (f"moved {pct:+.1f}% from the last trusted ${trusted[i]:g}/h; "
                   "held until the provider's next run confirms it")
    if cited is not None and len(cited):
        cites = {}
        for m, f, c, b, who, at in zip(cited["gpu_model"].tolist(), cited["form_factor"].tolist(),
                                       cited["gpu_count"].tolist(), cited["billing"].tolist(),
                                       cited["cited"].tolist(), cited["cited_price"].tolist()):
            if c is not None and c == c:
                cites.setdefault((m, _text(f), int(c), b), (who, float(at)))
        counts = out["gpu_count"].tolist()
        forms = [_text(f) for f in out["form_factor"].tolist()] if "form_factor" in out else [None] * n
        never_trusted = candidates & ~confirmed & ~(trusted > 0) & np.array([m is not None for m in models])
        for i in np.flatnonzero(never_trusted):
            match = cites.get((models[i], forms[i], int(counts[i]), billings[i]))
            if match and price[i] < match[1]:
                held[i] = (f"first seen at ${price[i]:g}/h, below the ${match[1]:g}/h a published claim "
                           f"cites ({match[0]}); held until the provider's next run confirms it")
    return _with_verdicts(out, held, note)


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def may_cite(offers: pd.DataFrame, previous: pd.DataFrame | None) -> bool:
    """Whether screen() could hold one of these offers against a cited price: some priced offer
    of a known GPU has no trusted previous price (a superset of screen's never-trusted offers),
    so the caller reads the cited prices only then."""
    if not len(offers):
        return False
    trusted = {}
    if previous is not None and len(previous):
        trusted = dict(zip(zip(previous["provider"].tolist(), previous["offer_key"].tolist()),
                           _floats(previous["trusted_price"]) > 0))
    return any(priced and isinstance(model, str) and not trusted.get(key, False)
               for priced, model, key in zip(offers["is_priced"].tolist(), offers["gpu_model"].tolist(),
                                              zip(offers["provider"].tolist(), offers["offer_key"].tolist())))


def _with_verdicts(out: pd.DataFrame, held: np.ndarray, note: np.ndarray) -> pd.DataFrame:
    """The offers with their held_reason / screen_note columns (object columns: text or None)."""
    out["held_reason"] = pd.Series(held, index=out.index, dtype=object)
    out["screen_note"] = pd.Series(note, index=out.index, dtype=object)
    return out


def _floats(column: pd.Series) -> np.ndarray:
    """A column of prices as floats (NULL, NaN or not a number: NaN)."""
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _is_usd(currency) -> bool:
    """A price in USD (no currency stated: USD)."""
    if currency is None or (isinstance(currency, float) and currency != currency):
        return True
    return str(currency).upper() == "USD"


def _flag(value) -> bool:
    """A boolean cell (NULL / NaN: false)."""
    return False if value is None or value != value else bool(value)

"""The quality gate: the screens a reading passes before it can become the latest price.

Two kinds of screen, in the spirit of the public price indices:

- **The parse itself is wrong** (:func:`crawl_findings`, a run monitor: the provider run is
  ``suspect``): an instance price that does not divide into the per-GPU price the page prints
  beside it (half a cent tolerance), a spot price above the on-demand price of the same offer.
- **One reading is not yet believable** (:func:`screen`, per offer: the reading is stored but
  *held*, and the offer's last trusted reading stays current): a per-GPU price outside the
  model's plausible band (``usd_per_gpu_hour`` in the GPU catalog), or a move of 25 % or more
  from the last trusted price, until the provider's next successful run shows the same price
  again or other providers moved the same GPU by 10 % or more the same way in this run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pandas as pd

from pricewatch.catalog import load_catalog

# Wide enough for any GPU rented by the hour in USD; the catalog narrows it per model.
DEFAULT_BAND = (0.01, 250.0)


@dataclass(frozen=True)
class GateConfig:
    move_pct: float = float(os.environ.get("PRICEWATCH_GATE_MOVE_PCT", 25))
    market_pct: float = float(os.environ.get("PRICEWATCH_GATE_MARKET_PCT", 10))
    per_gpu_tolerance: float = 0.005


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
    """offers with held_reason / screen_note filled in (vectorised over the run's offers).

    previous: one row per (provider, offer_key) seen in the provider's previous successful run,
    with ``trusted_price`` (the last trusted price per hour), ``last_price`` and ``last_held``
    (its reading then, and whether it was held).
    cited: per GPU model, count and billing, the cheapest offer the published claims cite now
    (``cited``, ``cited_price`` per hour): a never-trusted offer below it is held like a jump
    (a placeholder price on a new tier must not become "the cheapest" of a page at once).
    """
    out = offers.copy()
    out["held_reason"] = None
    out["screen_note"] = None
    if not len(out):
        return out
    priced = out["is_priced"].astype(bool)
    per_gpu = pd.to_numeric(out["price_per_gpu_hour"], errors="coerce").astype(float)
    price = pd.to_numeric(out["price_per_hour"], errors="coerce").astype(float)
    models = out["gpu_model"].where(out["gpu_model"].map(lambda m: isinstance(m, str)), None)
    bands = {m: band_for(m) for m in models.drop_duplicates()}
    low = models.map(lambda m: bands[m][0]).astype(float)
    high = models.map(lambda m: bands[m][1]).astype(float)
    # The bands are USD: a price stated in another currency is stored as printed, never
    # compared with them (claims and "cheapest" views compare USD offers only).
    usd = out["currency"].fillna("USD").astype(str).str.upper().eq("USD") if "currency" in out else True
    outside = priced & usd & ~per_gpu.between(low, high)
    for i in out.index[outside]:
        what = models[i] or "any GPU"
        out.at[i, "held_reason"] = (f"${per_gpu[i]:g} per GPU-hour is outside the plausible band "
                                    f"${low[i]:g}-${high[i]:g} for {what}")
    previous = previous if previous is not None and len(previous) else pd.DataFrame(
        columns=["provider", "offer_key", "trusted_price", "last_price", "last_held"])
    prev = out[["provider", "offer_key"]].merge(previous, on=["provider", "offer_key"], how="left")
    prev.index = out.index
    trusted = pd.to_numeric(prev["trusted_price"], errors="coerce").astype(float)
    last_price = pd.to_numeric(prev["last_price"], errors="coerce").astype(float)
    last_held = prev["last_held"].astype("boolean").fillna(False).astype(bool)
    candidates = priced & ~outside
    # A reading the gate held last run, repeated now at the same price, is confirmed.
    confirmed = candidates & last_held & ((last_price - price).abs() < 1e-9)
    move = (price - trusted) / trusted * 100
    comparable = candidates & (trusted > 0)
    big = comparable & ~confirmed & (move.abs() >= config.move_pct)
    for i in out.index[confirmed]:
        what = f"moved {move[i]:+.1f}%" if trusted[i] > 0 else "first seen below a cited price"
        out.at[i, "screen_note"] = f"{what}, confirmed by the provider's next run"
    # Who moved each GPU (model, billing) by market_pct or more, up and down, in this run.
    movers = out.loc[comparable & models.notna() & (move.abs() >= config.market_pct), ["provider"]].assign(
        model=models, billing=out["billing"], up=move > 0)
    moved_by = movers.groupby(["model", "billing", "up"])["provider"].agg(lambda p: sorted(set(p))).to_dict()
    for i in out.index[big]:
        pct = move[i]
        others = [p for p in moved_by.get((models[i], out.at[i, "billing"], pct > 0), [])
                  if p != out.at[i, "provider"]] if models[i] else []
        if others:
            out.at[i, "screen_note"] = f"moved {pct:+.1f}%; {models[i]} moved the same way at {', '.join(others)}"
            continue
        out.at[i, "held_reason"] = (f"moved {pct:+.1f}% from the last trusted ${trusted[i]:g}/h; "
                                    "held until the provider's next run confirms it")
    if cited is not None and len(cited):
        never_trusted = candidates & ~confirmed & ~(trusted > 0) & models.notna()
        for i in out.index[never_trusted]:
            o = out.loc[i]
            match = cited[(cited["gpu_model"] == o["gpu_model"]) & (cited["gpu_count"] == o["gpu_count"])
                          & (cited["billing"] == o["billing"])]
            if len(match) and price[i] < float(match["cited_price"].iloc[0]):
                c = match.iloc[0]
                out.at[i, "held_reason"] = (
                    f"first seen at ${price[i]:g}/h, below the ${float(c['cited_price']):g}/h a published claim "
                    f"cites ({c['cited']}); held until the provider's next run confirms it")
    return out

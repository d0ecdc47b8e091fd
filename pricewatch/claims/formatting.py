"""Showing a claim's value the way the page shows it: "$0.92", "1,260", "✓", "40"."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from pricewatch.claims.rules import Claim, RoundsTo

SUFFIX = {"gb": " GB", "gb_per_s": " GB/s", "tflops": " TFLOPS", "ratio": "×", "bytes": " bytes", "hours": " h"}


def places(value: Decimal) -> int:
    return max(0, -value.normalize().as_tuple().exponent)


def quantize(value: Decimal, decimals: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def _number(value: Decimal, decimals: int | None) -> str:
    if decimals is None:
        value = quantize(value, 4).normalize()
        decimals = places(value)
    else:
        value = quantize(value, decimals)
    return f"{value:,.{decimals}f}"


def shown(claim: Claim, value, bare: bool = False) -> str:
    """The value as the page prints it (no unit after it; "$" before prices unless bare)."""
    if value is None:
        return "?"
    if claim.unit == "mark" or isinstance(value, bool):
        return "✓" if value else "✗"
    if claim.unit == "text" or isinstance(value, str):
        return str(value)
    value = Decimal(value)
    rounds = claim.tol.rounds_to if isinstance(claim.tol, RoundsTo) else None
    if claim.unit == "usd":
        pub = claim.published if isinstance(claim.published, Decimal) else Decimal(0)
        text = _number(value, rounds if rounds is not None else max(2, places(pub)))
        return text if bare else f"${text}"
    return _number(value, rounds)


def display(claim: Claim, value) -> str:
    """The value with its unit, for reports: "$43.46", "1,260 GB", "✓", "40×"."""
    text = shown(claim, value)
    return text + SUFFIX.get(claim.unit, "") if value is not None else "?"


def as_number(value) -> Decimal | None:
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, bool):
        return Decimal(int(value))
    return Decimal(value)

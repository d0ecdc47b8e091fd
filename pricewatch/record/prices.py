"""Reading a price a provider printed. A price that is not a number is *unpriced*, never 0."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# "$43.46", "$$43.46" (RSC escape), "43.46", "$1,234.50/hr", "USD 2.10"
_PRICE = re.compile(r"^\s*(?:USD\s*)?\$*\s*(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?:/\s*(?:hr|hour|h))?\s*$", re.I)

PRICE_UNITS = ("instance_hour", "gpu_hour")


def parse_price(raw) -> Decimal | None:
    """The price as a Decimal, or None when the text is not a price ("Contact us", "—", "$L2a")."""
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float, Decimal)):
        value = Decimal(str(raw))
    else:
        m = _PRICE.match(str(raw))
        if not m:
            return None
        try:
            value = Decimal(m.group(1).replace(",", ""))
        except InvalidOperation:
            return None
    return value if value > 0 else None


def per_hour_prices(price: Decimal | None, unit: str, gpu_count: int) -> tuple[Decimal | None, Decimal | None]:
    """(price per instance-hour, price per GPU-hour) from a price in the unit the source uses."""
    if unit not in PRICE_UNITS:
        raise ValueError(f"unknown price unit {unit!r}")
    if price is None or not gpu_count:
        return None, None
    if unit == "instance_hour":
        return price, price / gpu_count
    return price * gpu_count, price

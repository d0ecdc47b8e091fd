"""Reading a price a provider printed. A price that is not a number is *unpriced*, never 0."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# "$43.46", "$$43.46" (RSC escape), "43.46", "$1,234.50/hr", "USD 2.10"
_PRICE = re.compile(r"^\s*(?:USD\s*)?\$*\s*(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?:/\s*(?:hr|hour|h))?\s*$", re.I)

#: The units a source prices in: per instance-hour, per GPU-hour, or per GPU-second (Modal prints
#: "$0.001097 / sec" per GPU; 3600 seconds make its GPU-hour). price_raw stays as printed.
PRICE_UNITS = ("instance_hour", "gpu_hour", "gpu_second")
SECONDS_PER_HOUR = 3600

#: The message a parser gives for one row whose price cell it could not read (spiders/base.py
#: Parsed.hold): the offer is kept unpriced with the text the page printed and *held*, its
#: provider run is suspect, the other rows load; the crawl judge (pricewatch/collect/judge.py)
#: counts these apart from layout errors of the whole page.
HELD_ROW = "row held: "
#: What the price_raw of a held row begins with on its way from the parser to the normalize
#: pipeline (spiders/pipelines.py), which takes it off again: no reading of the text the page
#: printed (a "$1.09" in a CAD answer) can make a held row priced.
HELD_PRICE_MARK = "\x00held:"

# A price string with its currency mark: "$1.09", "US$ 1.09", "1.09 USD", "€1.09", "CA$1.09".
_MARKED = re.compile(r"^\s*(?P<pre>[A-Z]{2}\$|[A-Z]{3}|[$€£¥₹])?\s*(?P<amount>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
                     r"\s*(?P<post>[A-Z]{3})?\s*(?P<unit>/\s*(?:hr|hour|h))?\s*$", re.I)
_SYMBOLS = {"€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "US$": "USD"}


def price_in(text: str, currency: str = "USD", per_hour: bool = False) -> tuple[Decimal | None, str | None]:
    """A price string an API gives instead of a number, read in the document's ``currency``:
    (amount, None), or (None, why not). "1.09" is read in the document's currency; "$1.09" only
    when that is USD ("$" alone names no other dollar for sure); "1.09 EUR", "€1.09", "CA$1.09"
    only when they name the document's currency. A "/hr" after it is read only when
    ``per_hour`` (an API's number field states its unit by its name, not in its value). Anything
    else is not a price."""
    m = _MARKED.match(str(text))
    if not m or (m["unit"] and not per_hour):
        return None, f"not a price ({text!r})"
    marks = [x for x in (m["pre"], m["post"]) if x]
    if len(marks) > 1:
        return None, f"two currency marks ({text!r})"
    mark = marks[0].upper() if marks else None
    named = None if mark is None else ("USD" if mark == "$" else _SYMBOLS.get(mark, mark))
    if named is not None and named != currency.upper():
        return None, f"price {text!r} is not in the document's currency {currency.upper()}"
    if mark and mark.endswith("$") and mark not in ("$", "US$"):
        return None, f"price {text!r} is not in the document's currency {currency.upper()}"
    value = Decimal(m["amount"].replace(",", ""))
    if value <= 0:
        return None, f"not a positive price ({text!r})"
    return value, None


def fits_currency(raw, currency: str | None) -> bool:
    """Whether a price as printed may be read in the offer's currency: a "$" price is a USD price,
    never read as another currency's amount (an offer stated in CAD printing "$1.09" is unpriced)."""
    return not (isinstance(raw, str) and "$" in raw and (currency or "USD").upper() != "USD")


def parse_price(raw) -> Decimal | None:
    """The price as a Decimal, or None when the text is not a price ("Contact us", "—", "$L2a")."""
    if raw is None or isinstance(raw, bool) or (isinstance(raw, str) and raw.startswith(HELD_PRICE_MARK)):
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
    per_gpu = price * SECONDS_PER_HOUR if unit == "gpu_second" else price
    return per_gpu * gpu_count, per_gpu

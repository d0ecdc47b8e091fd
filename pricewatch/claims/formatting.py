"""Showing a claim's value the way the page shows it: "$0.92", "1,260", "✓", "40"; and putting
scraped or stored values into Markdown (report, Prefect artifacts) so that they stay text."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import quote

from pricewatch.claims.kinds import RoundsTo
from pricewatch.claims.rules import Claim
from pricewatch.record import text as T

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
        if "." in text and len(text.split(".")[1]) > 2:
            # Cents always; more digits only where the price has them (5.4325, not 5.1500).
            whole, frac = text.split(".")
            text = f"{whole}.{frac.rstrip('0').ljust(2, '0')}"
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


# ---- Markdown output (the report, the Prefect artifacts) --------------------------------------
# Our own text (rules/, page templates, titles) is written as is; every scraped or stored value
# (GPU labels, offer keys, price texts, provider errors quoting a page, URLs) goes through
# pricewatch.record.text.markdown, which strips control/format characters, collapses newlines, caps the
# length and backslash-escapes the Markdown/HTML syntax, so it can neither break a table nor
# become a tag or a link.

CELL_MAX = 300     # one value in a table cell or a list item
PROSE_MAX = 600    # a reason or a note, which may quote a provider's error
URL_MAX = 2000     # longer "URLs" are shown (capped) as text, never linked

_HTTP_URL = re.compile(r"https?://[^\s/?#]+[^\s]*\Z", re.IGNORECASE)
# Characters kept as they are in a link destination; every other one is percent-encoded
# (spaces, parentheses, <, >, |, backslash, backtick, non-ASCII), so a URL cannot end the link
# or split a table cell.
_URL_SAFE = "/:?#[]@!$&'*+,;=%-._~"


def md(value, max_len: int = CELL_MAX) -> str:
    """A scraped or stored value, inert in Markdown prose and table cells."""
    return T.markdown(value, max_len)


def md_link(url, max_len: int = CELL_MAX) -> str:
    """A link to an http(s) URL (its text escaped, its destination percent-encoded); any other
    value (``javascript:...``, ``data:``, a relative path, a page's garbage) is shown as text."""
    text = T.plain(url, URL_MAX + 1)
    if not text:
        return "?"
    if len(text) > URL_MAX or not _HTTP_URL.match(text):
        return md(text, max_len)
    return f"[{md(text, max_len)}]({quote(text, safe=_URL_SAFE)})"


def md_code(value, max_len: int = CELL_MAX, in_table: bool = False) -> str:
    """A value as a code span (shown literally: no markup, no tags, no links inside), fenced
    with more backticks than it holds. In a table cell its pipes are escaped (GFM removes the
    backslash inside the span)."""
    text = T.plain(value, max_len)
    if not text:
        return ""
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def own_cell(text) -> str:
    """Our own text (rules/, the page's wording) in a table cell: kept as written, only a pipe
    or a line break that would split the row is neutralised."""
    return str(text or "").replace("|", "\\|").replace("\r", " ").replace("\n", " ")

"""A cited offer that reads as a placeholder (issue 20, item 3).

A page that prints "$0.00", "N/A", "-" or "Contact sales" where a cited offer's price stood has
not said the offer is gone: it has said nothing about its price. Such a reading makes the claims
that cite the offer (rules/ ``cites`` and cited offers, and a "cheapest" claim's current pick)
*unverifiable* with the text it printed, until a real price reads again; it never re-picks a
"cheapest" claim to the next provider (which would move the page to another provider's price on
a glitch). Only an offer gone from its provider's successful run lets the pick move on.

What counts: an unpriced reading (``is_priced`` false: the price text was not a number above 0),
whatever its text, and a reading the quality gate held without a readable price (the cell could
not be read: its text is kept). A reading the gate held *with* a price (a jump, a unit switch)
is not a placeholder: its last trusted reading stays current until it is confirmed or decided.
"""

from __future__ import annotations

import re

# The texts providers print in a price cell that holds no price (for the wording only: every
# unpriced reading of a cited offer is treated the same).
PLACEHOLDER = re.compile(r"^\s*(?:(?:usd\s*)?\$?\s*0+(?:[.,]0+)?\s*(?:/\s*(?:hr|hour|h))?|n/?a|-+|—|–|\?|tbd|tba"
                         r"|contact(?: us| sales)?|request|on request|price on request|call|ask)\s*$", re.I)


def placeholder_text(offer: dict | None) -> str | None:
    """The text a cited offer printed instead of a price, or None when it reads a price (or is
    not in the snapshot at all)."""
    if offer is None:
        return None
    if offer.get("held_row") is not None:
        return offer.get("held_text") or ""
    if offer.get("is_priced"):
        return None
    return offer.get("price_text") or ""


def reading(offer: dict) -> dict:
    """The reading a placeholder was read from: the held row itself when the gate held it (the
    snapshot shows the offer's last trusted reading in its place), else the offer."""
    return offer.get("held_row") or offer


def what_it_is(text: str) -> str:
    """'a placeholder' for the known placeholder texts, else 'no price'."""
    return "a placeholder" if PLACEHOLDER.match(text or "") else "no price"

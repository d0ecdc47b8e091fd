"""TensorPool: the public pricing page (Next.js, server-rendered), the "Compare Plans" grid.

Read from the real page (recorded whole on 2026-08-22, ``tests/real/tensorpool/``). The prices
are in a comparison of three providers, printed twice:

- desktop: a CSS grid ``<div class="hidden md:grid grid-cols-[200px_200px_1fr_1fr_1fr] ...">``
  of plain ``<div>`` cells, five per row: Category | GPU Type | Lambda Labs | TensorPool |
  Traditional Clouds (GCP, AWS, etc.), then one row per GPU ("ON-DEMAND" in the first row's
  Category cell, empty below it), prices like ``$1.99/hr``;
- mobile: one card per provider, the TensorPool card headed ``<h3>TensorPool</h3>`` with
  "GPU COSTS / HR" lines ``H100 SXM - <strong>$1.99</strong>``.

Only the TensorPool column is TensorPool's offer (found by its header, not by its highlight
colour); the Lambda Labs and "Traditional Clouds" columns are competitors' figures as TensorPool
prints them and are never read. The desktop and mobile TensorPool prices must agree; a row whose
price neither copy prints as a "$" amount ("TBD", "€1.99/hr") is held (spiders/base.py
Parsed.hold, the desktop text kept) and the other rows load. Prices are USD per GPU-hour ("GPU COSTS / HR", "$4.99/hr"; another unit fails), on-demand; the CPU
row ($0.015/hr) is not a GPU. "Interested in committed discounts? Contact us": no committed
price is printed, so there is no reserved offer.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

GRID = '//div[contains(@class, "md:grid")][div[normalize-space() = "TensorPool"]]'
COLUMNS = re.compile(r"\bgrid-cols-\[([^\]]+)\]")
COLUMN = "TensorPool"
CATEGORIES = {"ON-DEMAND": "on-demand"}
NOT_GPUS = {"CPU"}
PRICE = re.compile(r"^(\$\d+(?:\.\d+)?)/hr$")
NOT_OFFERED = {"n/a", "-", "—"}
MOBILE_LINE = re.compile(r"^(.+?) - (.+)$")
MOBILE_PRICE = re.compile(r"^\$\d+(?:\.\d+)?$")
# A "$" amount per another unit ("$1.99/min", "$1,450/mo"): the unit changed, not one cell.
OTHER_UNIT = re.compile(r"^\$\d[\d,]*(?:\.\d+)?\s*/\s*(?!hr$)\S")
MOBILE_UNIT = "GPU COSTS / HR"


def parse_pricing(body: str, url: str) -> Parsed:
    """TensorPool's own on-demand GPU prices from the comparison grid, per GPU-hour."""
    parsed = Parsed()
    page = Selector(text=body)
    grids = page.xpath(GRID)
    if len(grids) != 1:
        parsed.error(f'{len(grids)} comparison grids with a "{COLUMN}" header cell, expected one')
        return parsed
    width = COLUMNS.search(grids[0].attrib.get("class", ""))
    cells = [text_of(c) for c in grids[0].xpath("./div")]
    n = len(width.group(1).split("_")) if width else 0
    if not n or len(cells) % n:
        parsed.error(f"comparison grid is not rows of its grid-cols columns ({len(cells)} cells, {n} columns)")
        return parsed
    rows = [cells[i:i + n] for i in range(0, len(cells), n)]
    header = rows[0]
    if header[:2] != ["Category", "GPU Type"] or header.count(COLUMN) != 1:
        parsed.error(f"comparison grid header is not Category | GPU Type | ... | {COLUMN} | ... ({' | '.join(header)!r})")
        return parsed
    col = header.index(COLUMN)
    mobile, mobile_error = _mobile(page)
    if mobile_error:
        parsed.error(mobile_error)
        return parsed
    category, bad = None, {}
    for row in rows[1:]:
        category = row[0] or category
        label, value = row[1], row[col]
        if category not in CATEGORIES:
            bad.setdefault("unknown category", []).append(f"{category}: {label}")
            continue
        if label in NOT_GPUS or value.lower() in NOT_OFFERED:
            continue
        m = PRICE.match(value)
        billing = CATEGORIES[category]
        if not m and not OTHER_UNIT.match(value) and not MOBILE_PRICE.match(mobile.get(label, "")):
            # Both copies unreadable ("TBD", "€1.99/hr", "$1.9.9/hr"): that offer is held
            # (spiders/base.py Parsed.hold, the desktop text kept), the other rows load.
            parsed.hold(f"{COLUMN} price cell unreadable: {value!r} (mobile {mobile.get(label)!r}; not '$X/hr')",
                        gpu_label=label, gpu_count=1, billing=billing, tier=billing, region=None, currency="USD",
                        self_service=True, price_raw=value or None, price_unit="gpu_hour", availability=None)
            continue
        if not m:
            bad.setdefault(f"{COLUMN} price is not '$X/hr'", []).append(f"{label}: {value}")
            continue
        if mobile.get(label) != m.group(1):
            bad.setdefault("desktop and mobile prices disagree", []).append(f"{label}: {value} / {mobile.get(label)}")
            continue
        parsed.offer(gpu_label=label, gpu_count=1, billing=billing, tier=billing, region=None, currency="USD",
                     self_service=True, price_raw=m.group(1), price_unit="gpu_hour", availability=None)
    for problem, rows_ in bad.items():
        parsed.error(f"{problem} ({', '.join(repr(r) for r in rows_[:3])})")
    if not parsed.offers and not parsed.errors:
        parsed.error(f"no GPU price in the {COLUMN} column")
    return parsed


def _mobile(page) -> tuple[dict[str, str], str | None]:
    """{label: "$X"} of the mobile TensorPool card, or an error."""
    cards = page.xpath(f'//div[div/h3[normalize-space() = "{COLUMN}"]]')
    if len(cards) != 1:
        return {}, f'{len(cards)} mobile cards headed "{COLUMN}", expected one'
    unit = text_of(cards[0], ".//h4//text()")
    if unit != MOBILE_UNIT:
        return {}, f"mobile {COLUMN} card is no longer headed {MOBILE_UNIT!r} ({unit!r})"
    prices = {}
    for line in cards[0].xpath(".//h4/following-sibling::div[1]/div"):
        m = MOBILE_LINE.match(text_of(line))
        if not m:
            return {}, f"mobile line is not '<GPU> - $X' ({text_of(line)!r})"
        prices[m.group(1)] = m.group(2)
    return prices, None


class TensorPoolSpider(PriceSpider):
    name = "tensorpool"
    allowed_domains = ["tensorpool.dev"]
    pricing_url = "https://tensorpool.dev/pricing"
    family = "neocloud"
    unit = "USD per GPU-hour"
    capture = "real"
    robots = ("no stored copy of tensorpool.dev/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of TensorPool's terms found (searched the pages corpus 2026-12-02 for 'TensorPool"
             " terms of service tensorpool.dev'; the page links /terms). We read only the public pricing page,"
             " once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

"""Fluidstack: the public pricing page ``www.fluidstack.io/pricing`` (Webflow HTML), the "On demand GPU
pricing" table.

Read from the real page as the Internet Archive captured it on 2025-01-09 01:37:24 UTC
(``tests/real/fluidstack/``, an excerpt: the pricing section). One ``<table class="pricing_table">``
with the header ``Model | VRAM (GB) | Max vCPUs per GPU | Max RAM (GB) per GPU | On-Demand Price
(/hr) | 1 Year price (/hr)``; one row per GPU, its name in ``<th><h2>Nvidia H100 PCIe</h2></th>``
and the cells in ``<td><div><p>$2.89<br/></p></div></td>``. So:

- columns are found by their header, never by position: "Model" and "On-Demand Price (/hr)"
  must be there (a renamed column fails the page); a "<n> Year price (/hr)" or "<n> Month price
  (/hr)" column is a commitment: billing ``reserved`` with that term. Any other header naming a
  price, or a price column per another unit than "(/hr)", fails the page;
- the row is one GPU with its vCPU and RAM share ("Max vCPUs per GPU", "Max RAM (GB) per GPU"):
  a price is USD per GPU-hour, one offer per row and priced column, ``gpu_count`` 1 (the page
  states no node size; "Volume discounts starting at 8+ GPUs" follows the table);
- ``n/a`` (also "-", "—", empty) is no offer in that column (H200 has a 1-year price only,
  "n/a" on demand: the $2.45 is the 1-year price, never on-demand); "Contact us" / "Contact
  sales" is an unpriced offer; any other cell that is not "$<number>" (a garbled or foreign
  price) holds that offer (spiders/base.py Parsed.hold), the other rows load;
- VRAM from the "VRAM (GB)" column; the label is the row's name as printed.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

PRICING_URL = "https://www.fluidstack.io/pricing"

TABLE = '//table[.//thead//th[normalize-space(.) = "Model"]]'
PRICE = re.compile(r"^\$(\d+(?:\.\d+)?)$")
ON_DEMAND = re.compile(r"^On-Demand Price \(/hr\)$", re.I)
TERM = re.compile(r"^(\d+) (Year|Month)s? price \(/hr\)$", re.I)
PRICE_HEADER = re.compile(r"price|cost|\$", re.I)
NOT_OFFERED = {"n/a", "na", "-", "—", "–", ""}
UNPRICED = {"contact us", "contact sales"}
NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def parse_pricing(body: str, url: str = PRICING_URL) -> Parsed:
    """Offers of the on-demand pricing table: one per GPU row and priced column, per GPU-hour."""
    parsed = Parsed()
    page = Selector(text=body)
    tables = page.xpath(TABLE)
    if len(tables) != 1:
        parsed.error(f"{len(tables)} pricing tables with a 'Model' header, expected one")
        return parsed
    table = tables[0]
    headers = [text_of(th) for th in table.xpath("./thead/tr/th")]
    columns: dict[int, tuple[str, str | None]] = {}   # cell index -> (billing, term)
    problems = []
    for n, head in enumerate(headers):
        if ON_DEMAND.match(head):
            columns[n] = ("on-demand", None)
        elif m := TERM.match(head):
            k = int(m.group(1))
            columns[n] = ("reserved", f"{k} {m.group(2).lower()}{'s' if k > 1 else ''}")
        elif PRICE_HEADER.search(head):
            problems.append(f"price column {head!r} is not 'On-Demand Price (/hr)' or '<n> Year price (/hr)'")
    if not any(b == "on-demand" for b, _ in columns.values()):
        problems.append(f"no 'On-Demand Price (/hr)' column (headers {headers})")
    vram_col = next((n for n, h in enumerate(headers) if h == "VRAM (GB)"), None)
    if headers[:1] != ["Model"]:
        problems.append(f"first column is not 'Model' (headers {headers})")
    if problems:
        for p in problems:
            parsed.error(p)
        return parsed
    rows = table.xpath("./tbody/tr")
    if not rows:
        parsed.error("pricing table has no rows")
        return parsed
    for row in rows:
        label = text_of(row, "./th//text()")
        cells = [text_of(td) for td in row.xpath("./td")]
        if not label or len(cells) != len(headers) - 1:
            parsed.error(f"row {label!r} has {len(cells)} cells for {len(headers) - 1} columns")
            continue
        vram_text = cells[vram_col - 1] if vram_col else ""
        vram = float(vram_text) if NUMBER.match(vram_text) else None
        for n, (billing, term) in columns.items():
            cell = cells[n - 1]
            if cell.lower() in NOT_OFFERED:
                continue
            fields = dict(gpu_label=label, gpu_count=1, vram_gb=vram, billing=billing, tier=billing,
                          reserved_term=term, region=None, currency="USD", self_service=True,
                          price_unit="gpu_hour", availability=None)
            m = PRICE.match(cell)
            if m:
                parsed.offer(price_raw=cell, **fields)
            elif cell.lower() in UNPRICED:
                parsed.offer(price_raw=cell, **fields)
            else:
                parsed.hold(f"price cell unreadable: {cell!r} (not '$X')", price_raw=cell, **fields)
    return parsed


class FluidstackSpider(PriceSpider):
    name = "fluidstack"
    allowed_domains = ["fluidstack.io"]
    pricing_url = PRICING_URL
    family = "neocloud"
    unit = "USD per GPU-hour"
    capture = "real"
    # The page answered 404 on 2026-10-06 (its last readable copy is the Internet Archive's of
    # 2025-01-09): a nightly run would fail every night, so it runs only when asked by name.
    enabled_by_default = False
    robots = ("no stored copy of www.fluidstack.io/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Fluidstack Acceptable Use Policy (https://www.fluidstack.io/legal/acceptable-use, stored "
             "copy, undated): a Customer agrees not to use the Services 'in any manner that disrupts the "
             "operations, business, equipment, websites or systems of FluidStack'; it and the Terms & "
             "Conditions (https://www.fluidstack.io/legal/terms-conditions) bind Customers under an Order, "
             "and no clause on reading the public website by automated means was found in a stored public "
             "copy. We read only the public pricing page, once a day, with our contact User-Agent and "
             "robots.txt obeyed. The page answered 404 on 2026-10-06 (no public price list since).")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

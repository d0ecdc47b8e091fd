"""Civo: the public pricing page (server-rendered HTML), NVIDIA GPU instances only.

Read from the real page (recorded 2026-08-22, ``tests/real/civo/``). The GPU section is
``<section class="pricing-product" id="nvidia-gpus">`` (it holds an inner ``<div
id="nvidia-gpus">`` with the same id). Under it, one ``<table class="pricing-table">`` per GPU,
captioned ``<caption>NVIDIA H100 SXM GPU pricing</caption>``, announced by a commitment-term
``<select>`` whose options read "Commitment - 6 months" ... "Commitment - 36 months". Columns:
Size | RAM | vCPU | Storage | Data Transfer | On-demand | Commitment. Each row is a size of N
GPUs ("Small" + ``<div class="product-detail">1 x NVIDIA H100 - 80GB</div>``), so:

- prices are USD per instance-hour: the visible ``data-option="hourly"`` price reads
  ``$23.92<span>per hour</span>`` for "8 x NVIDIA H100 - 80GB" (checked: anything but "per hour"
  fails); the hidden ``data-option="monthly"`` copy ("$17,461.60 per month") is never read;
- the Commitment cell holds one ``<div id="6_months">`` ... ``<div id="36_months">`` per term of
  the select (only the selected one visible): each is a ``reserved`` offer with that term;
- "N/A" is a tier the row does not offer (the B200 has no on-demand and no 6-month price): no
  offer. Any other text that is not a "$" price ("TBA", "$1.2.3", a struck-through price alone)
  holds that offer (spiders/base.py Parsed.hold, the text kept): the other prices load. The B200's headline per-GPU figure is its 36-month price, never an on-demand one;
- the GPU label is the caption's ("NVIDIA H100 SXM", it carries the form factor), the count and
  VRAM the row's product detail (which must name the same GPU);
- tables outside the GPU section (RAM Optimized compute instances before it, Object store after
  it) use the same markup and are not read.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

SECTION = '//section[@id="nvidia-gpus"]'
CAPTION = re.compile(r"^(.+?) GPU pricing$")
DETAIL = re.compile(r"^(\d+) x (.+?) - (\d+(?:\.\d+)?)\s*GB\b")
TERM_OPTION = re.compile(r"^Commitment - (\d+ months?)$")
PRICE = re.compile(r"^\$\d{1,3}(?:,\d{3})*(?:\.\d+)?$|^\$\d+(?:\.\d+)?$")
NOT_OFFERED = {"n/a", "-", "—", "–"}
UNIT = "per hour"


def _hourly(cell) -> tuple[str, str] | None:
    """(price text, unit text) of a cell's hourly price div, or None when it has none."""
    divs = cell.xpath('./div[@data-option="hourly"]')
    if len(divs) != 1:
        return None
    div = divs[0]
    # The price is the div's text outside its unit <span> ("$1.29" of "$1.29<span>per hour</span>").
    return (text_of(div, "./text() | ./*[not(self::span)]//text()"), text_of(div, "./span//text()"))


def parse_pricing(body: str, url: str) -> Parsed:
    """GPU offers of the pricing page: on-demand and every commitment term, per size."""
    parsed = Parsed()
    sections = Selector(text=body).xpath(SECTION)
    if len(sections) != 1:
        parsed.error(f'{"no" if not sections else "several"} <section id="nvidia-gpus">')
        return parsed
    tables = sections[0].xpath('.//table[contains(@class, "pricing-table")]')
    if not tables:
        parsed.error('no <table class="pricing-table"> in the NVIDIA GPUs section')
        return parsed
    problems: dict[str, list[str]] = {}
    for table in tables:
        caption = text_of(table, "./caption//text()")
        offers, table_problems = _table(table, caption)
        for problem in table_problems:
            problems.setdefault(problem, []).append(caption or "?")
        if not table_problems:
            for fields in offers:
                held = fields.pop("_held", None)
                if held:
                    parsed.hold(held, **fields)
                else:
                    parsed.offer(**fields)
    for problem, names in problems.items():
        shown = ", ".join(repr(n) for n in names[:3]) + (", ..." if len(names) > 3 else "")
        parsed.error(f"{problem} (tables {shown})")
    if not parsed.offers and not parsed.errors:
        parsed.error("no GPU offer in the NVIDIA GPUs section")
    return parsed


def _table(table, caption: str) -> tuple[list[dict], list[str]]:
    m = CAPTION.match(caption)
    if not m:
        return [], [f'caption is not "<GPU> GPU pricing" ({caption!r})']
    label = m.group(1)
    headers = [text_of(th) for th in table.xpath("./thead/tr/th")]
    try:
        on_demand_col, commitment_col = headers.index("On-demand"), headers.index("Commitment")
    except ValueError:
        return [], [f"no On-demand / Commitment columns (header {' | '.join(headers)!r})"]
    # The terms the page offers: the select just above the table ("Commitment - 6 months").
    options = table.xpath('preceding::select[contains(@class, "commitment-term")][1]/option')
    terms = {}
    for option in options:
        t = TERM_OPTION.match(text_of(option))
        if not t:
            return [], [f"commitment option {text_of(option)!r} is not a term in months"]
        terms[option.attrib.get("value", "")] = t.group(1)
    if not terms:
        return [], ["no commitment-term select above the table"]

    offers, problems = [], []
    rows = table.xpath("./tbody/tr")
    if not rows:
        problems.append("a GPU table has no rows")
    for row in rows:
        cells = row.xpath("./td")
        if len(cells) != len(headers):
            problems.append(f"{len(cells)} cells under {len(headers)} headers")
            continue
        detail = text_of(cells[0], './div[@class="product-detail"]//text()')
        d = DETAIL.match(detail)
        if not d:
            problems.append(f'no "<n> x <GPU> - <VRAM>GB" product detail ({detail!r})')
            continue
        # "1 x NVIDIA H100 - 80GB" under "NVIDIA H100 SXM GPU pricing": the same GPU.
        if not label.lower().startswith(d.group(2).lower()):
            problems.append(f"product detail {detail!r} is not the caption's GPU")
            continue
        common = dict(gpu_label=label, gpu_count=int(d.group(1)), vram_gb=float(d.group(3)),
                      variant=None, region=None, currency="USD", price_unit="instance_hour",
                      availability=None, self_service=True)
        surfaces = [("on-demand", None, cells[on_demand_col])]
        for div in cells[commitment_col].xpath("./div[@id]"):
            term = terms.get(div.attrib["id"])
            if term is None:
                problems.append(f"commitment price {div.attrib['id']!r} has no term in the select")
                continue
            surfaces.append(("reserved", term, div))
        if len(surfaces) != len(terms) + 1:
            problems.append(f"{len(surfaces) - 1} commitment prices for {len(terms)} terms")
        for billing, term, cell in surfaces:
            hourly = _hourly(cell)
            if hourly is None:
                problems.append(f'no single data-option="hourly" price ({billing} {term or ""})'.strip())
                continue
            value, unit = hourly
            if value.lower() in NOT_OFFERED:
                continue  # "N/A": this size is not offered on these terms
            if not PRICE.match(value):
                # "TBA", "$1.2.3", a struck-through price alone: this cell cannot be read; its
                # offer is held (spiders/base.py Parsed.hold, the text kept), the rest loads.
                offers.append(dict(common, billing=billing, tier=billing, reserved_term=term, sku=None,
                                   price_raw=value or None,
                                   _held=f"{billing} price cell unreadable: {value!r}"))
                continue
            if unit != UNIT:
                problems.append(f"hourly price no longer {UNIT!r} (reads {unit!r})")
                continue
            offers.append(dict(common, billing=billing, tier=billing, reserved_term=term,
                               sku=None, price_raw=value))
    return offers, problems


class CivoSpider(PriceSpider):
    name = "civo"
    allowed_domains = ["civo.com"]
    pricing_url = "https://www.civo.com/pricing"
    family = "neocloud"
    unit = "USD per instance-hour"
    capture = "real"
    robots = ("no stored copy of www.civo.com/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Civo Terms and Conditions (https://www.civo.com/legal/terms, stored copies, undated): 'Please "
             "read these terms carefully before you launch any services using our website or API.'; no clause "
             "on reading the public website by automated means in the stored excerpts (searched the pages "
             "corpus 2026-12-02 for 'Civo terms of service', 'Civo acceptable use policy automated scraping "
             "website'). We read only the public pricing page, once a day, with our contact User-Agent and "
             "robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

"""E2E Networks: the public pricing page (Next.js, server-rendered), GPU instances only.

Read from the real page (recorded 2026-08-22, ``tests/real/e2e/``, the US view
``/pricing?region=us``). Two price lists in one document, kept apart:

- **the USD table**: the page's one ``<table>`` (header Item | vRAM | vCPUs | RAM, GB |
  Hourly/On-Demand | Monthly | Annually), one row per GPU of the selected "1x" configuration,
  under the footnote "Prices are per GPU-hour and do not include taxes." (checked: without
  it, or with another unit, the table fails). The Hourly/On-Demand column is the on-demand
  offer, USD per GPU-hour. Two rows print the same label "NVIDIA A100" and are told apart by
  their vRAM (80 / 40). The Monthly and Annually columns are per-GPU prices for a month / a
  year of commitment; the offer record holds hourly prices with the text printed, and a
  month has no stated number of hours here, so they are not offers (the archive keeps them);
- **the INR catalog**: the ``<script type="application/ld+json">`` ``OfferCatalog``, one
  ``Offer`` per instance: ``"name": "NVIDIA B200 GPU Cloud Instance"``, ``"priceCurrency":
  "INR"``, ``"price": 671``, ``"unitText": "per hour"``, ``"description": "192 GB VRAM, 32
  vCPUs, 400 GB RAM"``. Category "GPU Cloud Instance" offers are on-demand offers in INR
  (never converted), ``sku`` the offer's ``/gpus/<slug>`` (so they never share a key with the
  USD rows); "CPU Cloud Instance" offers (C3, M3, SDC3, E1LC) are not GPU offers;
- one USD row whose Hourly/On-Demand cell is not a "$" price, or one catalog offer whose price
  is not a positive number, is held (spiders/base.py Parsed.hold, the text kept); the other rows
  load. A changed header, unit note or ``unitText`` fails the page;
- escaped copies of both in the RSC flight payload (``self.__next_f.push``) and the nav's GPU
  labels are never read.
"""

from __future__ import annotations

import json
import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, no_duplicate_keys, text_of

HEADER = ["Item", "vRAM", "vCPUs", "RAM, GB", "Hourly/On-Demand", "Monthly", "Annually"]
UNIT_NOTE = "Prices are per GPU-hour"
PRICE = re.compile(r"^\$\d{1,3}(?:,\d{3})*(?:\.\d+)?$|^\$\d+(?:\.\d+)?$")
GPU_CATEGORY, CPU_CATEGORY = "GPU Cloud Instance", "CPU Cloud Instance"
VRAM = re.compile(r"^(\d+(?:\.\d+)?) GB VRAM\b")
SLUG = re.compile(r"^https://www\.e2enetworks\.com/gpus/([a-z0-9-]+)$")


def parse_pricing(body: str, url: str) -> Parsed:
    """On-demand GPU offers: the USD table (per GPU-hour) and the INR JSON-LD catalog."""
    page = Selector(text=body)
    parsed = Parsed()
    parsed.extend(_usd_table(page))
    parsed.extend(_inr_catalog(page))
    return parsed


def _usd_table(page) -> Parsed:
    parsed = Parsed()
    tables = page.xpath("//table")
    if len(tables) != 1:
        parsed.error(f"{len(tables)} <table> elements, expected the one USD price table")
        return parsed
    table = tables[0]
    header = [text_of(th) for th in table.xpath("./thead/tr/th")]
    if header != HEADER:
        parsed.error(f"USD table header is not {' | '.join(HEADER)!r} ({' | '.join(header)!r})")
        return parsed
    note = text_of(table.xpath("following::p[1]"))
    if not note.startswith(UNIT_NOTE):
        parsed.error(f"USD table no longer followed by {UNIT_NOTE!r} (reads {note[:80]!r})")
        return parsed
    bad: dict[str, list[str]] = {}
    for tr in table.xpath("./tbody/tr"):
        cells = [text_of(td) for td in tr.xpath("./td")]
        if len(cells) != len(HEADER):
            bad.setdefault(f"a USD row has {len(cells)} cells, not {len(HEADER)}", []).append(cells[0] if cells else "?")
            continue
        label, vram, hourly = cells[0], cells[1], cells[4]
        if not re.fullmatch(r"\d+(?:\.\d+)?", vram):
            bad.setdefault("vRAM is not a number of GB", []).append(f"{label}: {vram}")
        else:
            fields = dict(gpu_label=label, gpu_count=1, vram_gb=float(vram), billing="on-demand",
                          tier="on-demand", region=None, currency="USD", self_service=True,
                          price_raw=hourly, price_unit="gpu_hour", availability=None)
            if PRICE.match(hourly):
                parsed.offer(**fields)
            else:
                # "TBD", "€3.77", a struck price alone: this row's price cannot be read; it is
                # held (spiders/base.py Parsed.hold, the text kept), the other rows load.
                parsed.hold(f"Hourly/On-Demand cell unreadable: {hourly!r} (not a $ price)", **fields)
    for problem, rows in bad.items():
        parsed.error(f"{problem} ({', '.join(repr(r) for r in rows[:3])})")
    if not parsed.offers and not parsed.errors:
        parsed.error("the USD price table has no rows")
    return parsed


def _inr_catalog(page) -> Parsed:
    parsed = Parsed()
    catalogs = []
    for script in page.xpath('//script[@type="application/ld+json"]/text()').getall():
        try:
            doc = json.loads(script, object_pairs_hook=no_duplicate_keys)
        except ValueError as exc:
            parsed.error(f"a JSON-LD block is not JSON we can read ({str(exc)[:100]})")
            continue
        if isinstance(doc, dict) and doc.get("@type") == "OfferCatalog":
            catalogs.append(doc)
    if len(catalogs) != 1:
        parsed.error(f"{len(catalogs)} JSON-LD OfferCatalog blocks, expected one")
        return parsed
    items = catalogs[0].get("itemListElement")
    if not isinstance(items, list):
        parsed.error("JSON-LD OfferCatalog has no itemListElement list")
        return parsed
    bad: dict[str, list[str]] = {}
    for offer in items:
        name = str(offer.get("name", "")) if isinstance(offer, dict) else ""
        category = offer.get("category") if isinstance(offer, dict) else None
        if category == CPU_CATEGORY:
            continue
        if category != GPU_CATEGORY or not name.endswith(" " + GPU_CATEGORY):
            bad.setdefault("JSON-LD offer of an unknown category", []).append(f"{name}: {category}")
            continue
        spec = offer.get("priceSpecification") or {}
        product = offer.get("itemOffered") or {}
        currency, price = offer.get("priceCurrency"), offer.get("price")
        vram = VRAM.match(str(product.get("description", "")))
        slug = SLUG.match(str(offer.get("url", "")))
        if spec.get("unitText") != "per hour":
            bad.setdefault("JSON-LD unitText is not 'per hour'", []).append(f"{name}: {spec.get('unitText')!r}")
        elif (spec.get("priceCurrency"), spec.get("price")) != (currency, price) or not currency:
            bad.setdefault("JSON-LD offer and its priceSpecification disagree", []).append(name)
        elif not vram or not slug:
            bad.setdefault("JSON-LD offer lacks '<n> GB VRAM' or a /gpus/<slug> url", []).append(name)
        else:
            fields = dict(gpu_label=name.removesuffix(" " + GPU_CATEGORY), sku=slug.group(1), gpu_count=1,
                          vram_gb=float(vram.group(1)), billing="on-demand", tier="on-demand", region=None,
                          currency=str(currency).upper(), self_service=True, price_raw=price,
                          price_unit="instance_hour", availability=None)
            if isinstance(price, bool) or not isinstance(price, (int, float)) or price <= 0:
                # one offer's price is not a positive number ("TBD", null): that offer is held
                # (spiders/base.py Parsed.hold, the value kept), the other offers load.
                parsed.hold(f"JSON-LD price unreadable: {price!r} (not a positive number)", **fields)
            else:
                parsed.offer(**fields)
    for problem, names in bad.items():
        parsed.error(f"{problem} ({', '.join(repr(n) for n in names[:3])})")
    if not parsed.offers and not parsed.errors:
        parsed.error("JSON-LD OfferCatalog has no GPU Cloud Instance offer")
    return parsed


class E2ENetworksSpider(PriceSpider):
    name = "e2e_networks"
    allowed_domains = ["e2enetworks.com"]
    pricing_url = "https://www.e2enetworks.com/pricing?region=us"
    family = "neocloud"
    unit = "USD per GPU-hour (table); INR per hour (JSON-LD)"
    capture = "real"
    robots = ("no stored copy of www.e2enetworks.com/robots.txt found (searched the pages corpus 2026-12-02; "
              "it cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("E2E Networks Acceptable Use Policy (https://www.e2enetworks.com/acceptable-use-policy, stored "
             "copy, undated) sets the fees and charges a Customer pays for Cloud Computing; no clause on "
             "automated reading of the website in the stored excerpt (searched the pages corpus 2026-12-02 for"
             " 'E2E Networks terms of service website use'). The page itself invites machine reading (its HTML"
             " comment for agents points to /pricing.json and its application/ld+json tags); we read only the "
             "public pricing page, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

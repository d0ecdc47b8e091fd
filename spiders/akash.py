"""Akash Network: the GPU price list of its pricing page (akash.network/pricing/gpus/).

Akash is a marketplace: providers bid for a deployment, so the page prints, per GPU, the lowest
price asked on the network ("Starting at"), per GPU-hour: "H100 80GB SXM5" "$2.71/hr", down to
"P4 8GB PCIe" "$0.03/hr", then "Bulk Orders or Custom Configurations" "Get a Custom Quote"
(captures/src/2026-09-20/akash/ says what of the capture is real: every name and price text,
from a public transcription of the page; and composed: the markup). So:

- the price table is found by its header (GPU | Starting at, exactly; none, or another header,
  is a layout error; copies are read once when identical and refused when they differ);
- a GPU name is ``<model> <n>GB[ <interface>]`` ("H100 80GB SXM5", "B200 180GB HBM3e"): the
  whole name is the label as printed, its memory the VRAM per GPU; a name not like that is a
  layout error, except the "Bulk Orders or Custom Configurations" row, which is no GPU (its
  "Get a Custom Quote" is read nowhere);
- the price is per GPU-hour ("$2.71/hr": price_unit ``gpu_hour``, one GPU, the lowest ask of the
  marketplace, so billing ``marketplace`` and tier "starting at"); "--/hr" (the page's own mark
  for a GPU no provider offers now) is no offer; "Contact sales" / "Get a Custom Quote" on a GPU
  is an offer without a public price; an unreadable price ("$2.71", "€2.71/hr", "TBD") holds
  that row; "$X" per another unit ("$1,950/mo") fails the page.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

HEADER = ("GPU", "Starting at")
NAME = re.compile(r"^(\S.*?) (\d+(?:\.\d+)?)GB(?: (\S+))?$")
HOURLY = re.compile(r"^\$(\d+(?:\.\d+)?)/hr$")
OTHER_UNIT = re.compile(r"^\$\d[\d,]*(?:\.\d+)?\s*/\s*(?!hr$)\S+$")
NOT_OFFERED = re.compile(r"^(--|—|–|-)\s*/hr$")
CONTACT = re.compile(r"^(contact (sales|us)|get a custom quote)$", re.I)
NOT_A_GPU = "Bulk Orders or Custom Configurations"


def _rows(table) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(text_of(td) for td in tr.xpath("./td")) for tr in table.xpath("./tbody/tr"))


def parse_gpus(body: str, url: str) -> Parsed:
    """One offer per GPU row of the price table, per GPU-hour."""
    parsed = Parsed()
    tables = Selector(text=body).xpath("//table")
    headed = [t for t in tables if tuple(text_of(th) for th in t.xpath("./thead/tr/th")) == HEADER]
    if not headed:
        found = [" | ".join(text_of(th) for th in t.xpath("./thead/tr/th")) for t in tables]
        parsed.error(f"no table headed {' | '.join(HEADER)} (tables found: {found!r})")
        return parsed
    table = parsed.one_copy(headed, "GPU price tables", _rows)
    if table is None:
        return parsed
    rows = _rows(table)
    if not rows:
        parsed.error("the GPU price table has no row")
        return parsed
    problems: dict[str, list[str]] = {}
    for cells in rows:
        problem = _row(parsed, *cells) if len(cells) == 2 else f"row(s) of {len(cells)} cells, not 2"
        if problem:
            problems.setdefault(problem, []).append(cells[0] if cells else "?")
    parsed.errors_by_problem("GPU price table", problems)
    if not parsed.offers and not parsed.errors:
        parsed.error("no GPU offer in the price table (every price says '--/hr')")
    return parsed


def _row(parsed: Parsed, name: str, price: str) -> str | None:
    """Adds the row's offer (or holds it); a layout problem of the row is returned instead."""
    if name == NOT_A_GPU:
        return None
    label = NAME.match(name)
    if not label:
        return "GPU name(s) not like '<model> <n>GB[ <interface>]'"
    fields = dict(gpu_label=name, gpu_count=1, vram_gb=float(label.group(2)), billing="marketplace",
                  tier="starting at", reserved_term=None, region=None, currency="USD", price_unit="gpu_hour",
                  sku=name, availability=None)
    if HOURLY.match(price):
        parsed.offer(price_raw=price, self_service=True, **fields)
    elif NOT_OFFERED.match(price):
        return None
    elif CONTACT.match(price):
        parsed.offer(price_raw=price, self_service=False, **fields)
    elif OTHER_UNIT.match(price):
        return f"price(s) not '$X/hr' ({price!r})"
    else:
        parsed.hold(f"price cell unreadable: {price!r}", price_raw=price or None, self_service=True, **fields)
    return None


class AkashSpider(PriceSpider):
    name = "akash"
    allowed_domains = ["akash.network"]
    pricing_url = "https://akash.network/pricing/gpus/"
    family = "marketplace"
    unit = "USD per GPU-hour (the lowest 'Starting at' price providers ask on the marketplace)"
    capture = "composed"
    robots = ("unknown: no stored copy of akash.network/robots.txt found (searched the pages corpus "
              "2026-12-02 for 'akash.network robots.txt'); robots.txt is obeyed at every crawl if served")
    terms = ("none stored: the Akash Network Terms of Service (https://console.akash.network/terms-of-service, "
             "named by the stored AkashML terms, https://akashml.com/terms, 'Last Updated: November 14, 2025') has "
             "no stored copy in the pages corpus (searched 2026-12-02 for 'akash.network terms of use'); the "
             "stored AkashML and AkashChat terms govern those services, not the website. We read only the public "
             "GPU pricing page, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_gpus)

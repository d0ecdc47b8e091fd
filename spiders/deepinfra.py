"""DeepInfra: the public pricing page (Next.js + MUI, server-rendered HTML), the Custom LLMs GPU table.

Read from the real page (recorded 2026-08-22, ``tests/real/deepinfra/``). The Custom LLMs section
("You can deploy your own model on our hardware and pay for uptime ... dedicated SXM-connected
GPUs", "Billed in minute granularity", a "Deploy" button to ``/dash/deployments?new=custom-llm``)
holds one MUI ``<table>`` whose header cells are exactly GPU | Memory | Price, one row per GPU:
``<td>A100</td><td>80GB</td><td><b>$0.89</b> / GPU-hour</td>``. So:

- the table is found by its header (never by position); none is a layout error, and several
  copies (a tab panel rendered twice) are read once when they are identical and refused when they
  differ;
- one offer per row: one GPU, on-demand, self-service, VRAM as printed ("80GB" -> 80, checked: any
  other memory cell is a layout error), the label as printed ("A100", "B300": the catalog decides
  the model with the VRAM);
- the price cell must read "$X / GPU-hour" (USD per GPU-hour; price_raw "$X"). A "$" amount per
  another unit ("$0.89 / hour", "/ GPU-month") is a layout error: the page changed its unit.
  "Contact us" / "Contact sales" is an offer without a public price (unpriced, not
  self-service); "N/A" or "—" means the GPU is not offered (no offer). Any other text ("TBD",
  "€0.89 / GPU-hour", a struck-through price alone, a bare "$0.89", an empty cell) cannot be read:
  that offer is held (spiders/base.py Parsed.hold, the text kept) and the other GPUs load. A "was"
  price struck through beside the current one (the page's i18n carries a "Limited-time offer ...
  List price" discount badge) is not read (spiders/base.py text_of);
- not read: the service-tier table (Tier | Scheduling | Price, "1x base price"), the usage-tier
  table (Tier | Qualification & Invoicing Threshold | $, "$20" ... "$10,000"), the serverless
  per-token Model tables ("$ per 1M input tokens"), the i18n JSON blob (chip labels
  ``"gpu_b200":"B200"`` beside the unpriced template ``${{price}} / GPU-hour``), and the
  "Dedicated Instances and Clusters" prose (DGX H100, B200 and B300 clusters by e-mail: no price,
  no row).
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

HEADER = ("GPU", "Memory", "Price")
PRICE = re.compile(r"^(\$\d+(?:\.\d+)?)\s*/\s*GPU-hour$")
# A $ amount per some other unit ("$0.89 / hour", "$650 / GPU-month"): the page changed its unit.
OTHER_UNIT = re.compile(r"^\$\d+(?:\.\d+)?\s*/\s*\S")
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB$")
CONTACT = re.compile(r"^contact (sales|us)$", re.I)
NOT_OFFERED = {"n/a", "na", "-", "—", "–"}


def parse_pricing(body: str, url: str) -> Parsed:
    """One on-demand offer per row of the GPU | Memory | Price table, per GPU-hour."""
    parsed = Parsed()
    tables = [t for t in Selector(text=body).xpath("//table")
              if tuple(text_of(th) for th in t.xpath("./thead/tr/th")) == HEADER]
    if not tables:
        parsed.error("no table headed GPU | Memory | Price (the Custom LLMs GPU table)")
        return parsed
    table = parsed.one_copy(tables, "GPU | Memory | Price tables", lambda t: tuple(
        tuple(text_of(td) for td in tr.xpath("./td")) for tr in t.xpath("./tbody/tr")))
    if table is None:
        return parsed
    rows = table.xpath("./tbody/tr")
    if not rows:
        parsed.error("the GPU | Memory | Price table has no row")
        return parsed
    problems: dict[str, list[str]] = {}
    for row in rows:
        cells = row.xpath("./td")
        label = text_of(cells[0]) if cells else ""
        problem = _row(parsed, label, cells)
        if problem:
            problems.setdefault(problem, []).append(label or "?")
    for problem, labels in problems.items():
        shown = ", ".join(repr(n) for n in labels[:3]) + (", ..." if len(labels) > 3 else "")
        parsed.error(f"{problem} (GPUs {shown})")
    if not parsed.offers and not parsed.errors:
        parsed.error("no GPU offer in the GPU | Memory | Price table (every price cell says not offered)")
    return parsed


def _row(parsed: Parsed, label: str, cells) -> str | None:
    """Adds the row's offer (or holds it); a layout problem of the row is returned instead."""
    if len(cells) != len(HEADER):
        return f"a row has {len(cells)} cells under {len(HEADER)} columns"
    if not label:
        return "a row has no GPU name"
    memory, price = text_of(cells[1]), text_of(cells[2])
    vram = VRAM.match(memory)
    if not vram:
        return f"memory cell is not like '80GB' ({memory!r})"
    fields = dict(gpu_label=label, gpu_count=1, vram_gb=float(vram.group(1)), billing="on-demand",
                  tier="on-demand", reserved_term=None, region=None, currency="USD", price_unit="gpu_hour",
                  availability=None)
    m = PRICE.match(price)
    if m:
        parsed.offer(**fields, self_service=True, price_raw=m.group(1))
    elif CONTACT.match(price):
        parsed.offer(**fields, self_service=False, price_raw=price)
    elif price.lower() in NOT_OFFERED:
        pass   # "N/A", "—": this GPU is not offered
    elif OTHER_UNIT.match(price):
        return f"price cell is not '$X / GPU-hour' ({price!r})"
    else:
        # "TBD", "€0.89 / GPU-hour", a bare "$0.89", a struck-through price alone: this cell cannot
        # be read; the offer is held (spiders/base.py Parsed.hold, the text kept), the others load.
        parsed.hold(f"price cell unreadable: {price!r}", **fields, self_service=True, price_raw=price or None)
    return None


class DeepInfraSpider(PriceSpider):
    name = "deepinfra"
    allowed_domains = ["deepinfra.com"]
    pricing_url = "https://deepinfra.com/pricing"
    family = "neocloud"
    unit = "USD per GPU-hour"
    capture = "real"
    robots = ("no stored copy of deepinfra.com/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Terms of Service (https://deepinfra.com/terms, stored copy, 'Last modified: July 4th, 2024'): "
             "'You may use the Services for any legal commercial purposes unless specifically prohibited "
             "below.' A clause on automated collection was not found in the stored public copy (only its "
             "opening is stored). We read only the public pricing page, once a day, with our contact "
             "User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

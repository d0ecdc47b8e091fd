"""Crusoe: the public cloud pricing page (Webflow CMS list), GPU instances only.

Read from the real page (recorded 2026-08-22, ``tests/real/crusoe/``). Each price table is a
``<div class="pricing-dd">`` titled by ``<h3 class="pricing-col-heading">``; the one read here
is "GPU instances pricing", with the column headings ``<div class="pricing-heading is-d">`` GPU
model | On-demand | Current spot and one CMS item ``<div class="pricing_gpu-item">`` per GPU:

- the name ``<h4 class="pricing-item-heading">NVIDIA H100</h4>`` and its tags: memory
  ``<div class="pricing-tag is-dark">80GB</div>`` and a board/form tag (``HGX``, ``SXM``,
  ``PCIe``, ``NVL72``, or an empty ``w-dyn-bind-empty`` tag, as for L40S and the AMD parts). The
  label is the name plus that tag ("NVIDIA A100 SXM" and "NVIDIA A100 PCIe" are two rows);
- one ``<div class="pricing-rich">`` cell per price column: ``<p>$3.90/GPU-hr</p>`` is USD per
  GPU-hour (the unit is checked in every cell: a "$" amount "/hr" alone or "/month" fails the
  page; any other text, "TBD", "€3.90/GPU-hr", a struck-through price alone, holds that offer,
  spiders/base.py Parsed.hold, and the other GPUs load);
- "Contact sales" in the On-demand column is an offer without a public price (unpriced, not
  self-service); in the Current spot column (every GPU in the recording) there is no spot
  offer at all, so it is no offer: the source fact ``spot_contact_sales`` counts those cells;
- other tables with the same markup are other products and not read: CPU instances
  ("$0.04/vCPU-hr"), storage, Managed Kubernetes, serverless token prices, and "Self-Serve
  Deployments pricing" (managed "NVIDIA H100" / "NVIDIA H200" endpoints at a bare "$5.50").
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

TITLE = "GPU instances pricing"
BLOCKS = '//div[contains(concat(" ", normalize-space(@class), " "), " pricing-dd ")]'
COLUMNS = {"On-demand": "on-demand", "Current spot": "spot"}
PRICE = re.compile(r"^(\$\d+(?:\.\d+)?)\s*/\s*GPU-hr$")
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB$")
CONTACT = re.compile(r"^contact (sales|us)$", re.I)
# A $ amount per some other unit ("$34.32/hr", "$3.90/month"): the page changed its unit.
OTHER_UNIT = re.compile(r"^\$\d+(?:\.\d+)?\s*/\s*\S")


def _cls(name: str) -> str:
    return f'contains(concat(" ", normalize-space(@class), " "), " {name} ")'


def parse_pricing(body: str, url: str) -> Parsed:
    """On-demand (and priced spot) offers of the "GPU instances pricing" table, per GPU-hour."""
    parsed = Parsed()
    blocks = [b for b in Selector(text=body).xpath(BLOCKS)
              if text_of(b, f'.//h3[{_cls("pricing-col-heading")}]//text()') == TITLE]
    if len(blocks) != 1:
        parsed.error(f'{"no" if not blocks else "several"} "{TITLE}" table (h3.pricing-col-heading)')
        return parsed
    block = blocks[0]
    headings = [text_of(h) for h in block.xpath(f'.//div[{_cls("pricing-heading")}]')]
    if not headings or headings[0] != "GPU model" or set(headings[1:]) - set(COLUMNS) or "On-demand" not in headings:
        parsed.error(f"column headings are not GPU model | On-demand | Current spot ({' | '.join(headings)!r})")
        return parsed
    columns = [COLUMNS[h] for h in headings[1:]]
    items = block.xpath(f'.//div[{_cls("pricing_gpu-item")}]')
    if not items:
        parsed.error(f'no <div class="pricing_gpu-item"> under "{TITLE}"')
        return parsed
    problems: dict[str, list[str]] = {}
    contact_spot: list[str] = []
    for item in items:
        name = text_of(item, f'.//h4[{_cls("pricing-item-heading")}]//text()')
        offers, item_problems, spot_contact = _item(item, name, columns)
        for problem in item_problems:
            problems.setdefault(problem, []).append(name or "?")
        if not item_problems:
            for fields in offers:
                held = fields.pop("_held", None)
                if held:
                    parsed.hold(held, **fields)
                else:
                    parsed.offer(**fields)
            contact_spot += spot_contact
    for problem, names in problems.items():
        shown = ", ".join(repr(n) for n in names[:3]) + (", ..." if len(names) > 3 else "")
        parsed.error(f"{problem} (GPUs {shown})")
    if not parsed.offers and not parsed.errors:
        parsed.error(f'no GPU offer under "{TITLE}"')
    if contact_spot and not parsed.layout_errors:
        parsed.facts.append(dict(fact="spot_contact_sales", value_num=len(contact_spot),
                                 value_text=", ".join(contact_spot)))
    return parsed


def _item(item, name: str, columns: list[str]) -> tuple[list[dict], list[str], list[str]]:
    """(offers, problems, labels whose spot cell says "Contact sales") of one GPU item."""
    if not name:
        return [], ['a GPU item has no <h4 class="pricing-item-heading">'], []
    memory = [text_of(t) for t in item.xpath(f'.//div[{_cls("pricing-tag")}][{_cls("is-dark")}]')]
    boards = [text_of(t) for t in item.xpath(f'.//div[{_cls("pricing-tag")}][not({_cls("is-dark")})]')]
    vram = VRAM.match(memory[0]) if len(memory) == 1 else None
    if not vram:
        return [], [f"no single memory tag like '80GB' ({memory!r})"], []
    if len(boards) > 1:
        return [], [f"several board tags ({boards!r})"], []
    label = " ".join([name] + [b for b in boards if b])
    cells = [text_of(c) for c in item.xpath(f'./div[{_cls("pricing-rich")}]')]
    if len(cells) != len(columns):
        return [], [f"{len(cells)} price cells under {len(columns)} price columns"], []
    offers, problems, contact_spot = [], [], []
    for billing, value in zip(columns, cells):
        common = dict(gpu_label=label, gpu_count=1, vram_gb=float(vram.group(1)), billing=billing,
                      tier=billing, region=None, currency="USD", price_unit="gpu_hour", availability=None)
        price = PRICE.match(value)
        if price:
            offers.append(dict(common, self_service=True, price_raw=price.group(1)))
        elif CONTACT.match(value) and billing == "on-demand":
            offers.append(dict(common, self_service=False, price_raw=value))
        elif CONTACT.match(value):
            contact_spot.append(label)   # no public spot market for this GPU: not an offer
        elif OTHER_UNIT.match(value):
            problems.append(f"{billing} cell is not '$X/GPU-hr' or 'Contact sales' ({value!r})")
        else:
            # "TBD", "€3.90/GPU-hr", a struck-through price alone: this cell cannot be read; the
            # offer is held (spiders/base.py Parsed.hold, the text kept), the other GPUs load.
            offers.append(dict(common, self_service=True, price_raw=value or None,
                               _held=f"{billing} price cell unreadable: {value!r}"))
    return offers, problems, contact_spot


class CrusoeSpider(PriceSpider):
    name = "crusoe"
    allowed_domains = ["crusoe.ai"]
    pricing_url = "https://www.crusoe.ai/cloud/pricing"
    family = "neocloud"
    unit = "USD per GPU-hour"
    capture = "real"
    robots = ("no stored copy of www.crusoe.ai/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Crusoe Cloud Platform Terms of Service (https://crusoeenergy.pactsafe.io/, stored copy, "
             "'Effective November 24th 2024') outline 'the terms regarding your use of our Services and TSS'; "
             "the 'Crusoe Website Terms of Use' listed beside them is not stored (searched the pages corpus "
             "2026-12-02 for 'Crusoe cloud terms of service acceptable use', 'Crusoe Website Terms of Use "
             "automated scraping'). We read only the public pricing page (the API is HMAC-signed and has no "
             "prices), once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

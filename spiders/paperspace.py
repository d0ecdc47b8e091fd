"""Paperspace (DigitalOcean): the public pricing page ``www.paperspace.com/pricing`` (Webflow HTML),
the "On-Demand Compute" machine cards.

Read from the real page as the Internet Archive captured it on 2024-01-23 09:21:47 UTC
(``tests/real/paperspace/``, an excerpt: the pricing section). One card per machine type in
``div.instance-container-flex``: a name (``<h1 class="instance-names">A4000</h1>``), one visible
price block (``<div class="text-block-13">$</div><h1 class="instance-price-2">0.76</h1>
<div class="text-block-22">/ hour</div>``), the spec list (``NVIDIA A4000 GPU`` / ``45GB RAM`` /
``8 vCPU``) and the multi-GPU sizes (``Multi-GPU types: 2x 4x``, or ``none``). So:

- prices are USD for one machine of one GPU, per hour: per GPU-hour. The page says how the
  multi-GPU sizes are priced: "Multiply the specs and price of each type above by the number of
  GPUs", so every size listed (1x and each ``Nx``) is an offer at the same per-GPU-hour price.
  If that sentence is gone while a card lists sizes, the sizes cannot be priced: a layout error;
- a price with asterisks is explained by a footnote under the cards: ``*$2.24/hour pricing is for
  a 3-year commitment`` (H100) and ``**$1.15/hour pricing is for a 3-year commitment`` (A100-80G):
  billing ``reserved``, term "3 years", never on-demand. A starred price whose footnote is missing
  (or names another price) holds that card's offers (spiders/base.py Parsed.hold);
- the same footnote gives an on-demand price in prose: "On-demand pricing for H100 is $6.00/hour
  ($8.96) under our special promo price.": on-demand offers for the H100 card's sizes at $6.00,
  tier ``on-demand (promo)``. The "($8.96)" beside it is not explained by the page: kept as the
  source fact ``h100_on_demand_parenthetical_usd``, never a price;
- a price block or spec list with the class ``hide`` is not shown: the H100 card carries a hidden
  copy of the A100 card's block (``$3.09 / hour`` + ``NVIDIA A100 GPU``), and a hidden container
  of older "dedicated" desktop cards (P4000 ... V100 with "+ Windows License Included") follows
  the cards: neither is read;
- VRAM only where the spec list prints it ("16 GB GPU"); "NVIDIA HGX H100 GPU" says the board is
  HGX (SXM). The card name is the label as printed ("A100-80G", "RTX5000", ...);
- a price that is not "<digits>[.<digits>][*...]" behind a "$" sign holds the card's offers;
  a unit other than "/ hour" fails the page (the unit changed, not one cell).
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

PRICING_URL = "https://www.paperspace.com/pricing"

_HIDDEN = 'contains(concat(" ", normalize-space(@class), " "), " hide ")'
CARDS = ('//div[contains(concat(" ", normalize-space(@class), " "), " instance-container-flex ")]'
         '/div[contains(concat(" ", normalize-space(@class), " "), " instance-blocks-flex ")]')
HOLDER = './div[contains(@class, "instance-type-holder-flex")]'
PRICE = re.compile(r"^(\d+(?:\.\d+)?)(\**)$")
SIZES = re.compile(r"^\d+x(?: \d+x)*$")
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB GPU$", re.I)
FOOT_TERM = re.compile(r"(\*+)\$(\d+(?:\.\d+)?)/hour pricing is for an? ([\w-]+) commitment")
FOOT_ON_DEMAND = re.compile(r"On-demand pricing for (\S+) is \$(\d+(?:\.\d+)?)/hour"
                            r"(?: \(\$(\d+(?:\.\d+)?)\))?( under our special promo price)?")
MULTIPLY = "Multiply the specs and price of each type above by the number of GPUs"
TERM = re.compile(r"^(\d+)-(year|month)$", re.I)


def _term(words: str) -> str | None:
    """'3-year' -> '3 years'."""
    m = TERM.match(words)
    if not m:
        return None
    n = int(m.group(1))
    return f"{n} {m.group(2).lower()}{'s' if n > 1 else ''}"


def parse_pricing(body: str, url: str = PRICING_URL) -> Parsed:
    """Offers of the machine cards: one per card, GPU count and billing, per GPU-hour."""
    parsed = Parsed()
    page = Selector(text=body)
    cards = page.xpath(CARDS)
    if not cards:
        parsed.error("no machine card (div.instance-blocks-flex in div.instance-container-flex)")
        return parsed
    notes = [text_of(p) for p in page.xpath('//div[contains(@class, "instances-group-wrapper")]/p')]
    terms = {(m.group(1), m.group(2)): m.group(3) for n in notes for m in FOOT_TERM.finditer(n)}
    multiply = MULTIPLY in text_of(page, "//text()")
    names: dict[str, list[dict]] = {}
    bad: dict[str, list[str]] = {}
    for card in cards:
        name = text_of(card, f"{HOLDER}/h1[contains(@class, 'instance-names')]//text()")
        offers, problem = _card(card, name, terms, multiply)
        if problem:
            bad.setdefault(problem, []).append(name)
            continue
        # clean copies: the footnote's on-demand offers share a card's identity, not its price
        names[name] = [{k: v for k, v in o.items() if k != "_held"} for o in offers]
        for fields in offers:
            held = fields.pop("_held", None)
            if held:
                parsed.hold(held, **fields)
            else:
                parsed.offer(**fields)
    for problem, which in bad.items():
        parsed.error(f"{problem} (cards {', '.join(repr(n) for n in which[:3])})")
    for note in notes:
        for m in FOOT_ON_DEMAND.finditer(note):
            card = names.get(m.group(1))
            if card is None:
                if m.group(1) not in {n for ns in bad.values() for n in ns}:
                    parsed.error(f"on-demand footnote names {m.group(1)!r}, which has no card")
                continue
            tier = "on-demand (promo)" if m.group(4) else "on-demand"
            for count in sorted({o["gpu_count"] for o in card}):
                base = next(o for o in card if o["gpu_count"] == count)
                parsed.offer(**dict(base, billing="on-demand", tier=tier, reserved_term=None,
                                    price_raw=f"${m.group(2)}/hour"))
            if m.group(3):
                parsed.facts.append(dict(fact=f"{m.group(1).lower()}_on_demand_parenthetical_usd",
                                         value_num=float(m.group(3)),
                                         value_text=f"printed after the on-demand price: {m.group(0)!r}"))
    return parsed


def _card(card, name: str, terms: dict, multiply: bool) -> tuple[list[dict], str | None]:
    """(offers, problem) of one machine card."""
    holder = card.xpath(HOLDER)
    if not name:
        return [], "card without a name (h1.instance-names)"
    blocks = holder.xpath(f'./div[contains(@class, "instance-price-wrap")][not({_HIDDEN})]')
    if len(blocks) != 1:
        return [], f"{len(blocks)} visible price blocks, expected one"
    block = blocks[0]
    sign = text_of(block, f'./div[contains(@class, "text-block-13")][not({_HIDDEN})]//text()')
    amount = text_of(block, './h1[contains(@class, "instance-price-2")]//text()')
    unit = text_of(block, './div[contains(@class, "text-block-22")]//text()')
    if unit != "/ hour":
        return [], f"price unit is not '/ hour' ({unit!r})"
    specs = [text_of(li) for li in holder.xpath(f'./ul[contains(@class, "instance-specs-list-2")][not({_HIDDEN})]/li')]
    if not specs:
        return [], "no visible spec list"
    sizes = text_of(holder, './/div[contains(@class, "pricing-multigpu-info")]//text()')
    if sizes.lower() == "none":
        counts = [1]
    elif SIZES.match(sizes):
        if not multiply:
            return [], f"multi-GPU sizes {sizes!r} listed but the page no longer says how they are priced"
        counts = [1] + [int(n) for n in re.findall(r"(\d+)x", sizes)]
    else:
        return [], f"multi-GPU sizes are not '<n>x ...' or 'none' ({sizes!r})"
    vram = next((float(m.group(1)) for m in (VRAM.match(s) for s in specs) if m), None)
    board = "SXM" if "HGX" in specs[0].split() else None
    shown = f"{sign}{amount}"
    held = None
    billing, term = "on-demand", None
    m = PRICE.match(amount)
    if sign != "$":
        held = f"price cell unreadable: {shown!r} (not '$X')"
    elif not m:
        held = f"price cell unreadable: {shown!r} (not '$X' per hour)"
    elif m.group(2):
        words = terms.get((m.group(2), m.group(1)))
        term = _term(words) if words else None
        if term is None:
            held = f"price {shown!r}: no footnote '{m.group(2)}${m.group(1)}/hour pricing is for a ... commitment'"
        else:
            billing = "reserved"
    offers = [dict(gpu_label=name, gpu_count=count, vram_gb=vram, form_factor=board, billing=billing,
                   tier=billing, reserved_term=term, region=None, currency="USD", self_service=True,
                   price_raw=m.group(1) if (m and not held) else shown, price_unit="gpu_hour",
                   availability=None, **({"_held": held} if held else {}))
              for count in counts]
    return offers, None


class PaperspaceSpider(PriceSpider):
    name = "paperspace"
    allowed_domains = ["paperspace.com"]
    pricing_url = PRICING_URL
    family = "neocloud"
    unit = "USD per GPU-hour (one-GPU machine per hour; multi-GPU sizes multiply it)"
    capture = "real"
    robots = ("no stored copy of www.paperspace.com/robots.txt found (searched the pages corpus 2026-12-02; it"
              " cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Paperspace Terms of Service (https://www.paperspace.com/terms-of-service, stored copy "
             "'Updated 9/19/2023'): the agreement 'contains the terms and conditions that govern your "
             "access to and use of the Services' (of a signed-up Customer); the stored copy's opening "
             "says nothing of reading the public website by automated means, and no clause on it was "
             "found in a stored public copy. We read only the public pricing page, once a day, with our "
             "contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

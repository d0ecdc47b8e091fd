"""GMI Cloud: the public pricing page (Next.js, server-rendered), the GPU cards.

Read from the real page (recorded 2026-08-22, ``tests/real/gmicloud/``,
``www.gmicloud.ai/en/pricing``; the bare ``/pricing`` redirects to a locale path, and the origin
notes that a default python-urllib User-Agent got 403). Under "Production-Ready GPUs Today"
("Available on-demand for elastic scaling or reserved ..."), one card per GPU:

- an availability badge ``<div class="absolute ...">AVAILABLE NOW</div>`` (or "Limited
  Availability"), the name ``<h3>NVIDIA H100 GPU</h3>`` and a price row of two spans:
  ``<span>from $2.00</span><span>/GPU-hour</span>``;
- the unit span must read "/GPU-hour" (USD per GPU-hour; the FAQ says "calculated per
  GPU-hour"): anything else fails;
- "from $X" is a marketing floor (the FAQ: on-demand and committed prices differ): stored as
  the number with tier ``on-demand (from)``, as Nebius's "from" prices are, never as a plain
  on-demand price; a bare "$X" would be tier ``on-demand``;
- the cards' only call to action is the "Contact Sales" button under them (no deploy button),
  so the offers are not self-service (a floor reached through sales never wins a "cheapest
  self-service" claim); a page whose first button after the cards says anything else is read
  as self-service;
- "Pre order" (GB300) is an offer without a price (unpriced, not self-service); another text
  ("from $—", "TBD", a struck-through price alone) holds that card's offer (spiders/base.py
  Parsed.hold, the text kept) and the other cards load;
- the meta / og / twitter / JSON-LD descriptions ("NVIDIA H100 from $2.00/GPU/hr", six copies in
  the bytes with the escaped flight copy) are page text, not cards, and are never read.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

CARDS = "//div[h3][div[count(span) = 2]]"
UNIT = "/GPU-hour"
PRICE = re.compile(r"^(from\s+)?(\$\d+(?:\.\d+)?)$", re.I)
UNPRICED = re.compile(r"^(pre[- ]?order|contact sales|contact us|coming soon)$", re.I)
GPU = re.compile(r"^(NVIDIA|AMD) ")


def parse_pricing(body: str, url: str) -> Parsed:
    """One offer per GPU card, per GPU-hour."""
    parsed = Parsed()
    cards = [c for c in Selector(text=body).xpath(CARDS) if GPU.match(text_of(c, "./h3//text()"))]
    if not cards:
        parsed.error("no GPU card (<div> with an <h3>NVIDIA ...</h3> and a two-span price row)")
        return parsed
    action = text_of(cards[-1].xpath("following::button[1]"))
    self_service = action.lower() != "contact sales"
    bad: dict[str, list[str]] = {}
    for card in cards:
        name = text_of(card, "./h3//text()")
        spans = card.xpath("./div[count(span) = 2]/span")
        price, unit = text_of(spans[0]), text_of(spans[1])
        badge = text_of(card, "./div[not(span)][1]//text()") or None
        if unit != UNIT:
            bad.setdefault(f"price unit is no longer {UNIT!r}", []).append(f"{name}: {unit}")
            continue
        common = dict(gpu_label=name, gpu_count=1, billing="on-demand", region=None, currency="USD",
                      price_unit="gpu_hour", availability=badge)
        m = PRICE.match(price)
        if m:
            parsed.offer(**common, tier="on-demand (from)" if m.group(1) else "on-demand",
                         self_service=self_service, price_raw=m.group(2))
        elif UNPRICED.match(price):
            parsed.offer(**common, tier="on-demand", self_service=False, price_raw=price)
        else:
            # "from $—", "TBD", a struck price alone: this card's price cannot be read; it is held
            # (spiders/base.py Parsed.hold, the text kept), the other cards load.
            parsed.hold(f"price cell unreadable: {price!r} (not '[from] $X' or 'Pre order')", **common,
                        tier="on-demand (from)" if price.lower().startswith("from ") else "on-demand",
                        self_service=self_service, price_raw=price or None)
    for problem, names in bad.items():
        parsed.error(f"{problem} ({', '.join(repr(n) for n in names[:3])})")
    return parsed


class GmiCloudSpider(PriceSpider):
    name = "gmi_cloud"
    allowed_domains = ["gmicloud.ai"]
    pricing_url = "https://www.gmicloud.ai/en/pricing"
    family = "neocloud"
    unit = "USD per GPU-hour"
    capture = "real"
    robots = ("no stored copy of www.gmicloud.ai/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of GMI Cloud's terms found (searched the pages corpus 2026-12-02 for 'GMI Cloud "
             "terms of service', 'gmicloud.ai terms of use'). We read only the public pricing page, once a "
             "day, with our contact User-Agent (a default library User-Agent is refused with 403) and "
             "robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

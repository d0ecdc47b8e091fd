"""Hot Aisle: the public pricing page (Astro + Tailwind HTML), the plan cards.

Read from the real page (recorded 2026-08-22, ``tests/real/hotaisle/``). One card per plan:
a kind (``<p>VM</p>`` / ``<p>Bare metal</p>``), a name (``<h2>Small</h2>``), the GPU count and
chip (``<span>1x</span><span>MI300x</span>``; Medium prints ``2x &amp; 4x``: two offers), one
price paragraph, the spec list and an action link. So:

- prices are USD per GPU-hour: ``<p>$2.99/GPU/hr</p>`` (checked: a "$" amount "/hr" or
  "/month" fails the page; a "$" price that cannot be read, "$—/GPU/hr", "$2.9.9/GPU/hr", a
  struck-through price alone, holds that card's offers, spiders/base.py Parsed.hold, and the
  other cards load; a card without a "$" price paragraph is still a layout error);
- the memory line gives each size's total ("384GB or 768GB HBM3" for 2x and 4x, "1.5 TB HBM3
  Memory" for 8x): VRAM per GPU = total / count (192 GB for every MI300X size);
- a price note "bare metal, one-month minimum" (Large, 8x) is a commitment: billing
  ``reserved``, term "1 month", tier ``bare metal``; its action is "Reserve Bare Metal" linking
  to ``/contact``: not self-service. VM plans ("Deploy Small", ``/quick-start``) are on-demand;
- the hero's summary cards ("Virtual machines $2.99/GPU/hr", "8x bare metal $3.39/GPU/hr")
  restate the plans and are not read; the grandfathered rate "Existing customers with running
  compute remain grandfathered at $1.99/GPU/hr" is not an offer to a new customer: it is the
  source fact ``grandfathered_usd_per_gpu_hour``;
- MI355X appears only as a nav/footer link (no price): no offer.
"""

from __future__ import annotations

import re
from decimal import Decimal

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

CARDS = "//div[div[h2]/div[count(span) = 2]]"
PRICE = re.compile(r"^(\$\d+(?:\.\d+)?)/GPU/hr$")
COUNTS = re.compile(r"^\d+x(?:\s*(?:&|,|and|or)\s*\d+x)*$")
MEMORY = re.compile(r"(\d+(?:\.\d+)?)\s*(GB|TB)\b")
MINIMUM = re.compile(r"\b(one|two|three|six|twelve|\d+)-(month|year|week)s? minimum\b", re.I)
WORDS = {"one": 1, "two": 2, "three": 3, "six": 6, "twelve": 12}
# A "$" amount per another unit ("$2.99/hr", "$2,150/month"): the unit changed, not one cell.
OTHER_UNIT = re.compile(r"^\$\d[\d,]*(?:\.\d+)?\s*/\s*(?!GPU/hr$)\S")
GRANDFATHERED = re.compile(r"^\$(\d+(?:\.\d+)?)/GPU/hr$")


def parse_pricing(body: str, url: str) -> Parsed:
    """One offer per plan card and GPU count, per GPU-hour."""
    parsed = Parsed()
    page = Selector(text=body)
    cards = page.xpath(CARDS)
    if not cards:
        parsed.error("no plan card (<div> with an <h2> name and a '<n>x' + chip row)")
        return parsed
    bad: dict[str, list[str]] = {}
    for card in cards:
        name = text_of(card, "./div/h2//text()")
        offers, problem = _card(card)
        if problem:
            bad.setdefault(problem, []).append(name)
        else:
            for fields in offers:
                held = fields.pop("_held", None)
                if held:
                    parsed.hold(held, **fields)
                else:
                    parsed.offer(**fields)
    for problem, names in bad.items():
        parsed.error(f"{problem} (plans {', '.join(repr(n) for n in names[:3])})")
    old = page.xpath('//p[contains(., "grandfathered")]/strong')
    if old:
        m = GRANDFATHERED.match(text_of(old[0]))
        if m:
            parsed.facts.append(dict(fact="grandfathered_usd_per_gpu_hour", value_num=float(m.group(1)),
                                     value_text="existing customers with running compute only"))
        else:
            parsed.error(f"grandfathered rate is not '$X/GPU/hr' ({text_of(old[0])!r})")
    return parsed


def _card(card) -> tuple[list[dict], str | None]:
    """(offers, problem) of one plan card."""
    head = card.xpath("./div[h2]")
    kind = text_of(head.xpath("./p[1]"))
    size, chip = (text_of(s) for s in head.xpath("./div[count(span) = 2]/span"))
    if not COUNTS.match(size):
        return [], f"GPU count is not '<n>x' ({size!r})"
    counts = [int(n) for n in re.findall(r"(\d+)x", size)]
    prices = head.xpath('.//p[contains(., "$")]')
    if len(prices) != 1:
        return [], f"{len(prices)} price paragraphs, expected one"
    # The price is the paragraph's text outside its note <span> ("bare metal, one-month minimum").
    price = text_of(prices[0], "./text() | ./*[not(self::span)]//text()")
    note = text_of(prices[0], "./span//text()")
    m = PRICE.match(price)
    if not m and OTHER_UNIT.match(price):
        return [], f"price is not '$X/GPU/hr' ({price!r})"
    # Otherwise a price that cannot be read ("$—/GPU/hr", "$2.9.9/GPU/hr", a struck price alone)
    # holds the card's offers (spiders/base.py Parsed.hold, the text kept): the other cards load.
    held = None if m else f"price cell unreadable: {price!r} (not '$X/GPU/hr')"
    memory = [li for li in (text_of(li) for li in card.xpath("./ul/li")) if "HBM" in li]
    totals = [Decimal(v) * (1024 if unit == "TB" else 1) for v, unit in MEMORY.findall(memory[0])] if memory else []
    if len(totals) != len(counts):
        return [], f"memory line {memory[0] if memory else None!r} does not give one size per GPU count {counts}"
    link = card.xpath("./a/@href").get("")
    minimum = MINIMUM.search(note)
    if note and not minimum:
        return [], f"price note is not a known commitment ({note!r})"
    term = None
    if minimum:
        n = WORDS.get(minimum.group(1).lower()) or int(minimum.group(1))
        term = f"{n} {minimum.group(2).lower()}{'s' if n > 1 else ''}"
    billing = "reserved" if term else "on-demand"
    offers = [dict(gpu_label=chip, gpu_count=count, vram_gb=float(total / count), billing=billing,
                   tier=kind.lower() if term else billing, reserved_term=term, region=None, currency="USD",
                   self_service=not link.startswith("/contact"), price_raw=m.group(1) if m else price,
                   price_unit="gpu_hour", availability=None, **({"_held": held} if held else {}))
              for count, total in zip(counts, totals)]
    return offers, None


class HotAisleSpider(PriceSpider):
    name = "hot_aisle"
    allowed_domains = ["hotaisle.xyz"]
    pricing_url = "https://hotaisle.xyz/pricing"
    family = "neocloud"
    unit = "USD per GPU-hour"
    capture = "real"
    robots = ("no stored copy of hotaisle.xyz/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); the page's robots meta says 'index, follow'; "
              "robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Hot Aisle's Terms of Service are not stored; its Maintenance Policy "
             "(https://hotaisle.xyz/maintenance-policy, stored copy, 'Last modified: May 25th, 2024'), which "
             "forms 'a part of the Hot Aisle Terms of Service (TOS)', says nothing on automated access "
             "(searched the pages corpus 2026-12-02 for 'Hot Aisle hotaisle.xyz terms of service'). We read "
             "only the public pricing page, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

"""Hyperstack: the public GPU pricing page (``www.hyperstack.cloud/gpu-pricing``), per GPU-hour.

The page (a HubSpot module) has no ``<table>``: each price list is a card
(``div.page-price_card``) with an ``<h3>`` title, a header row of ``div``s
(``page-price_card_head``) and one ``div`` row per GPU (``page-price_card_row_item``) whose
child ``div``s are the cells. Cells are read by their column header, never by position, and a
row whose cell count differs from its header's is refused.

The GPU cards, in page order, are "On-Demand GPU Pricing", "Reservation Pricing" and
"Spot VM Pricing"; they are fenced by the "On-Demand CPU Pricing" card, after which come CPU,
storage, other-service and AI Studio (token) prices, which are not GPU offers. A card before the
fence that is none of the three is a layout change (an error, not silently skipped). GPU names
in the navigation, the footer and the "B300s are coming" banner (GB200 NVL72, GB300 NVL72,
HGX B200, ...) are outside the cards and carry no price: they are not offers.

* On-demand: GPU Model / VRAM (GB) / Max pCPUs per GPU / Max RAM (GB) per GPU / Pricing Per
  Hour. The unit statement is that header: "Pricing Per Hour" beside specs "per GPU", i.e. a row
  is one GPU and its price is per GPU-hour (both checked; a changed header is an error).
  VRAM is stored as printed (GB per GPU); the pCPU/RAM cells must be numbers (a shifted row is
  refused) but are not stored (no offer field holds them, and no two rows differ by them).
  The reservation and spot cards print no VRAM: a row there gets the VRAM the on-demand card
  prints for the identical label (same page), else none (the catalog's figure then applies).
* Reservation: GPU Model / Starting from / Reserve ("Reserve here" links to a per-GPU
  reservation request page on www.hyperstack.cloud, not the console; the page asks for contact
  for longer-term contracts): not self-service. "Starting from" is a FLOOR price for a
  commitment whose length the page does not state: stored as billing ``reserved`` with tier
  ``reserved (starting from)`` and ``reserved_term`` None, never as a price for a known term.
  The card prints no unit of its own; its prices are per GPU-hour like the on-demand card's
  (the header is checked to be exactly "Starting from", so a unit or term added there fails).
* Spot: GPU Model / Spot VM (per GPU-hour, same reading; header checked).

The page lists per-GPU prices without a GPU count: one GPU per offer. Prices are USD ("$"). A
price cell that is neither a "$" amount, "Contact us" nor "N/A"/"—" ("€3.99", "$3.99/month",
"TBD") holds its offer (spiders/base.py Parsed.hold, the text kept): the other rows load. A
header that changed (the unit statement) still fails the page.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

MODEL = "GPU Model"
FENCE = "On-Demand CPU Pricing"


def _cls(name: str) -> str:
    """XPath predicate: the element's class list has ``name`` (a whole token)."""
    return f'contains(concat(" ", normalize-space(@class), " "), " {name} ")'


CARD = f"//div[{_cls('page-price_card')}]"
HEAD = f".//div[{_cls('page-price_card_head')}]"
ROW = f".//div[{_cls('page-price_card_row_item')}]"

# card title -> (billing, tier, price header it must have, self-service)
SECTIONS = {
    "On-Demand GPU Pricing": ("on-demand", "on-demand", "Pricing Per Hour", True),
    "Reservation Pricing": ("reserved", "reserved (starting from)", "Starting from", False),
    "Spot VM Pricing": ("spot", "spot", "Spot VM", True),
}
# On-demand columns besides the model and price; the two "per GPU" ones are the unit statement.
VRAM, PCPU, RAM = "VRAM (GB)", "Max pCPUs per GPU", "Max RAM (GB) per GPU"

PRICE = re.compile(r"^\$\s?\d+(?:\.\d+)?$")
NOT_OFFERED = {"", "n/a", "na", "-", "—", "–"}
ON_REQUEST = re.compile(r"^(?:contact(?: us| sales)?|request(?: a quote)?|on request)$", re.I)
NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def parse_pricing_page(text: str, url: str) -> Parsed:
    """Offers of the three GPU cards of the pricing page, or layout errors naming what is missing."""
    parsed = Parsed()
    cards = []
    for card in Selector(text=text).xpath(CARD):
        title = text_of(card, "(.//h3)[1]//text()")
        if title == FENCE:
            break
        cards.append((title, card))
    else:
        parsed.error(f"{url}: no '{FENCE}' card after the GPU pricing cards")
        return parsed
    titles = [t for t, _ in cards]
    for title in SECTIONS:
        if titles.count(title) != 1:
            parsed.error(f"{url}: {'no' if not titles.count(title) else 'more than one'} "
                         f"'{title}' card before '{FENCE}'")
    unknown = [t for t in titles if t not in SECTIONS]
    if unknown:
        parsed.error(f"{url}: unknown pricing card(s) {unknown} before '{FENCE}'")
    if parsed.errors:
        return parsed
    offers = Parsed()
    for title, card in cards:
        _card_offers(title, card, url, offers)
    if offers.layout_errors:
        return parsed.extend(Parsed(errors=offers.layout_errors))  # nothing from a page we no longer read
    # Reservation and spot rows print no VRAM: the page's own on-demand figure for the very same
    # label is used (a label the on-demand card does not list gets none).
    vram = {o["gpu_label"]: o["vram_gb"] for o in offers.offers if o["billing"] == "on-demand"}
    for o in offers.offers:
        if o["vram_gb"] is None:
            o["vram_gb"] = vram.get(o["gpu_label"])
    return parsed.extend(offers)


def _card_offers(title: str, card, url: str, parsed: Parsed) -> None:
    billing, tier, price_header, self_service = SECTIONS[title]
    where = f"{url}: '{title}'"
    head = card.xpath(HEAD)
    headers = [text_of(cell) for cell in head[0].xpath("./div")] if head else []
    wanted = [MODEL, price_header] + ([VRAM, PCPU, RAM] if billing == "on-demand" else [])
    missing = [h for h in wanted if h not in headers]
    if missing:
        parsed.error(f"{where} has no column(s) {missing} (columns {headers})")
        return
    rows = card.xpath(ROW)
    if not rows:
        parsed.error(f"{where} has no GPU rows")
        return
    col = {h: headers.index(h) for h in wanted}
    for row in rows:
        cells = [text_of(cell) for cell in row.xpath("./div")]
        if len(cells) != len(headers):
            parsed.error(f"{where}: row {cells} has {len(cells)} cells for {len(headers)} columns")
            return
        label, price = cells[col[MODEL]], cells[col[price_header]]
        if not label:
            parsed.error(f"{where}: a row without a GPU model ({cells})")
            return
        if billing == "on-demand":
            specs = [cells[col[h]] for h in (VRAM, PCPU, RAM)]
            if not all(NUMBER.match(s) for s in specs):
                parsed.error(f"{where}: {label} has non-numeric {VRAM}/{PCPU}/{RAM} cells {specs}")
                return
        if price.lower() in NOT_OFFERED:
            continue  # this GPU is not offered on these terms
        fields = dict(
            gpu_label=label, gpu_count=1,
            vram_gb=float(cells[col[VRAM]]) if billing == "on-demand" else None,
            billing=billing, tier=tier, reserved_term=None, self_service=self_service,
            region=None, currency="USD", price_raw=price, price_unit="gpu_hour", availability=None,
        )
        if not (PRICE.match(price) or ON_REQUEST.match(price)):
            # "€3.99", "$3.99/month", "TBD", a struck price alone: this row's price cannot be
            # read; it is held (spiders/base.py Parsed.hold, the text kept), the other rows load.
            parsed.hold(f"price cell unreadable: {price!r} (neither a $ amount nor 'Contact us'; "
                        f"column {price_header!r})", **fields)
            continue
        parsed.offer(**fields)


class HyperstackSpider(PriceSpider):
    name = "hyperstack"
    allowed_domains = ["hyperstack.cloud"]
    family = "neocloud"
    robots = ("no stored copy of www.hyperstack.cloud/robots.txt found (searched the pages corpus 2026-12-02; "
              "it cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Hyperstack Terms and Conditions (https://hyperstack.cloud/terms-and-conditions, stored copy, "
             "undated): 'References to the “User” mean you as the consumer of our Services'; no clause on "
             "reading the public website by automated means in the stored excerpt (searched the pages corpus "
             "2026-12-02 for 'Hyperstack terms and conditions NexGen Cloud website', 'Hyperstack terms and "
             "conditions you must not scrape crawl automated'). We read the public pricing page, once a day, "
             "no login.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"
    pricing_url = "https://www.hyperstack.cloud/gpu-pricing"

    page_parser = staticmethod(parse_pricing_page)

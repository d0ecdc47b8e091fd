"""DigitalOcean: GPU Droplet prices from the product docs' pricing page (server-rendered Hugo HTML).

Read from the real page (recorded whole on 2026-08-22, ``tests/real/digitalocean/``):
``docs.digitalocean.com/products/droplets/details/pricing/``. Each price list is the first
``<table>`` after its ``<h2>`` (up to the next ``<h2>``), with the header ``GPU | Price``:

- ``h2#on-demand-gpu-droplet-pricing``: on-demand; ``h2#spot-gpu-droplet-pricing``: spot
  ("public preview", prices "may change daily");
- ``h2#contract-gpu-droplet-pricing``: "Per contract after contacting sales" for plans that
  "do not appear in the self-service ... response": no public price and nothing to rent by
  the hour, so no offer; the source fact ``contract_only_gpus`` lists them;
- prices are USD per hour **per Droplet** (``$35.28 per hour`` for "NVIDIA H100 (8x)"): a row
  label ending "(8x)" is an 8-GPU Droplet, any other row one GPU; a "$" cell per another unit
  (per month, per GPU) fails the page; any other cell that is not ``$X per hour`` ("TBD",
  another currency, a struck-through price alone) holds that offer (spiders/base.py
  Parsed.hold, the text kept) and the other rows load;
- ", air-cooled" / ", liquid-cooled" after the GPU name is the offer's ``variant``
  ("NVIDIA B300, air-cooled (8x)": 8x NVIDIA B300, variant air-cooled), never the label;
- "Last verified 18 Aug 2026" under the title is the source fact ``last_verified``;
- the CPU Droplet section (a link card, no table) and bandwidth prose ($0.01/GiB) are not read.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

SECTIONS = {"on-demand-gpu-droplet-pricing": "on-demand", "spot-gpu-droplet-pricing": "spot"}
CONTRACT = "contract-gpu-droplet-pricing"
ROW = re.compile(r"^((?:NVIDIA|AMD) [^,(]+?)(?:,\s*([a-z-]+))?(?:\s*\((\d+)x\))?$")
PRICE = re.compile(r"^(\$\d{1,3}(?:,\d{3})*(?:\.\d+)?|\$\d+(?:\.\d+)?) per hour$")
CONTRACT_PRICE = re.compile(r"^Per contract after contacting sales$")
# A "$" amount per another unit ("$3,219.30 per month", "$4.41 per GPU per hour"): the unit changed.
OTHER_UNIT = re.compile(r"^\$\d[\d,]*(?:\.\d+)?\s+per\s+(?!hour$)\S")
VERIFIED = re.compile(r"^Last verified (\d{1,2} [A-Z][a-z]{2} \d{4})$")


def _table(page, section_id: str):
    """The rows (label, price text) of the first table after ``h2#section_id``, or an error."""
    heads = page.xpath(f'//h2[@id="{section_id}"]')
    if len(heads) != 1:
        return None, f'no <h2 id="{section_id}">' if not heads else f'several <h2 id="{section_id}">'
    # The first table after the heading whose nearest preceding h2 is that heading.
    tables = heads[0].xpath(f'following::table[preceding::h2[1][@id="{section_id}"]][1]')
    if not tables:
        return None, f'no <table> under <h2 id="{section_id}">'
    header = [text_of(th) for th in tables[0].xpath("./thead/tr/th")]
    if header != ["GPU", "Price"]:
        return None, f'table under <h2 id="{section_id}"> is not GPU | Price ({" | ".join(header)!r})'
    rows = [[text_of(td) for td in tr.xpath("./td")] for tr in tables[0].xpath("./tbody/tr")]
    if not rows or any(len(r) != 2 for r in rows):
        return None, f'table under <h2 id="{section_id}"> has no rows of two cells'
    return rows, None


def parse_pricing(body: str, url: str) -> Parsed:
    """On-demand and spot GPU Droplet offers, per Droplet-hour."""
    parsed = Parsed()
    page = Selector(text=body)
    problems: dict[str, list[str]] = {}
    for section_id, billing in SECTIONS.items():
        rows, error = _table(page, section_id)
        if error:
            parsed.error(error)
            continue
        for label, price in rows:
            m, p = ROW.match(label), PRICE.match(price)
            if not m:
                problems.setdefault("GPU cell is not '<NVIDIA|AMD> <GPU>[, <cooling>][ (<n>x)]'", []).append(label)
            elif not p and OTHER_UNIT.match(price):
                problems.setdefault(f"{billing} price is not '$X per hour'", []).append(f"{label}: {price}")
            else:
                fields = dict(gpu_label=m.group(1).strip(), variant=m.group(2), gpu_count=int(m.group(3) or 1),
                              billing=billing, tier=billing, region=None, currency="USD", self_service=True,
                              price_raw=p.group(1) if p else price, price_unit="instance_hour", availability=None)
                if p:
                    parsed.offer(**fields)
                else:
                    # "TBD", "€4.41 per hour", a struck price alone: this row's price cannot be
                    # read; it is held (spiders/base.py Parsed.hold, the text kept), the rest loads.
                    parsed.hold(f"{billing} price cell unreadable: {price!r} (not '$X per hour')", **fields)
    for problem, rows in problems.items():
        shown = ", ".join(repr(r) for r in rows[:3]) + (", ..." if len(rows) > 3 else "")
        parsed.error(f"{problem} ({shown})")
    rows, error = _table(page, CONTRACT)
    if error:
        parsed.error(error)
    else:
        odd = [f"{label}: {price}" for label, price in rows if not CONTRACT_PRICE.match(price)]
        if odd:   # a contract row with a public price would be an offer we do not read yet
            parsed.error(f"contract row is not 'Per contract after contacting sales' ({odd[0]!r})")
        else:
            parsed.facts.append(dict(fact="contract_only_gpus", value_num=len(rows),
                                     value_text=", ".join(label for label, _ in rows)))
    verified = [VERIFIED.match(text_of(p)) for p in page.xpath("//h1/following-sibling::p[1]")]
    if verified and verified[0]:
        parsed.facts.append(dict(fact="last_verified", value_text=verified[0].group(1)))
    if not parsed.offers and not parsed.errors:
        parsed.error("no GPU Droplet offer in the on-demand and spot tables")
    return parsed


class DigitalOceanSpider(PriceSpider):
    name = "digitalocean"
    allowed_domains = ["docs.digitalocean.com"]
    pricing_url = "https://docs.digitalocean.com/products/droplets/details/pricing/"
    family = "neocloud"
    unit = "USD per Droplet-hour"
    capture = "real"
    robots = ("no stored copy of docs.digitalocean.com/robots.txt found (searched the pages corpus 2026-12-02;"
              " it cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("DigitalOcean Acceptable Use Policy (https://www.digitalocean.com/legal/acceptable-use-policy/, "
             "stored copy, 'Last updated October 14, 2020') 'describes material and activities that are not "
             "allowed in connection with the Services'; the Terms of Service's 'Section 3 (Website Terms)' is "
             "not stored (searched the pages corpus 2026-12-02 for 'DigitalOcean terms of service scraping "
             "website crawl', 'DigitalOcean Website Terms you may not use robot spider scraper automated means"
             " to access the Websites'). We read the public product documentation page (not the authenticated "
             "/v2/sizes API), once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

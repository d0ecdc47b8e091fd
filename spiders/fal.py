"""fal.ai: the public pricing page (Next.js App Router, server-rendered HTML), the GPU table of
"Serverless & Compute Pricing".

Read from the real page (recorded 2026-08-22, ``tests/real/fal/``). Under the heading, the prose
"Deploy your own app on our competitively priced GPU fleet, as low as $1.89/hr for H100", a
"Start Building" link to ``/dashboard`` and one ``<table>`` whose header cells are GPU | VRAM |
List Price | As low as, one row per GPU: ``<td><div><img alt="GPU B300 icon" .../><span>B300</span>
</div></td><td>288GB</td><td>$8.50/h</td><td>$4.49/h</td>``; below it "Competitive pricing for
custom deployments — Contact support@fal.ai to get started." So:

- the table is found by its header (columns by name, never by position): none is a layout error,
  as is a GPU table with a column we do not know; several copies are read once when identical and
  refused when they differ;
- each row is one GPU (the VRAM cell is per GPU, "288GB" -> 288, checked), priced per GPU-hour:
  a cell must read "$X/h" (USD; "/hr" and "/hour" read the same); a "$" amount per another unit
  ("$8.50/mo") fails the page;
- "List Price" is the on-demand price anyone can deploy at (self-service, tier ``on-demand``);
- "As low as" is a FLOOR, not a price anyone is quoted: the lower bound of what a custom
  deployment may reach through fal ("Contact support@fal.ai"). It is stored as its own offer,
  tier ``on-demand (as low as)``, not self-service (as GMI Cloud's and Nebius's "from" prices are,
  spiders/gmi_cloud.py), so a floor never stands for the list price nor wins a "cheapest
  self-service" claim;
- "Contact sales" / "Contact us" in a cell is an offer without a public price (unpriced, not
  self-service); "—" / "N/A" means there is no such price for that GPU (no offer); any other text
  ("TBD", "2.10 EUR/h", a struck-through price alone, an empty cell) cannot be read: that offer is
  held (spiders/base.py Parsed.hold, the text kept), the other cells load;
- not read: the model-API tables of the same markup (Model | Unit | Price | Output per $1:
  "$0.05" per second of video, "$0.03" per image), the "as low as $1.89/hr for H100" prose, and the
  RSC flight copy of the GPU table (``self.__next_f.push`` strings; row key "GPU-B300" with
  "$$8.50/h", the other rows deferred references): the server HTML table is the one document.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

#: Column name -> (tier, self-service) of its offers; None for the label and memory columns.
COLUMNS = {"GPU": None, "VRAM": None, "List Price": ("on-demand", True),
           "As low as": ("on-demand (as low as)", False)}
REQUIRED = ("GPU", "VRAM", "List Price")
PRICE = re.compile(r"^(\$\d+(?:\.\d+)?)\s*/\s*(?:h|hr|hour)$")
# A $ amount per some other unit ("$8.50/mo", "$0.0024/s"): the page changed its unit.
OTHER_UNIT = re.compile(r"^\$\d+(?:\.\d+)?\s*/\s*\S")
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB$")
CONTACT = re.compile(r"^contact (sales|us)$", re.I)
NOT_OFFERED = {"n/a", "na", "-", "—", "–"}


def _headers(table) -> list[str]:
    return [text_of(th) for th in table.xpath("./thead/tr/th")]


def parse_pricing(body: str, url: str) -> Parsed:
    """A list-price offer and an "as low as" floor offer per row of the GPU table, per GPU-hour."""
    parsed = Parsed()
    tables = [t for t in Selector(text=body).xpath("//table") if (_headers(t) or [""])[0] == "GPU"]
    if not tables:
        parsed.error("no table headed GPU | VRAM | List Price | As low as (Serverless & Compute Pricing)")
        return parsed
    table = parsed.one_copy(tables, "GPU tables", lambda t: (tuple(_headers(t)), tuple(
        tuple(text_of(td) for td in tr.xpath("./td")) for tr in t.xpath("./tbody/tr"))))
    if table is None:
        return parsed
    headers = _headers(table)
    if set(headers) - set(COLUMNS) or any(h not in headers for h in REQUIRED) or len(set(headers)) != len(headers):
        parsed.error(f"column headings are not GPU | VRAM | List Price | As low as ({' | '.join(headers)!r})")
        return parsed
    rows = table.xpath("./tbody/tr")
    if not rows:
        parsed.error("the GPU table has no row")
        return parsed
    problems: dict[str, list[str]] = {}
    for row in rows:
        cells = [text_of(td) for td in row.xpath("./td")]
        label = cells[headers.index("GPU")] if len(cells) == len(headers) else (cells[0] if cells else "")
        for problem in _row(parsed, headers, cells):
            problems.setdefault(problem, []).append(label or "?")
    for problem, labels in problems.items():
        shown = ", ".join(repr(n) for n in labels[:3]) + (", ..." if len(labels) > 3 else "")
        parsed.error(f"{problem} (GPUs {shown})")
    if not parsed.offers and not parsed.errors:
        parsed.error("no GPU offer in the GPU table (every price cell says not offered)")
    return parsed


def _row(parsed: Parsed, headers: list[str], cells: list[str]) -> list[str]:
    """Adds the row's offers (or holds them); the row's layout problems are returned instead."""
    if len(cells) != len(headers):
        return [f"a row has {len(cells)} cells under {len(headers)} columns"]
    row = dict(zip(headers, cells))
    if not row["GPU"]:
        return ["a row has no GPU name"]
    vram = VRAM.match(row["VRAM"])
    if not vram:
        return [f"VRAM cell is not like '80GB' ({row['VRAM']!r})"]
    offers, problems = [], []
    for column in headers:
        if COLUMNS[column] is None:
            continue
        tier, self_service = COLUMNS[column]
        value = row[column]
        fields = dict(gpu_label=row["GPU"], gpu_count=1, vram_gb=float(vram.group(1)), billing="on-demand",
                      tier=tier, reserved_term=None, region=None, currency="USD", price_unit="gpu_hour",
                      availability=None)
        m = PRICE.match(value)
        if m:
            offers.append((None, dict(fields, self_service=self_service, price_raw=m.group(1))))
        elif CONTACT.match(value):
            offers.append((None, dict(fields, self_service=False, price_raw=value)))
        elif value.lower() in NOT_OFFERED:
            continue   # "—": no such price for this GPU
        elif OTHER_UNIT.match(value):
            problems.append(f"{column} cell is not '$X/h' ({value!r})")
        else:
            # "TBD", "2.10 EUR/h", a struck-through price alone, an empty cell: this cell cannot be
            # read; its offer is held (spiders/base.py Parsed.hold, the text kept), the others load.
            offers.append((f"{column} price cell unreadable: {value!r}",
                           dict(fields, self_service=self_service, price_raw=value or None)))
    if problems:
        return problems
    for held, fields in offers:
        if held:
            parsed.hold(held, **fields)
        else:
            parsed.offer(**fields)
    return []


class FalSpider(PriceSpider):
    name = "fal"
    allowed_domains = ["fal.ai"]
    pricing_url = "https://fal.ai/pricing"
    family = "neocloud"
    unit = "USD per GPU-hour (List Price; 'As low as' floor kept apart)"
    capture = "real"
    robots = ("no stored copy of fal.ai/robots.txt found (searched the pages corpus 2026-12-02; it cannot be "
              "searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt Disallow' found "
              "only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Terms of Service (https://fal.ai/terms, stored copies 'Last Updated: April 20th, 2025' and "
             "https://www.fal.ai/terms.html 'Last Updated: August 12th, 2025'): they govern 'any websites "
             "... including www.fal.ai (\"Sites\")'; a clause on automated collection was not found in the "
             "stored public copies (only their opening is stored), nor in the Acceptable Use Policy "
             "(https://fal.ai/legal/acceptable-use-policy, about generated content). We read only the public "
             "pricing page, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

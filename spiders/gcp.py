"""Google Cloud: the public accelerator-optimized VM pricing page, GPU machine types.

Read from the real page (``tests/real/gcp/``, ≈ early Oct 2026: the page's two tables, A4/A3/A2
and G4/G2, inside the origin's own ``<html><body>`` wrapper). Each table has a header row
("Machine type", "GPU", "Components", "Price (USD)", "Current Spot pricing (USD)", "Compute
Resource CUDs - 1 Year (USD)", ... ), section rows ("A3 High": one cell of text, the rest empty)
and one row per machine type. Columns are found by header name; a header we do not know is a
layout error (a new pricing model must be read on purpose, not dropped or mistaken).

- Prices are USD per machine-hour, printed ``$88.490000119 / 1 hour`` (also ``$42.4000/ 1 hour``
  and the stray space of ``$2 .0000/ 1 hour``, both real): every ``$`` cell must end in
  ``/ 1 hour`` and every price header must say ``(USD)``, else the layout changed.
- ``N/A`` and ``-`` are "not offered" (no offer); a cell that is neither a price nor that
  (the real spot cell of g2-standard-24 reads ``g2-standard-24-spot``) is an unpriced offer
  keeping its text, never a price. A cell that reads like a price but cannot be read as one
  (``$1.2.3 / 1 hour``, ``$88.49`` without its unit, ``€88.49 / 1 hour``, a bare ``88.49``) holds
  that offer (spiders/base.py Parsed.hold, the text kept): the other cells load. A ``$`` cell
  per another unit (``/ 1 month``) is a unit change of the page (a layout error).
- GPU model from the machine family (``spiders/instance_types.py``: a2-ultragpu = A100 80GB,
  a2-highgpu = A100 40GB ...), checked against the GPU column; the count from the ``-8g``
  suffix, checked against the "GPUs: 8" the Components cell prints (types without a suffix,
  g2/g4, take the printed count). Fractional GPUs ("GPUs: 1/8" of g4-standard-6) are no GPU
  offer (source fact ``fractional_gpu_machines``). An unknown family is kept with the GPU
  name the page prints (no VRAM guessed) and listed in the fact ``unknown_machine_families``.
- Commitments are never on-demand: a "Price (USD)" or "Current Spot pricing (USD)" header that
  goes on to name a commitment (commit, CUD, reservation, savings, upfront, "1 Year") is an
  unknown column, a layout error (the page's real on-demand header goes on "* info Consumption
  model ID: 7754-699E-0EBF").
- Billing: "Price" on-demand; "Current Spot pricing" spot (tier ``spot``); "Compute Resource
  CUDs - 1/3 Year" reserved (tier ``resource CUD``, term ``1 year`` / ``3 years``); "Compute
  Flexible CUD - 1/3 Year" reserved (tier ``flexible CUD``); "DWS Flex-start" on-demand tier
  ``DWS Flex-start`` and "DWS Calendar Mode" reserved tier ``DWS Calendar Mode``, both not
  self-service (capacity is queued or booked for a fixed window through the Dynamic Workload
  Scheduler, not an instance a reader starts at will), so they never enter ``cheapest_offer``.
- Region: the page shows its default region, Iowa (``us-central1``); the excerpt does not print
  it, the origin's tests state it. Every offer is ``us-central1``.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of
from spiders.instance_types import GCP_FAMILIES, gcp_family

URL = "https://cloud.google.com/products/compute/pricing/accelerator-optimized"
REGION = "us-central1"

# header prefix -> (billing, tier, term, self_service); None = a column that is not a price
COLUMNS = {
    "Machine type": None, "GPU": None, "Components": None,
    "Price (USD)": ("on-demand", "on-demand", None, True),
    "Current Spot pricing (USD)": ("spot", "spot", None, True),
    "Compute Resource CUDs - 1 Year (USD)": ("reserved", "resource CUD", "1 year", True),
    "Compute Resource CUDs - 3 Year (USD)": ("reserved", "resource CUD", "3 years", True),
    "Compute Flexible CUD - 1 Year * (USD)": ("reserved", "flexible CUD", "1 year", True),
    "Compute Flexible CUD - 3 Year * (USD)": ("reserved", "flexible CUD", "3 years", True),
    "DWS Flex-start price (USD)": ("on-demand", "DWS Flex-start", None, False),
    "DWS Calendar Mode price (USD)": ("reserved", "DWS Calendar Mode", None, False),
}
REQUIRED = ("Machine type", "GPU", "Components", "Price (USD)")
PRICE = re.compile(r"^\$\s*(\d+(?: ?\.\d+)?)\s*/\s*1 hour$")
NOT_OFFERED = {"n/a", "-", "—", "–"}
GPUS = re.compile(r"GPUs:\s*(\d+(?:/\d+)?)")
# A "$" cell stating another unit ("$64,598 / 1 month"): the page's unit changed, not one cell.
PER_UNIT = re.compile(r"^\$.*/\s*(?:\d+\s*)?([A-Za-z]+)\s*$")
# A cell read as a price in another currency or a bare number ("€88.49 / 1 hour", "88.49"):
# garbled, held; other words ("g2-standard-24-spot") stay an unpriced offer with their text.
PRICE_LIKE = re.compile(r"[€£¥₹]|^\d")


# Words that make a header a commitment's, never the on-demand or spot price: a header that
# starts like "Price (USD)" but goes on about a term ("Price (USD) 1 year commitment") is not
# the on-demand column (a commitment's price read as on-demand is a false cheapest price).
COMMITMENT = re.compile(r"\b(commit\w*|CUDs?|reserv\w*|savings|upfront|\d+\s*-?\s*(?:year|yr|month)s?)\b", re.IGNORECASE)


def _column(header: str) -> str | None:
    """The COLUMNS key a header cell names ("Price (USD) * info Consumption model ID: ..." is
    "Price (USD)"), or None. An on-demand or spot header whose rest names a commitment is None
    (an unknown column: a layout error)."""
    for name in sorted(COLUMNS, key=len, reverse=True):
        if header == name or header.startswith(name + " "):
            terms = COLUMNS[name]
            if terms is not None and terms[0] in ("on-demand", "spot") and COMMITMENT.search(header[len(name):]):
                return None
            return name
    return None


def _table(table, parsed: Parsed, facts: dict[str, list[str]]) -> None:
    rows = table.xpath("./tr | ./tbody/tr | ./thead/tr")
    header = [text_of(c) for c in rows[0].xpath("./th | ./td")] if rows else []
    names = [_column(h) for h in header]
    unknown = [h for h, n in zip(header, names) if n is None]
    if unknown or any(r not in names for r in REQUIRED):
        parsed.error(f"{URL}: price table header changed: unknown column(s) {unknown[:3]}, "
                     f"missing {[r for r in REQUIRED if r not in names]}")
        return
    for row in rows[1:]:
        cells = dict(zip(names, (text_of(c) for c in row.xpath("./td | ./th"))))
        machine = cells.get("Machine type", "")
        if not cells.get("GPU") and not cells.get("Components"):
            continue   # a section row: "A3 High" (its price cells empty or "-")
        kind = gcp_family(machine)
        if kind is None:
            parsed.error(f"{URL}: {machine!r} is not a machine type")
            continue
        family, suffix_count = kind
        printed = GPUS.search(cells["Components"])
        if printed is None:
            parsed.error(f"{URL}: {machine}: no 'GPUs: <n>' in Components")
            continue
        if "/" in printed[1]:
            facts.setdefault("fractional_gpu_machines", []).append(f"{machine}: GPUs {printed[1]}")
            continue
        count = int(printed[1])
        if suffix_count is not None and suffix_count != count:
            parsed.error(f"{URL}: {machine}: Components print GPUs: {count}, the type says {suffix_count}")
            continue
        gpu = GCP_FAMILIES.get(family)
        label, vram = cells["GPU"], None
        if gpu is None:
            facts.setdefault("unknown_machine_families", []).append(f"{machine}: {label}")
        else:
            if label.lower() != gpu.label.lower() and not gpu.label.lower().startswith(label.lower()):
                parsed.error(f"{URL}: {machine}: GPU column says {label!r}, the family is {gpu.label}")
                continue
            vram = gpu.vram_gb
        for column, value in cells.items():
            terms = COLUMNS[column]
            if terms is None or value.lower() in NOT_OFFERED:
                continue
            billing, tier, term, self_service = terms
            price, unreadable = value, None
            if value.startswith("$"):
                m = PRICE.match(value)
                unit = PER_UNIT.match(value)
                if m is None and unit and unit[1].lower() != "hour":
                    parsed.error(f"{URL}: {machine} {column}: {value!r} is not a price per 1 hour")
                    continue
                if m is None:
                    unreadable = f"{column} cell unreadable: {value!r} (not '$<amount> / 1 hour')"
                else:
                    price = m[1].replace(" ", "")
            elif PRICE_LIKE.search(value):
                unreadable = f"{column} cell unreadable: {value!r} (not '$<amount> / 1 hour')"
            fields = dict(sku=machine, gpu_label=label, gpu_count=count, vram_gb=vram, billing=billing,
                          tier=tier, reserved_term=term, self_service=self_service, region=REGION,
                          currency="USD", price_raw=price, price_unit="instance_hour")
            if unreadable:
                # one cell that cannot be read: its offer is held (spiders/base.py Parsed.hold,
                # the text kept), the other cells and machine types load.
                parsed.hold(unreadable, **fields)
            else:
                parsed.offer(**fields)


def parse_pricing(text: str, url: str = URL) -> Parsed:
    """GPU machine offers of the pricing page: one per machine type and priced column."""
    parsed, facts = Parsed(), {}
    tables = [t for t in Selector(text=text).xpath("//table")
              if "Machine type" in [text_of(c) for c in t.xpath("(./tr | ./thead/tr | ./tbody/tr)[1]/*")]]
    if not tables:
        parsed.error(f"{url}: no price table with a 'Machine type' column")
    for table in tables:
        _table(table, parsed, facts)
    if tables and not parsed.offers and not parsed.errors:
        parsed.error(f"{url}: price tables found, but no GPU machine type with a price")
    for fact, entries in facts.items():
        parsed.facts.append({"fact": fact, "value_num": len(entries), "value_text": "; ".join(entries)})
    return parsed


class GcpSpider(PriceSpider):
    name = "gcp"
    allowed_domains = ["cloud.google.com"]
    pricing_url = URL
    page_parser = staticmethod(parse_pricing)

    family = "hyperscaler"
    robots = ("no stored copy of cloud.google.com/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of Google's Terms of Service (policies.google.com/terms) found: the pages corpus "
             "holds only third parties' summaries of it, which say it bars 'using automated scrapers to bypass"
             " standard instructions (like robots.txt files)' (searched the pages corpus 2026-12-02 for "
             "'Google Cloud website terms of service scraping automated', 'Google Cloud website terms "
             "cloud.google.com site policies automated queries', 'policies.google.com/terms using automated "
             "means to access content in violation of machine-readable instructions robots.txt'); the stored "
             "Google Cloud Acceptable Use Policy (https://cloud.google.com/cloud/terms/aup, stored copy, '6. "
             "Februar 2023') is about a customer's use of the Services. The pricing page is public and keyless"
             " and robots.txt is obeyed; Google also publishes the Cloud Billing Catalog API (needs an API "
             "key), the documented route for automated reads.")
    cadence = "daily"
    unit = "USD per instance-hour (machine-hour)"
    capture = "real"

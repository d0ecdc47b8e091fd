"""CoreWeave: the public pricing page (server-rendered Webflow HTML), GPU instances only.

Read from the real page (recorded 2026-08-22, ``tests/real/coreweave/``). Under the
``<h2>On-demand GPU instances</h2>`` heading, one table per region, each announced by
``<h5><strong>REGION: NORTH AMERICA</strong></h5>`` (then ``REGION: EUROPE``). A table has a
header row (``table-v2-header``: "GPU Model", "GPU Count", "VRAM (GB)", ..., "On-Demand Price
(Per Hour)", "Spot Price (Per Hour)", in North America also "Inference Single GPU Price(Per
Hour)²") and one Webflow CMS row per instance, ``<div role="listitem" class="table-row-v2 ...">``.

Every row is printed twice, in one element: desktop cells (``table-v2-cell``, read by their
column header) and a mobile card (model name again, labeled price spans "On-Demand Price:
<span class="item-value">$68.80</span> / Hour", and spec pairs ``table-meta-value`` + label
"GPU Count", "VRAM", ...). So:

- the model name (``h3.table-model-name``) appears twice: it is read once (both must agree);
- GPU count, VRAM and each tier's price are read from both copies, which must agree; a value
  blank in one copy is taken from the other (GB300 NVL72's on-demand span is empty, its desktop
  cell says "Contact sales");
- prices are per instance-hour: the span says "/ Hour" and the header "(Per Hour)" (both
  checked); per GPU = / GPU Count. GB200/GB300 NVL72 rows print GPU Count ``4^1`` (footnote 1):
  4 GPUs;
- "N/A" is a tier the row does not offer (no offer); "Contact sales" is an offer without a
  public price (unpriced, not self-service); anything else that is not a "$" price (blank in both
  copies, "soon", "€68.80") holds that offer (spiders/base.py Parsed.hold, the text kept), the
  other rows load; copies that disagree, a unit no longer "/ Hour" fail the page;
- "Inference Single CPU Price" (sic) is another product (serverless inference per GPU): never an
  instance price;
- rows under "On-demand CPU instances" (AMD Genoa, same markup, its own "REGION:" heading) are
  CPU nodes, not GPU offers.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

GPU_HEADING = "On-demand GPU instances"


def _cls(name: str) -> str:
    """XPath predicate: the element's class list has ``name`` (a whole token)."""
    return f'contains(concat(" ", normalize-space(@class), " "), " {name} ")'


ROWS = f'//div[@role="listitem"][{_cls("table-row-v2")}]'
HEADER_CELLS = (f'ancestor::div[{_cls("table-v2")}][1]/div[{_cls("table-v2-header")}]'
                f'//div[{_cls("table-header-text")}]')
DESKTOP_CELLS = f'.//div[{_cls("table-grid")}][1]/div[{_cls("table-v2-cell")}]'
MODEL_NAMES = f'.//h3[{_cls("table-model-name")}]'
PRICE_SPANS = f'.//span[span[{_cls("item-value")}]]'
SPEC_VALUES = f'.//div[{_cls("table-cell-column-right")}]//div[{_cls("table-meta-value")}]'

# "8", "4^1", "4" of "4<sup>1</sup>": the footnote mark is never part of the count.
GPU_COUNT = re.compile(r"^(\d+)\s*(?:\^\s*\d+)?$")
PRICE = re.compile(r"^\$\d{1,3}(?:,\d{3})*(?:\.\d+)?$|^\$\d+(?:\.\d+)?$")
NOT_OFFERED = {"n/a", "na", "-", "—", "–"}
UNPRICED = re.compile(r"\b(contact|sales|request|quote)\b", re.I)

# what -> (desktop column header starts with, mobile label)
FIELDS = {
    "GPU Count": ("GPU Count", "GPU Count"),
    "VRAM": ("VRAM", "VRAM"),
    "on-demand": ("On-Demand Price", "On-Demand Price"),
    "spot": ("Spot Price", "Spot Price"),
}
TIERS = ("on-demand", "spot")
# Mobile price labels that are not instance offers.
OTHER_PRODUCTS = ("Inference Single CPU Price", "Inference Single GPU Price")


def text(sel) -> str:
    # Footnote markers (<sup>1</sup>) are not part of a value: "4<sup>1</sup>" is 4 GPUs.
    return text_of(sel, ".//text()[not(ancestor::sup)]")


def parse_pricing(body: str, url: str) -> Parsed:
    """GPU instance offers of the pricing page, one per model, region and offered tier."""
    parsed = Parsed()
    page = Selector(text=body)
    rows = page.xpath(ROWS)
    if not rows:
        parsed.error('no <div role="listitem" class="table-row-v2"> rows')
        return parsed
    gpu_rows = [r for r in rows if text(r.xpath("preceding::h2[1]")) == GPU_HEADING]
    if not gpu_rows:
        parsed.error(f'no table rows under an "{GPU_HEADING}" heading')
        return parsed
    problems: dict[str, list[str]] = {}
    for row in gpu_rows:
        offers, row_problems, name = _row(row)
        for problem in row_problems:
            problems.setdefault(problem, [])
            if name not in problems[problem]:
                problems[problem].append(name)
        if not row_problems:
            for fields in offers:
                held = fields.pop("_held", None)
                if held:
                    parsed.hold(held, **fields)
                else:
                    parsed.offer(**fields)
    for problem, names in problems.items():
        shown = ", ".join(repr(n) for n in names[:3]) + (", ..." if len(names) > 3 else "")
        parsed.error(f"{problem} (rows {shown})")
    if not parsed.offers and not parsed.errors:
        parsed.error(f'no GPU offer under "{GPU_HEADING}"')
    return parsed


def _row(row) -> tuple[list[dict], list[str], str]:
    """(offers, problems, model name) of one GPU row."""
    problems: list[str] = []
    names = list(dict.fromkeys(text(h) for h in row.xpath(MODEL_NAMES)))
    name = names[0] if names else "?"
    if not names or not names[0]:
        return [], ['a GPU row has no <h3 class="table-model-name">'], name
    if len(names) > 1:
        return [], [f"model name printed two ways ({' / '.join(names)})"], name
    region_el = row.xpath('preceding::*[starts-with(normalize-space(text()), "REGION:")][1]')
    region_head = text(region_el)
    # The region heading must be the table's own (inside the GPU section), not one from above it.
    if not region_head or text(region_el.xpath("preceding::h2[1]")) != GPU_HEADING:
        return [], ['no "REGION: ..." heading above the table'], name
    region = region_head.split(":", 1)[1].strip().title()

    # Desktop copy: cells under their column headers.
    headers = [text(h) for h in row.xpath(HEADER_CELLS)]
    cells = [text(c) for c in row.xpath(DESKTOP_CELLS)]
    if not headers:
        return [], ["no table header row (table-v2-header)"], name
    if len(cells) != len(headers):
        return [], [f"{len(cells)} desktop cells under {len(headers)} column headers"], name
    desktop: dict[str, str] = {}
    for what, (prefix, _) in FIELDS.items():
        columns = [i for i, h in enumerate(headers) if h.startswith(prefix)]
        if len(columns) != 1:
            problems.append(f'no "{prefix}" column in the table header' if not columns
                            else f'several "{prefix}" columns in the table header')
            continue
        desktop[what] = cells[columns[0]]
        if what in TIERS and "(Per Hour)" not in headers[columns[0]]:
            problems.append(f'price column no longer "(Per Hour)": {headers[columns[0]]!r}')

    # Mobile copy: labeled spec pairs and labeled price spans.
    mobile: dict[str, str] = {}
    for value in row.xpath(SPEC_VALUES):
        label = text(value.xpath("following-sibling::*[1]"))
        if label in ("GPU Count", "VRAM"):
            mobile[label] = text(value)
    per_hour: dict[str, str] = {}
    for span in row.xpath(PRICE_SPANS):
        value = span.xpath(f'./span[{_cls("item-value")}]')
        label = " ".join(" ".join(value.xpath("preceding-sibling::text()").getall()).split()).rstrip(":").strip()
        tier = next((t for t in TIERS if FIELDS[t][1] == label), None)
        if tier is None:
            if not label:
                problems.append("a price span has no label")
            elif label not in OTHER_PRODUCTS:
                problems.append(f"unknown price label {label!r}")
            continue
        mobile[tier] = text(value)
        # The unit statement: "On-Demand Price: $68.80 / Hour".
        per_hour[tier] = " ".join(" ".join(value.xpath("following-sibling::text()").getall()).split())
    if "on-demand" not in mobile:
        problems.append('no "On-Demand Price:" span')

    values: dict[str, str] = {}
    for what in FIELDS:
        d, m = desktop.get(what, ""), mobile.get(what, "")
        if d and m and d != m:
            problems.append(f"{what} printed two ways ({d!r} / {m!r})")
        values[what] = m or d
    count = GPU_COUNT.match(values["GPU Count"])
    if not count and not problems:
        problems.append(f"no readable GPU Count ({values['GPU Count']!r})")
    vram = re.match(r"^\d+(?:\.\d+)?$", values["VRAM"])
    if problems:
        return [], problems, name

    offers = []
    for tier in TIERS:
        value = values[tier]
        if value.lower() in NOT_OFFERED:
            continue  # "N/A": the row does not offer this tier
        priced = bool(PRICE.match(value))
        if priced and tier in per_hour and per_hour[tier] != "/ Hour":
            problems.append(f'{tier} price no longer "/ Hour" (reads {per_hour[tier]!r})')
            continue
        # Neither a "$" price, "N/A" nor "Contact sales" (blank in both copies, "soon", "€68.80"):
        # the cell cannot be read, the offer is held (spiders/base.py Parsed.hold), the rows load.
        unreadable = not priced and (not value or not UNPRICED.search(value))
        fields = dict(
            gpu_label=name, gpu_count=int(count.group(1)),
            vram_gb=float(vram.group(0)) if vram else None,
            billing=tier, tier=tier, region=region, currency="USD",
            # "Contact sales" instead of a number: an offer, unpriced, not self-service.
            self_service=priced or unreadable, price_raw=value or None, price_unit="instance_hour",
            availability=None,
        )
        if unreadable:
            fields["_held"] = (f"{tier} price cell unreadable: {value!r}" if value
                               else f"{tier} price cell blank in both copies")
        offers.append(fields)
    return offers, problems, name


class CoreWeaveSpider(PriceSpider):
    name = "coreweave"
    allowed_domains = ["coreweave.com"]
    family = "neocloud"
    robots = ("no stored copy of www.coreweave.com/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("CoreWeave Terms of Service (https://docs.coreweave.com/policies/terms-of-service, stored copy, "
             "undated) bind a Customer's Account: 'The creation of an Account and use of CoreWeave Services is"
             " in compliance with all laws, rules and regulations applicable to the Customer'; no clause on "
             "reading the public website by automated means in the stored excerpt (searched the pages corpus "
             "2026-12-02 for 'CoreWeave terms of use website scraping automated'). We read the public pricing "
             "page, once a day, no login.")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "real"
    pricing_url = "https://www.coreweave.com/pricing"

    page_parser = staticmethod(parse_pricing)

"""Lambda: the public pricing page (lambda.ai/pricing, HubSpot HTML with server-rendered islands).

Two priced sections, each an ``<h2>`` followed by a tab island (``role=tab`` buttons whose
``aria-controls`` names a ``role=tabpanel``) of tables with rows ``<tr data-plan="...">`` and
cells ``data-label="..."``. Prices are per GPU-hour in both (column ``PRICE/GPU/HR*``):

- ``Instances pricing``: on-demand, self-serve. Tabs 8x / 4x / 2x / 1x each print the same plan
  strings, so the GPU count comes from the tab that holds the row (checked against the vCPUs:
  more GPUs of one plan come with more vCPUs). VRAM from the row's ``VRAM/GPU`` cell: the 8x
  tab has two ``NVIDIA A100 SXM`` rows, 80 GB $2.79 and 40 GB $1.99, two offers.
- ``1-Click Clusters pricing``: committed clusters booked through sales ("Talk to our team",
  16+ GPUs): billing ``reserved``, term = the ``DURATION`` cell ("2 weeks – 1 year"), GPU count
  from the ``GPU COUNT`` cell ("256+" = from 256 GPUs: stored as 256, the price is per GPU),
  ``self_service`` False. A row priced "—" (the "1 year+" rows) is not an offer.

A price cell that is neither "$6.69", "Contact sales" nor "—" ("€6.69", "N/A—", a struck-through
price alone) holds its row (spiders/base.py Parsed.hold); the other rows load.

Never read: the copy of every table inside the ``window.__islands`` script blobs (unicode-
escaped HTML in a JSON string). It is script text, not markup, so the DOM never sees it.
A ``<tr data-plan>`` row under any other heading is a layout error, not silently skipped.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

ONDEMAND = "Instances pricing"
CLUSTERS = "1-Click Clusters pricing"  # printed "1-Click Clusters<br>pricing"
PRICE_LABEL = "PRICE/GPU/HR"  # printed with a footnote star: "PRICE/GPU/HR*"
TAB = re.compile(r"^(\d+)\s*x$", re.I)
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB$", re.I)
PRICE = re.compile(r"^\$\d+(?:\.\d+)?$")
COUNT = re.compile(r"^(\d+)(\+?)$")
NOT_OFFERED = {"—", "–", "-", "N/A", "n/a"}
# The words an unpriced offer prints where the price stood; other text ("N/A—", "TBD", "$L2a")
# is a cell that cannot be read: its row is held, never stored as an ordinary unpriced offer.
UNPRICED = re.compile(r"^(contact (sales|us)|talk to (our|the) team|request( access| a quote)?)$", re.I)
CLUSTER_TIER = "1-click-clusters"


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


class _Problems:
    """Layout problems, one message per distinct problem with a few of the rows it hit."""

    def __init__(self, url: str):
        self.url, self.seen = url, {}

    def add(self, problem: str, where: str = "") -> None:
        self.seen.setdefault(problem, [])
        if where and where not in self.seen[problem]:
            self.seen[problem].append(where)

    def into(self, parsed: Parsed) -> None:
        for problem, where in self.seen.items():
            rows = f" ({', '.join(where[:3])}{', …' if len(where) > 3 else ''})" if where else ""
            parsed.error(f"{self.url}: {problem}{rows}")


def _cells(row) -> dict[str, str]:
    return {c.attrib.get("data-label", "").strip(): text_of(c) for c in row.xpath("./th|./td")}


def _price(cells: dict[str, str], section: str, where: str, problems: _Problems) -> tuple[bool, str | None, str | None]:
    """(is an offer, price as printed, why the cell is unreadable): a "—" cell is no offer;
    "$6.69" a price; "Contact sales" (UNPRICED) an unpriced offer; anything else ("€6.69",
    "N/A—", a struck-through price alone) is an offer whose cell cannot be read (the row is held); no
    single price column is a layout error of the page."""
    labels = [label for label in cells if label.upper().startswith(PRICE_LABEL)]
    if len(labels) != 1:
        problems.add(f"'{section}' rows without a single '{PRICE_LABEL}*' cell (cells {sorted(cells)})", where)
        return False, None, None
    text = cells[labels[0]]
    if text in NOT_OFFERED:
        return False, None, None
    if PRICE.match(text) or UNPRICED.match(text):
        return True, text, None
    return True, text, f"price cell unreadable: {text!r} (not a $ amount per GPU-hour)"


def _tab_label(sel: Selector, panel) -> str:
    ids = [panel.attrib.get("id", "")]
    tab = sel.xpath('//*[@role="tab"][@aria-controls=$id]', id=ids[0]) if ids[0] else []
    if not tab and panel.attrib.get("aria-labelledby"):
        tab = sel.xpath('//*[@role="tab"][@id=$id]', id=panel.attrib["aria-labelledby"])
    return text_of(tab[0]) if tab else ""


def _ondemand(sel: Selector, row, where: str, problems: _Problems, parsed: Parsed) -> None:
    panel = row.xpath('ancestor::*[@role="tabpanel"][1]')
    if not panel:
        problems.add(f"rows after '{ONDEMAND}' outside the 8x/4x/2x/1x tab panels", where)
        return
    label = _tab_label(sel, panel[0])
    count = TAB.match(label)
    if not count:
        problems.add(f"tabs after '{ONDEMAND}' that do not name a GPU count 'Nx'", repr(label))
        return
    cells = _cells(row)
    vram = VRAM.match(cells.get("VRAM/GPU", ""))
    if not vram:
        problems.add(f"'{ONDEMAND}' rows without a 'VRAM/GPU' cell reading 'N GB'", where)
        return
    offered, price, unreadable = _price(cells, ONDEMAND, where, problems)
    if not offered:
        return
    fields = dict(
        gpu_label=row.attrib["data-plan"].strip(), gpu_count=int(count.group(1)),
        vram_gb=float(vram.group(1)), billing="on-demand", tier="on-demand", self_service=True,
        region=None, currency="USD", price_raw=price, price_unit="gpu_hour", availability=None,
        _vcpus=cells.get("vCPUs", ""),
    )
    if unreadable:
        parsed.hold(unreadable, **fields)
    else:
        parsed.offer(**fields)


def _cluster(row, where: str, problems: _Problems, parsed: Parsed) -> None:
    cells = _cells(row)
    term = cells.get("DURATION", "")
    count = COUNT.match(cells.get("GPU COUNT", ""))
    offered, price, unreadable = _price(cells, CLUSTERS, where, problems)
    if not offered:
        return  # the "1 year+" rows: "—", no price of that term
    if not term:
        problems.add(f"'{CLUSTERS}' rows without a 'DURATION' cell", where)
        return
    if not count:
        problems.add(f"'{CLUSTERS}' rows without a 'GPU COUNT' cell reading 'N' or 'N+'", where)
        return
    fields = dict(
        gpu_label=row.attrib["data-plan"].strip(), gpu_count=int(count.group(1)), billing="reserved",
        tier=CLUSTER_TIER, reserved_term=term, self_service=False, region=None, currency="USD",
        price_raw=price, price_unit="gpu_hour", availability=None,
    )
    if unreadable:
        parsed.hold(unreadable, **fields)
    else:
        parsed.offer(**fields)


def _counts_agree_with_vcpus(parsed: Parsed, problems: _Problems) -> None:
    """A plan on more GPUs must come with more vCPUs: a tab mislabelled or reordered by a
    redesign would otherwise price e.g. the 1x box as 8x without anyone noticing."""
    by_plan: dict[tuple, list[tuple[int, int]]] = {}
    for offer in parsed.offers:
        vcpus = offer.pop("_vcpus", None)
        if vcpus and vcpus.isdigit():
            by_plan.setdefault((offer["gpu_label"], offer["vram_gb"]), []).append((offer["gpu_count"], int(vcpus)))
    for (plan, vram), sizes in by_plan.items():
        sizes.sort()
        if any(b[0] > a[0] and b[1] <= a[1] for a, b in zip(sizes, sizes[1:])):
            problems.add("tab GPU counts disagree with the vCPUs: tabs no longer say the GPU count",
                         f"{plan} {vram:g} GB {sizes}")


def parse_pricing(text: str, url: str) -> Parsed:
    """The on-demand instances and the priced 1-Click Clusters rows of lambda.ai/pricing."""
    parsed, problems = Parsed(), _Problems(url)
    sel = Selector(text=text)
    headings = [text_of(h) for h in sel.xpath("//h2")]
    if _norm(ONDEMAND) not in map(_norm, headings):
        problems.add(f'no <h2> "{ONDEMAND}" heading to scope the on-demand tables')
    ondemand_rows = 0
    for row in sel.xpath("//tr[@data-plan]"):
        n = int(float(row.xpath("count(preceding::h2)").get()))
        heading = headings[n - 1] if n else ""
        where = row.attrib["data-plan"].strip()
        if _norm(heading) == _norm(ONDEMAND):
            ondemand_rows += 1
            _ondemand(sel, row, where, problems, parsed)
        elif _norm(heading) == _norm(CLUSTERS):
            _cluster(row, where, problems, parsed)
        else:
            problems.add(f"<tr data-plan> rows under a heading we do not know ({heading or 'none'!r}), not read")
    if ondemand_rows == 0 and _norm(ONDEMAND) in map(_norm, headings):
        problems.add(f'no <tr data-plan> rows after "{ONDEMAND}"')
    _counts_agree_with_vcpus(parsed, problems)
    problems.into(parsed)
    return parsed


class LambdaCloudSpider(PriceSpider):
    name = "lambda_cloud"
    allowed_domains = ["lambda.ai"]
    family = "neocloud"
    robots = ("no stored copy of lambda.ai/robots.txt found (searched the pages corpus 2026-12-02; it cannot "
              "be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt Disallow' found"
              " only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Lambda Website Terms of Service (https://lambdalabs.com/legal/terms-of-service, stored copy, "
             "'Last updated October 24, 2023'): 'By accessing or using the Service in any manner, including, "
             "but not limited to, visiting or browsing the Sites ... you expressly understand, acknowledge and"
             " agree to be bound by these Terms'; no clause on automated access in the stored excerpt "
             "(searched the pages corpus 2026-12-02 for 'Lambda Labs lambda.ai terms of service website "
             "automated scraping', 'Lambda Website Terms of Service prohibited use robots spiders scraping "
             "harvest data from the Sites'). We read the public pricing page, once a day, no login.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"
    pricing_url = "https://lambda.ai/pricing"

    page_parser = staticmethod(parse_pricing)

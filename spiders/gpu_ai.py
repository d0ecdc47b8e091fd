"""GPU.ai: the public pricing book, ``GET https://api.gpu.ai/v1/pricing?limit=200`` with cursor paging.

An answer is ``{"data": [...], "next_cursor": "<opaque>" | null}``; the next page is the same URL
with ``&cursor=<next_cursor>`` (real recordings 2026-08-22: page 1 with a real cursor, page 2 with
``null``), one row per offering::

    {"gpu_type":"b300","gpu_count":8,"region":"ca-central","tier":"on_demand","price_per_hour":50.62,
     "available":1,"community":false,"capacity_class":"secure","deployment_type":"vm",
     "offering_id":"a0a48d83d5f6",...}

* ``price_per_hour`` is USD (implied; the API states no currency) per **whole offering**
  (``gpu_count`` GPUs) per hour: per GPU = / gpu_count. 0 or null is no price. One row whose
  price is not a number ("6.79 USD", -1), or which states another currency, is held
  (spiders/base.py Parsed.hold, the value kept); the other rows load. A page stating another
  currency fails.
* A marketplace of secure and community capacity: one offer per ``offering_id`` (the ``sku``),
  tier = ``capacity_class`` (checked against the boolean ``community`` twin), billing from the
  row's ``tier`` (``on_demand`` -> on-demand; ``spot`` / ``interruptible`` -> spot; anything else
  is a layout error, never guessed), ``deployment_type`` (container / vm) as the variant, the
  free count in ``availability``. The label is ``gpu_type`` as printed ("h100_sxm", "a100_40gb").
* Real outliers are kept as read (offering 79ff8ac1608a: 4x RTX 5090 at $154.67/h); the quality
  gate holds what is outside a model's plausible band.
* Paging: a cursor seen before (a loop), more than :data:`MAX_PAGES` pages, or a page that is not
  ``{"data": [...]}`` is a layout error; an empty first page is an empty book, which is an error
  for a provider whose whole book is this one list.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency

PRICING = "https://api.gpu.ai/v1/pricing?limit=200"
MAX_PAGES = 50
BILLINGS = {"on_demand": "on-demand", "spot": "spot", "interruptible": "spot"}
REQUIRED = ("offering_id", "gpu_type", "gpu_count", "tier", "capacity_class")


def page_url(cursor: str | None) -> str:
    return PRICING if cursor is None else f"{PRICING}&cursor={quote(cursor, safe='')}"


def next_cursor(text: str) -> str | None:
    try:
        document = json.loads(text)
    except ValueError:
        return None
    cursor = document.get("next_cursor") if isinstance(document, dict) else None
    return cursor if isinstance(cursor, str) and cursor else None


def parse_pricing(text: str, url: str = PRICING) -> Parsed:
    """Offers of one page of the pricing book."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    rows = json_member(document, "data", list, url, parsed) if document is not None else None
    if rows is None:
        return parsed
    if "next_cursor" not in document:
        parsed.error(f"{url}: the page has no next_cursor (paging changed?)")
    foreign = stated_currency(document)
    if foreign:
        parsed.error(f"{url}: the page states {foreign} (price_per_hour is read as USD)")
        return parsed
    problems: dict[str, list[str]] = {}

    def problem(message: str, where: str) -> None:
        problems.setdefault(message, []).append(where)

    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            problem("a row is not an object", f"#{n}")
            continue
        where = str(row.get("offering_id") or f"#{n}")
        missing = [f for f in REQUIRED if row.get(f) in (None, "")] + (["price_per_hour"] if "price_per_hour" not in row else [])
        if missing:
            problem(f"row(s) lack {', '.join(missing)}", where)
            continue
        count, price, tier = row["gpu_count"], row["price_per_hour"], row["tier"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            problem("gpu_count is not a GPU count", where)
            continue
        unreadable = None
        if price is not None and (isinstance(price, bool) or not isinstance(price, (int, float)) or price < 0):
            unreadable = f"price_per_hour unreadable: {price!r} (not a number of USD)"
        if tier not in BILLINGS:
            problem("tier is not on_demand / spot / interruptible", f"{where} tier={tier!r}")
            continue
        capacity, community = row["capacity_class"], row.get("community")
        if community is not None and community != (capacity == "community"):
            problem("capacity_class and community disagree", f"{where} {capacity!r}/{community!r}")
            continue
        foreign = stated_currency(row)
        if foreign:
            unreadable = f"row states {foreign} (price_per_hour is read as USD)"
        free = row.get("available")
        fields = dict(sku=where, gpu_label=str(row["gpu_type"]), gpu_count=count, billing=BILLINGS[tier],
                      tier=str(capacity), variant=row.get("deployment_type") or None, region=row.get("region") or None,
                      currency="USD", price_raw=price if price or unreadable else f"price_per_hour {price}",
                      price_unit="instance_hour",
                      availability=f"{free} available" if isinstance(free, int) and not isinstance(free, bool) else None)
        if unreadable:
            # One row's price that is not a number ("6.79 USD", -1) or a row stating another
            # currency: that offering is held (spiders/base.py Parsed.hold, the value kept), the
            # other rows load.
            parsed.hold(unreadable, **fields)
        else:
            parsed.offer(**fields)
    parsed.errors_by_problem(url, problems)
    return parsed


class GpuAiSpider(PriceSpider):
    name = "gpu_ai"
    allowed_domains = ["api.gpu.ai"]
    family = "marketplace"
    robots = ("not applicable (api.gpu.ai is an API host); no stored copy of its robots.txt found (searched "
              "the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt' and "
              "'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is obeyed at "
              "every crawl if served")
    terms = ("No stored copy of GPU.ai's terms found (searched the pages corpus 2026-12-02 for 'gpu.ai terms "
             "of service marketplace'). We read only the public, anonymous pricing API (cursor-paged, 200 rows"
             " a page), once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "real"
    source_urls = (PRICING,)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cursors: set[str] = set()
        self.rows = 0

    async def start(self):
        yield self._page(None, 1)

    def _page(self, cursor: str | None, page: int):
        return scrapy.Request(page_url(cursor), headers={"Accept": "application/json"}, callback=self.parse_page,
                              errback=self.request_failed, cb_kwargs={"page": page})

    def parse_page(self, response, page: int):
        parsed = parse_pricing(response.text, response.url)
        self.rows += len(parsed.offers)
        yield from self.emit(parsed)
        cursor = next_cursor(response.text)
        if cursor is None:
            if not self.rows and not parsed.errors:
                self.layout_error(f"{response.url}: the pricing book is empty")
            return
        if cursor in self.cursors:
            self.layout_error(f"{response.url}: next_cursor points back to a page already read")
            return
        if page >= MAX_PAGES:
            self.layout_error(f"{response.url}: still paging after {MAX_PAGES} pages")
            return
        self.cursors.add(cursor)
        yield self._page(cursor, page + 1)

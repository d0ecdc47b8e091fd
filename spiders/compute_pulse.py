"""Compute Pulse (an AGGREGATOR): the public listings API, one query per GPU, offset paging.

``GET https://compute-pulse.com/api/listings?gpu=<slug>[&sort=price_asc]&limit=200&offset=<n>``
(no key; the server clamps a page to 200 rows). An answer (real recordings 2026-08-22)::

    {"data": [{"id": "11966", "provider": "Scaleway", "gpu_model": "B300", "gpu_count": 8,
               "region": "unspecified", "price_per_gpu_hour": 8.7743, "billing_type": "on_demand",
               "available": null, "interconnect": null, "min_duration_hours": null, "vram_gb": 288,
               "gpu_variant": null, "currency": "EUR", "price_native": 7.5, ...}, ...],
     "page": {"total": 98, "limit": 200, "offset": 0, "next_offset": null},
     "meta": {"price_unit": "USD per GPU hour", ...}, "links": {"self": ..., "next": null, ...}}

What is an offer:

* Each row is Compute Pulse's observation of ANOTHER provider's price: every offer is
  ``is_aggregator`` (never "a provider" in "cheapest" claims), tier = the underlying provider,
  and the identity is what the row states (label + ``gpu_variant``, GPU count, VRAM, billing,
  minimum duration as the term, region, interconnect as the variant). Listing ``id``s are
  renumbered at every refresh (about hourly), so they are not the offer's identity.
* Several rows with one identity (a marketplace re-published: two Vast.ai 1x RTX 4090 spot
  listings in "us") are ONE offer at the lowest price, ``availability`` saying of how many.
* ``price_per_gpu_hour`` is USD per GPU-hour as ``meta.price_unit`` states (checked: another
  unit fails the source). A row in another currency (``currency`` EUR / CHF / INR) keeps its
  own price, ``price_native`` in that currency, never the aggregator's USD conversion.
* billing_type ``on_demand`` / ``spot`` / ``reserved`` (anything else is a layout error).
* A row whose price is there but not a positive number ("N/A", "$8.77", 0) makes the lowest
  price of its offer unknown: that offer is held (spiders/base.py Parsed.hold, the value kept),
  the other offers load. A price that is null (a EUR row without ``price_native``) fails.
* An empty book (``data`` [] and ``page.total`` 0) is no offer and not an error of the whole
  source; each book's stated size is a fact (``listings_total/<slug>``, 0 for an empty one).
  No rows with a total above 0 is a layout error.
* Paging: ``links.next`` is followed and must be this query at ``page.next_offset``; a page at
  another offset than asked, a next offset that does not move forward, or more than
  :data:`MAX_PAGES` pages is a layout error, as is an answer without ``data`` / ``page``.
"""

from __future__ import annotations

from collections import defaultdict
from urllib.parse import parse_qs, urlsplit

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json

API = "https://compute-pulse.com/api/listings"
LIMIT = 200
MAX_PAGES = 20
UNIT = "USD per GPU hour"
BILLINGS = {"on_demand": "on-demand", "spot": "spot", "reserved": "reserved"}
#: (GPU slug, sort) of every query, exactly as the real 2026-08-22 capture answers them. Adding a
#: GPU needs its recorded answer (a whole book: every page its links.next names).
QUERIES = (("nvidia-b300", None), ("amd-mi325x", "price_asc"))
REQUIRED = ("provider", "gpu_model", "gpu_count", "billing_type")


def listings_url(slug: str, sort: str | None, offset: int = 0) -> str:
    return f"{API}?gpu={slug}{f'&sort={sort}' if sort else ''}&limit={LIMIT}&offset={offset}"


def _offset(url: str) -> int | None:
    values = parse_qs(urlsplit(url).query).get("offset")
    return int(values[0]) if values and values[0].isdigit() else None


def read_page(text: str, url: str) -> tuple[list[dict], Parsed, str | None, int | None]:
    """(rows, envelope errors, URL of the next page or None, the book's stated total) of one page."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    rows = json_member(document, "data", list, url, parsed) if document is not None else None
    page = json_member(document, "page", dict, url, parsed) if rows is not None else None
    if page is None:
        return [], parsed, None, None
    meta = document.get("meta") if isinstance(document.get("meta"), dict) else {}
    if meta.get("price_unit") != UNIT:
        parsed.error(f"{url}: meta.price_unit is {meta.get('price_unit')!r}, not {UNIT!r}")
        return [], parsed, None, None
    asked = _offset(url)
    if page.get("offset") != asked:
        parsed.error(f"{url}: page.offset {page.get('offset')!r} is not the offset asked ({asked})")
        return [], parsed, None, None
    following, next_offset = None, page.get("next_offset")
    if next_offset is not None:
        links = document.get("links") if isinstance(document.get("links"), dict) else {}
        following = links.get("next")
        if not isinstance(next_offset, int) or next_offset <= asked:
            parsed.error(f"{url}: page.next_offset {next_offset!r} does not move forward")
            following = None
        elif not isinstance(following, str) or _offset(following) != next_offset \
                or following.split("&offset=")[0] != url.split("&offset=")[0]:
            parsed.error(f"{url}: links.next {following!r} is not this query at offset {next_offset}")
            following = None
    total = page.get("total") if isinstance(page.get("total"), int) else None
    return [r for r in rows], parsed, following, total


def listing_offers(rows: list[dict], what: str) -> Parsed:
    """Offers of a book's rows (all its pages): one per identity, at the lowest price."""
    parsed = Parsed()
    problems: dict[str, list[str]] = {}
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            problems.setdefault("a row is not an object", []).append(f"#{n}")
            continue
        where = str(row.get("id") or f"#{n}")
        missing = [f for f in REQUIRED if row.get(f) in (None, "")]
        if missing:
            problems.setdefault(f"row(s) lack {', '.join(missing)}", []).append(where)
            continue
        count, billing = row["gpu_count"], row["billing_type"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            problems.setdefault("gpu_count is not a GPU count", []).append(where)
            continue
        if billing not in BILLINGS:
            problems.setdefault("billing_type is not on_demand / spot / reserved", []).append(f"{where}={billing!r}")
            continue
        currency = row.get("currency") or "USD"
        price = row.get("price_native") if row.get("currency") else row.get("price_per_gpu_hour")
        field = "price_native" if row.get("currency") else "price_per_gpu_hour"
        if price is None:
            problems.setdefault(f"{field} is not a price", []).append(f"{where}={price!r}")
            continue
        # A price that is there but not a positive number ("N/A", "$8.77", 0): the lowest price of
        # that offer cannot be known; the offer is held (spiders/base.py Parsed.hold), the rest loads.
        unreadable = (f"{field} unreadable: {price!r} (listing {where})"
                      if isinstance(price, bool) or not isinstance(price, (int, float)) or price <= 0 else None)
        variant = row.get("gpu_variant")
        hours = row.get("min_duration_hours")
        region = row.get("region")
        offer = dict(
            gpu_label=f"{row['gpu_model']} {variant}" if variant else str(row["gpu_model"]),
            gpu_count=count, vram_gb=row.get("vram_gb") if isinstance(row.get("vram_gb"), (int, float)) else None,
            billing=BILLINGS[billing], tier=str(row["provider"]),
            reserved_term=f"min {hours:g} h" if isinstance(hours, (int, float)) and hours > 0 else None,
            region=None if region in (None, "", "unspecified") else str(region),
            variant=str(row["interconnect"]) if row.get("interconnect") else None,
            currency=str(currency).upper(), price_raw=price, price_unit="gpu_hour", is_aggregator=True,
        )
        if unreadable:
            offer["_held"] = unreadable
        if row.get("_capture"):
            offer["capture"] = row["_capture"]
        offer["availability"] = {True: "available", False: "not available"}.get(row.get("available"))
        identity = tuple((k, offer[k]) for k in ("tier", "gpu_label", "gpu_count", "vram_gb", "billing",
                                                   "reserved_term", "region", "variant"))
        groups[identity].append(offer)
    for identity, offers in groups.items():
        if len({o["currency"] for o in offers}) > 1:
            problems.setdefault("rows of one offer in two currencies", []).append(
                f"{dict(identity)['tier']} {dict(identity)['gpu_label']} x{dict(identity)['gpu_count']}")
            continue
        held = [o for o in offers if o.get("_held")]
        if held:
            fields = {k: v for k, v in held[0].items() if k != "_held"}
            if len(offers) > 1:
                fields["availability"] = f"{len(held)} of {len(offers)} listings unreadable"
            parsed.hold(held[0]["_held"] + (f", {len(held)} of {len(offers)} listings of this offer unreadable"
                                            if len(offers) > 1 else ""), **fields)
            continue
        best = min(offers, key=lambda o: o["price_raw"])
        if len(offers) > 1:
            up = sum(o["availability"] == "available" for o in offers)
            best = {**best, "availability": f"lowest of {len(offers)} listings ({up} available)"}
        parsed.offer(**best)
    parsed.errors_by_problem(what, problems)
    return parsed


def parse_listings(text: str, url: str) -> Parsed:
    """Offers of a one-page book (a page whose links.next is null), plus its envelope errors."""
    rows, parsed, following, _ = read_page(text, url)
    if following:
        parsed.error(f"{url}: the book continues at {following}")
    return parsed.extend(listing_offers(rows, url))


class ComputePulseSpider(PriceSpider):
    name = "compute_pulse"
    allowed_domains = ["compute-pulse.com"]
    is_aggregator = True
    family = "aggregator"
    robots = ("no stored copy of compute-pulse.com/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of Compute Pulse's terms found (searched the pages corpus 2026-12-02 for "
             "'compute-pulse.com terms llms.txt agents GPU price API'). Compute Pulse publishes this API for "
             "agents (openapi.json, llms.txt) and says 'Observed public prices are not quotes'; we read one "
             "query per GPU once a day and never count its rows as a provider's own offer.")
    cadence = "daily"
    unit = "USD per GPU-hour (rows in EUR / CHF / INR kept in their currency)"
    capture = "real"
    source_urls = tuple(listings_url(slug, sort) for slug, sort in QUERIES)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.books: dict[str, list[dict]] = {}

    async def start(self):
        for slug, sort in QUERIES:
            yield self._page(listings_url(slug, sort), slug, 1)

    def _page(self, url: str, slug: str, page: int):
        return scrapy.Request(url, headers={"Accept": "application/json"}, callback=self.parse_page,
                              errback=self.request_failed, cb_kwargs={"slug": slug, "page": page})

    def parse_page(self, response, slug: str, page: int):
        rows, parsed, following, total = read_page(response.text, response.url)
        capture = response.meta.get("capture")
        book = self.books.setdefault(slug, [])
        book += [{**r, "_capture": capture} if isinstance(r, dict) else r for r in rows]
        if page == 1 and total is not None:
            parsed.facts.append({"fact": f"listings_total/{slug}", "value_num": total, "value_text": None})
        yield from self.emit(parsed)
        if following and page < MAX_PAGES:
            yield self._page(following, slug, page + 1)
            return
        if following:
            self.layout_error(f"{response.url}: still paging after {MAX_PAGES} pages")
            return
        if parsed.errors:
            return
        if not book:
            if total != 0:
                self.layout_error(f"{response.url}: no rows, but page.total is {total!r}")
            return   # an empty book: no offer, not an error (its listings_total fact says 0)
        yield from self.emit(listing_offers(book, f"{API}?gpu={slug}"))

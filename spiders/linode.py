"""Akamai Cloud (Linode): the public plan catalog, ``GET https://api.linode.com/v4/linode/types``.

No key. The answer is a paged list (``{"data": [...], "page": 1, "pages": 1, "results": N}``);
the spider asks for ``page_size=500`` and follows ``page`` until ``pages``. Every type states
``price.hourly`` / ``price.monthly`` (USD: Linode bills in USD and the answer names no currency;
one that states another fails) and ``region_prices`` (per-region overrides, ``[{"id": "id-cgk",
"hourly": ..., "monthly": ...}]``).

* GPU offers are the types of ``class`` "gpu" (one offer per type: ``sku`` = the type id, price
  ``price.hourly`` per instance-hour). ``accelerated`` types (NETINT VPUs, ``gpus`` 0) and every
  CPU class are not GPU offers. A catalog without a GPU type fails.
* GPU model and count from the type's label, checked against ``gpus``: "Dedicated 32GB + RTX6000
  GPU x1" -> "RTX6000" x1, "RTX4000 Ada x1 Small" -> "RTX4000 Ada" x1, size "Small" as the
  offer's ``variant``. The label's count must equal ``gpus``, or the type fails. The answer
  states no VRAM; "RTX6000" is ambiguous in the catalog, and Linode's own API reference says the
  g1 GPU plans are "NVIDIA Quadro RTX 6000" cards, so an ``RTX6000`` type is read with that
  card's 24 GB. Other labels take the catalog's VRAM.
* ``region_prices`` entries are offers of their own (``region`` = the entry's id) at the price
  they state. A base ``price.hourly`` of 0 or null is no price: with region prices, the base is no
  offer (fact ``gpu_types_priced_only_by_region``); without, the type is an unpriced offer (a
  2026-09-17 probe of the public catalog found every GPU type at a $0 base price). A price cell
  that is not a number (text, a negative number) holds that offer.
* ``results`` must equal the rows read over all pages; a page the answer did not announce
  fails.
"""

from __future__ import annotations

import re

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency

API = "https://api.linode.com/v4/linode/types"
PAGE_SIZE = 500
# "Dedicated 32GB + RTX6000 GPU x1", "RTX4000 Ada x1 Small", "RTX4000 Ada x2 Medium High Storage"
_LABEL = re.compile(r"^(?:Dedicated \d+\s*GB \+ )?(?P<gpu>.+?)(?: GPU)? x(?P<count>\d+)(?: (?P<size>.+))?$")
# Linode's API reference, LinodeType.class: "gpu - Linodes with dedicated NVIDIA Quadro RTX 6000 GPUs".
_DOCUMENTED_VRAM = {"RTX6000": 24.0}


def page_url(page: int) -> str:
    return f"{API}?page={page}&page_size={PAGE_SIZE}"


def _hourly(value) -> tuple[object, str | None]:
    """(price, None) for a positive number; (value, None) for 0/null (no price); else why not."""
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0):
        return value, None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return value, None
    return value, f"hourly price {value!r} is not a number"


def parse_types(text: str, url: str = API) -> Parsed:
    """Offers of one page of the Linode types answer (GPU types only)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    data = json_member(document, "data", list, url, parsed) if document is not None else None
    if data is None:
        return parsed
    page, pages, results = document.get("page"), document.get("pages"), document.get("results")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (page, pages, results)) or page > pages:
        parsed.error(f"{url}: page {page!r} of {pages!r} ({results!r} results) is not a page of the answer")
        return parsed
    if pages == 1 and results != len(data):
        parsed.error(f"{url}: {len(data)} types on the only page but results {results}")
    regional_only = []
    if pages == 1 and not any(isinstance(r, dict) and r.get("class") == "gpu" for r in data):
        parsed.error(f"{url}: no type of class 'gpu' among {len(data)} types")
    for n, row in enumerate(data):
        if not isinstance(row, dict) or row.get("class") != "gpu":
            continue
        sku = str(row.get("id") or f"#{n}")
        foreign = stated_currency(row)
        if foreign:
            parsed.error(f"{url}: type {sku} states {foreign}; prices are read as USD")
            continue
        m = _LABEL.match(str(row.get("label") or ""))
        gpus = row.get("gpus")
        if not m or not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 1:
            parsed.error(f"{url}: GPU type {sku}: label {row.get('label')!r} / gpus {gpus!r} name no GPU and count")
            continue
        if int(m["count"]) != gpus:
            parsed.error(f"{url}: GPU type {sku}: label says x{m['count']} but gpus is {gpus}")
            continue
        price = row.get("price")
        if not isinstance(price, dict) or "hourly" not in price:
            parsed.error(f"{url}: GPU type {sku} has no price.hourly")
            continue
        fields = dict(sku=sku, gpu_label=m["gpu"], gpu_count=gpus, vram_gb=_DOCUMENTED_VRAM.get(m["gpu"]),
                      variant=m["size"], billing="on-demand", currency="USD", price_unit="instance_hour")
        regions = row.get("region_prices") or []
        if not isinstance(regions, list):
            parsed.error(f"{url}: GPU type {sku}: region_prices is not a list")
            continue
        raw, why = _hourly(price.get("hourly"))
        if why:
            parsed.hold(why, price_raw=raw, **fields)
        elif raw:
            parsed.offer(price_raw=raw, **fields)
        elif regions:
            regional_only.append(sku)
        else:
            parsed.offer(price_raw=f"price.hourly {raw!r}", **fields)
        for entry in regions:
            region = entry.get("id") if isinstance(entry, dict) else None
            if not region:
                parsed.error(f"{url}: GPU type {sku}: a region_prices entry without an id")
                continue
            raw, why = _hourly(entry.get("hourly"))
            if why:
                parsed.hold(why, price_raw=raw, region=str(region), **fields)
            else:
                parsed.offer(price_raw=raw if raw else f"region_prices.hourly {raw!r}", region=str(region), **fields)
    if regional_only:
        parsed.facts.append({"fact": "gpu_types_priced_only_by_region", "value_num": len(regional_only),
                             "value_text": ", ".join(regional_only)})
    return parsed


class LinodeSpider(PriceSpider):
    name = "linode"
    allowed_domains = ["api.linode.com"]
    family = "neocloud"
    robots = ("not applicable (api.linode.com is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("Linode Customer Agreement (https://www.linode.com/agreement/, stored copy, applying 'beginning "
             "on May 25, 2018') binds 'all users of Linode Services'; no clause on automated reads of the "
             "public plan catalog (searched the pages corpus 2026-12-02 for 'Linode Akamai acceptable use "
             "policy terms of service automated'). We read only Linode's documented, unauthenticated plan "
             "catalog (/v4/linode/types, the data behind `linode-cli linodes types`), once a day.")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "composed"
    source_urls = (page_url(1),)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.read = 0
        self.gpu_offers = 0
        self.regional_only: list[str] = []   # merged over all pages: one fact per run

    async def start(self):
        yield self._get(1)

    def _get(self, page: int):
        return scrapy.Request(page_url(page), headers={"Accept": "application/json"}, callback=self.parse_page,
                              errback=self.request_failed, cb_kwargs={"page": page})

    def parse_page(self, response, page):
        parsed = parse_types(response.text, response.url)
        self.gpu_offers += len(parsed.offers)
        for fact in parsed.facts:
            self.regional_only += fact["value_text"].split(", ")
        parsed.facts = []
        document = load_json(response.text, response.url, Parsed())
        yield from self.emit(parsed)
        if parsed.layout_errors or not isinstance(document, dict):
            return
        self.read += len(document["data"])
        if document["page"] != page:
            self.layout_error(f"{response.url}: asked for page {page}, the answer is page {document['page']}")
        elif page < document["pages"]:
            yield self._get(page + 1)
            return
        elif document["results"] != self.read:
            self.layout_error(f"{API}: {self.read} types on {page} pages but results {document['results']}")
        if self.regional_only:
            yield from self.emit(Parsed(facts=[{"fact": "gpu_types_priced_only_by_region",
                                                "value_num": len(self.regional_only),
                                                "value_text": ", ".join(self.regional_only)}]))
        if page > 1 and not self.gpu_offers and not self.regional_only:
            self.layout_error(f"{API}: no type of class 'gpu' in the catalog")

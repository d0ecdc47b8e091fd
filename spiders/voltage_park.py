"""Voltage Park: the public bare-metal locations, ``GET cloud-api.voltagepark.com/api/v1/bare-metal/locations``.

The dashboard's logged-out call (no key). The whole answer (real recording 2026-08-22)::

    {"results":[{"id":"a3111bd4-…","gpu_count_ethernet":0,"gpu_price_ethernet":"1.99",
                 "gpu_count_infiniband":0,"gpu_price_infiniband":"2.49",…,
                 "specs_per_node":{"gpu_model":"h100-sxm5-80gb","gpu_count":8,…}}],
     "total_result_count":1,"has_previous":false,"has_next":false}

* Each location sells whole nodes of ``specs_per_node.gpu_count`` GPUs over two networks: one
  offer per network (variant ``ethernet`` / ``infiniband``), priced per **GPU-hour** by the
  decimal strings ``gpu_price_<network>`` (USD; never multiplied by 8 or read as a node price).
  ``sku`` = the location id (the region is not named in this answer).
* ``gpu_count_<network>`` is how many GPUs are free: 0 is "sold out" in ``availability``, and the
  published price is still the offer's price. A price of "0", empty or null is no price. A
  price string per another unit ("$15.92/node") fails the page; any other value that is not a
  decimal string ("N/A", "€1.99") holds that network's offer (spiders/base.py Parsed.hold, the
  value kept), the other loads.
* The GPU label is the node's ``gpu_model`` ("h100-sxm5-80gb"), VRAM as the label says.
* Paging: the answer says ``has_next``; a true ``has_next`` is a layout error (the spider reads
  one page and must not pretend it read the book), as is an empty ``results`` list or a result
  count that disagrees with ``total_result_count``.
* Not read: ``/api/v1/instant-deploy-presets/`` (VM presets, marked deprecated in Voltage Park's own
  API spec; its only recording is of another day), ``/bare-metal/detailed-locations`` and
  ``/billing/hourly-rate`` (account-scoped), and the marketing /pricing page ("Contact for pricing"
  cards; $1.99 only in meta tags and FAQ prose).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency

LOCATIONS = "https://cloud-api.voltagepark.com/api/v1/bare-metal/locations"
NETWORKS = ("ethernet", "infiniband")
PRICE = re.compile(r"^\d+(\.\d+)?$")
# A price per some unit ("$15.92/node", "1.99/hr"): the field no longer holds a bare per-GPU price.
PER_UNIT = re.compile(r"^\$?\d[\d,]*(?:\.\d+)?\s*/\s*\S")


def _vram(label: str) -> float | None:
    m = re.search(r"(\d+)\s*gb\b", label, re.I)
    return float(m.group(1)) if m else None


def parse_locations(text: str, url: str = LOCATIONS) -> Parsed:
    """Offers of the bare-metal locations answer (one per location and network)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    results = json_member(document, "results", list, url, parsed) if document is not None else None
    if results is None:
        return parsed
    if not results:
        parsed.error(f"{url}: no location in 'results'")
        return parsed
    if document.get("has_next") is not False:
        parsed.error(f"{url}: has_next is {document.get('has_next')!r}: more locations than this page")
    total = document.get("total_result_count")
    if total is not None and total != len(results):
        parsed.error(f"{url}: {len(results)} results on the page but total_result_count {total!r}")
    for n, location in enumerate(results):
        where = str(location.get("id") or f"#{n}") if isinstance(location, dict) else f"#{n}"
        node = location.get("specs_per_node") if isinstance(location, dict) else None
        if not isinstance(node, dict) or not node.get("gpu_model") or not isinstance(node.get("gpu_count"), int) \
                or isinstance(node.get("gpu_count"), bool) or node["gpu_count"] < 1:
            parsed.error(f"{url}: location {where} lacks specs_per_node.gpu_model / gpu_count")
            continue
        foreign = stated_currency(location)
        if foreign:
            parsed.error(f"{url}: location {where} states {foreign}; gpu_price_* are read as USD")
            continue
        label = str(node["gpu_model"])
        priced = 0
        for network in NETWORKS:
            field, free = f"gpu_price_{network}", location.get(f"gpu_count_{network}")
            if field not in location:
                continue
            raw = location[field]
            fields = dict(sku=where, gpu_label=label, gpu_count=node["gpu_count"], vram_gb=_vram(label),
                          billing="on-demand", tier="bare metal", variant=network, currency="USD",
                          price_unit="gpu_hour",
                          availability=(f"{free} GPUs free" if free else "sold out (0 GPUs free)")
                          if isinstance(free, int) and not isinstance(free, bool) else None)
            if raw not in (None, "") and not (isinstance(raw, str) and PRICE.match(raw.strip())):
                if isinstance(raw, str) and PER_UNIT.match(raw.strip()):   # "$15.92/node": per another unit
                    parsed.error(f"{url}: location {where}: {field} {raw!r} is not a decimal price string")
                    continue
                # "N/A", "1.9.9", "€1.99", a number instead of a string: this network's price cannot
                # be read; its offer is held (spiders/base.py Parsed.hold, the value kept), the
                # other network and locations load.
                priced += 1
                parsed.hold(f"{field} unreadable: {raw!r} is not a decimal price string", price_raw=raw, **fields)
                continue
            try:
                value = Decimal(raw.strip()) if raw not in (None, "") else None
            except InvalidOperation:
                value = None
            priced += 1
            parsed.offer(price_raw=raw if value else f"{field} {raw!r}", **fields)
        if not priced:
            parsed.error(f"{url}: location {where} has none of {', '.join(f'gpu_price_{n}' for n in NETWORKS)}")
    return parsed


class VoltageParkSpider(PriceSpider):
    name = "voltage_park"
    allowed_domains = ["cloud-api.voltagepark.com"]
    pricing_url = LOCATIONS
    family = "neocloud"
    robots = ("not applicable (cloud-api.voltagepark.com is an API host); no stored copy of its robots.txt "
              "found (searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai "
              "robots.txt' and 'cloud.google.com robots.txt Disallow' found only other sites' files); "
              "robots.txt is obeyed at every crawl if served")
    terms = ("Voltage Park Terms of Service (https://voltagepark.com/terms-of-service, stored copy, undated) "
             "'govern your access to and use of the Platform' (VoltagePark.com and cloud.voltagepark.com); no "
             "clause on automated access in the stored excerpt (searched the pages corpus 2026-12-02 for "
             "'Voltage Park terms of service'). We read only the public bare-metal locations API the "
             "logged-out dashboard calls, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"

    page_parser = staticmethod(parse_locations)

    async def start(self):
        yield scrapy.Request(self.pricing_url, headers={"Accept": "application/json"}, callback=self.parse,
                             errback=self.request_failed)

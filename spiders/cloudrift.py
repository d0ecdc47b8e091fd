"""CloudRift: the public instance-type catalog, ``POST api.cloudrift.ai/api/v1/instance-types/list``.

Every CloudRift API call is a POST of ``{"version": "<date>", "data": {...}}`` answered by
``{"version": "<date>", "data": {...}}``; ``instance-types/list`` answers without any key (the
console's and dstack/SkyPilot's catalog call; observed public on 2026-10-06). We ask for the VM
catalog (``{"selector": {"ByServiceAndLocation": {"services": ["vm"]}}}``, as gpuhunt does)::

    {"version":"2025-01-29","data":{"instance_types":[
      {"name":"rtx59-…","brand_short":"RTX 5090","datacenters":[…],
       "variants":[{"name":"rtx59-….1","gpu_count":1,"vram":34359738368,"cpu_count":8,
                    "dram":68719476736,"disk":…,"cost_per_hour":62.0,"available_nodes":0,
                    "available_nodes_per_dc":{},…}]}]}}

* One offer per **variant** (``sku`` = the variant's ``name``, the id ``instances/rent`` takes):
  GPU label = the type's ``brand_short`` as printed, ``gpu_count`` from the variant, VRAM per
  GPU = ``vram`` bytes / 2^30. A variant with ``gpu_count`` 0 is a CPU machine, not an offer
  (counted in the source fact ``cpu_only_variants``).
* ``cost_per_hour`` is **US cents per instance-hour** (62.0 = $0.62/h for the whole variant;
  CloudRift's money is cents everywhere, its site divides by 100 and by ``gpu_count``). It may carry
  fractional cents (139.36). price_raw = cents / 100 in dollars, unit instance_hour, USD (the API
  states no currency; one that states another fails).
  A ``cost_per_hour`` of 0 is no price (unpriced: ``cost_per_hour 0``); one that is not a number
  ("N/A", a string, null) is that row **held**, the other rows load.
* Availability: ``available_nodes`` free nodes (0 = "sold out (0 nodes free)"), with the free
  nodes per datacenter (``available_nodes_per_dc``; older answers ``nodes_per_dc``) when any; the
  price is the type's, not a region's, so one offer per variant (no region).
* Layout: an answer without ``data.instance_types`` (an error string, a changed envelope) or an
  empty catalog fails; a variant without ``name`` / ``gpu_count`` fails; a type without
  ``brand_short`` fails.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency

API = "https://api.cloudrift.ai/api/v1/instance-types/list"
API_VERSION = "2025-03-21"
REQUEST = {"version": API_VERSION, "data": {"selector": {"ByServiceAndLocation": {"services": ["vm"]}}}}
GIB = 1024 ** 3


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cents(value) -> Decimal | None:
    """cost_per_hour as a number of cents, else None (a string, null, a bool, negative)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        cents = Decimal(str(value))
    except InvalidOperation:
        return None
    return cents if cents >= 0 else None


def _availability(variant: dict) -> str | None:
    free = variant.get("available_nodes")
    if not _int(free):
        return None
    if not free:
        return "sold out (0 nodes free)"
    per_dc = variant.get("available_nodes_per_dc", variant.get("nodes_per_dc"))
    where = ", ".join(f"{dc}: {n}" for dc, n in sorted(per_dc.items()) if _int(n) and n) \
        if isinstance(per_dc, dict) else ""
    return f"{free} nodes free" + (f" ({where})" if where else "")


def parse_instance_types(text: str, url: str = API) -> Parsed:
    """Offers of the instance-types/list answer (one per GPU variant)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    if document is None:
        return parsed
    data = json_member(document, "data", dict, url, parsed)
    types = json_member(data, "instance_types", list, f"{url} data", parsed) if data is not None else None
    if types is None:
        return parsed
    if not types:
        parsed.error(f"{url}: no instance type in data.instance_types")
        return parsed
    foreign = stated_currency(document) or stated_currency(data)
    if foreign:
        parsed.error(f"{url}: the answer states {foreign}; cost_per_hour is read as US cents")
        return parsed
    problems: dict[str, list[str]] = {}
    cpu_only: list[str] = []
    for n, itype in enumerate(types):
        tname = str(itype.get("name") or f"#{n}") if isinstance(itype, dict) else f"#{n}"
        label = itype.get("brand_short") if isinstance(itype, dict) else None
        variants = itype.get("variants") if isinstance(itype, dict) else None
        if not isinstance(label, str) or not label.strip() or not isinstance(variants, list):
            problems.setdefault("instance type(s) lack brand_short or a variants list", []).append(tname)
            continue
        for m, variant in enumerate(variants):
            vname = variant.get("name") if isinstance(variant, dict) else None
            count = variant.get("gpu_count") if isinstance(variant, dict) else None
            if not isinstance(vname, str) or not vname or not _int(count) or count < 0:
                problems.setdefault("variant(s) lack a name or a gpu_count", []).append(f"{tname}#{m}")
                continue
            if count == 0:
                cpu_only.append(vname)
                continue
            foreign = stated_currency(variant)
            if foreign:
                problems.setdefault("variant(s) state a currency other than USD", []).append(f"{vname} {foreign}")
                continue
            vram = variant.get("vram")
            fields = dict(sku=vname, gpu_label=label.strip(), gpu_count=count,
                          vram_gb=round(vram / GIB, 1) if _int(vram) and vram > 0 else None,
                          billing="on-demand", tier="on-demand", currency="USD", price_unit="instance_hour",
                          availability=_availability(variant))
            raw = variant.get("cost_per_hour")
            cents = _cents(raw)
            if cents is None:
                parsed.hold(f"cost_per_hour is not a number of US cents ({raw!r})", price_raw=raw, **fields)
            elif cents == 0:
                parsed.offer(price_raw="cost_per_hour 0", **fields)
            else:
                parsed.offer(price_raw=cents / 100, **fields)
    parsed.errors_by_problem(url, problems)
    if cpu_only:
        parsed.facts.append({"fact": "cpu_only_variants", "value_num": len(cpu_only),
                             "value_text": ", ".join(cpu_only[:10])})
    if not parsed.offers and not parsed.errors:
        parsed.error(f"{url}: no GPU variant in data.instance_types")
    return parsed


class CloudRiftSpider(PriceSpider):
    name = "cloudrift"
    allowed_domains = ["api.cloudrift.ai"]
    pricing_url = API
    family = "neocloud"
    robots = ("not applicable (api.cloudrift.ai is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("No stored copy of CloudRift's terms of service found (searched the pages corpus 2026-12-02 for "
             "'CloudRift terms of service cloudrift.ai'). We read only the public, keyless instance-types/list"
             " call the CloudRift console, dstack and SkyPilot make, one POST a day, with our contact "
             "User-Agent.")
    cadence = "daily"
    unit = "US cents per instance-hour"
    capture = "composed"
    source_urls = (API,)

    page_parser = staticmethod(parse_instance_types)

    async def start(self):
        # One POST; a replay serves the archived answer by URL.
        yield scrapy.http.JsonRequest(self.pricing_url, data=REQUEST, callback=self.parse,
                                      errback=self.request_failed)

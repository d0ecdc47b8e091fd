"""TensorDock: the marketplace's locations list, ``GET dashboard.tensordock.com/api/v2/locations``.

TensorDock is a marketplace of independent hosts; its API docs ("Fetch Hostnodes and Locations")
print the answer of the locations endpoint as (captures/src/2026-10-06/tensordock/ says which
parts of the shipped capture are that documented example and which are composed)::

    {"data": {"locations": [{"id": "loc-uuid-12345", "city": "Austin", "stateprovince": "Texas",
       "country": "United States", "tier": 3,
       "gpus": [{"v0Name": "h100-sxm5-80gb", "displayName": "H100 SXM5 80GB", "max_count": 8,
                 "price_per_hr": 2.2, "resources": {"max_vcpus": 128, ...},
                 "pricing": {"per_vcpu_hr": 0.003, "per_gb_ram_hr": 0.002,
                             "per_gb_storage_hr": 0.00005}, ...}]}]}}

* One offer per location and GPU: ``sku`` = ``<location id>/<v0Name>``, ``region`` the location's
  "city, stateprovince, country", label the ``displayName`` as printed, VRAM from the v0Name's
  ``-<n>gb`` ending, one GPU; ``max_count`` (GPUs one VM may take there) and the location's
  ``tier`` are its ``availability`` (max_count 0: sold out, the price still stands).
* ``price_per_hr`` is USD per **GPU-hour for the GPU alone**: vCPUs, RAM and storage are billed on
  top at the GPU's ``pricing`` rates, in amounts the customer picks (up to ``resources``). We
  never add them up into an invented VM: the tier is ``gpu component`` and the part prices are
  the source fact ``host_prices:<sku>``. So, as cudo's, these prices are not comparable with the
  instance prices the claims compare, and the source is off by default.
* ``price_per_hr`` 0 or null is no price (an unpriced offer); any other value that is not a
  positive number ("2.20/hr", a bool), or a GPU that states a currency other than USD, holds that
  offer (spiders/base.py Parsed.hold), the others load.
* Layout: no ``data.locations`` list, an empty one (what the endpoint answered on 2026-10-06),
  a location without ``id`` or ``gpus`` list, a GPU without ``v0Name`` / ``displayName`` / a whole
  ``max_count``, or a sku read twice fail.
"""

from __future__ import annotations

import re
from decimal import Decimal

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, json_price, load_json, stated_currency

LOCATIONS = "https://dashboard.tensordock.com/api/v2/locations"
VRAM = re.compile(r"-(\d+)gb$")
#: The parts billed beside the GPU (one source fact per offer, never summed).
PARTS = (("per_vcpu_hr", "vCPU", "vCPU-hour"), ("per_gb_ram_hr", "RAM", "GB-hour"),
         ("per_gb_storage_hr", "storage", "GB-hour"))


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _region(location: dict) -> str | None:
    parts = [location.get(k) for k in ("city", "stateprovince", "country")]
    return ", ".join(p.strip() for p in parts if isinstance(p, str) and p.strip()) or None


def _availability(location: dict, max_count: int) -> str:
    where = f"location tier {location['tier']}" if _int(location.get("tier")) else None
    what = f"up to {max_count} GPUs per VM" if max_count else "sold out (max_count 0)"
    return "; ".join(p for p in (what, where) if p)


def _host_prices(gpu: dict) -> str | None:
    pricing = gpu.get("pricing") if isinstance(gpu.get("pricing"), dict) else {}
    parts = [f"{what} {Decimal(str(pricing[key])):f} USD/{unit}" for key, what, unit in PARTS
             if isinstance(pricing.get(key), (int, float)) and not isinstance(pricing.get(key), bool)]
    return ", ".join(parts) or None


def parse_locations(text: str, url: str = LOCATIONS) -> Parsed:
    """Offers of the locations answer: one GPU component price per location and GPU."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    data = json_member(document, "data", dict, url, parsed) if document is not None else None
    locations = json_member(data, "locations", list, f"{url} data", parsed) if data is not None else None
    if locations is None:
        return parsed
    if not locations:
        parsed.error(f"{url}: no location in data.locations (an empty market)")
        return parsed
    problems: dict[str, list[str]] = {}
    seen: set[str] = set()
    gpuless: list[str] = []
    for n, location in enumerate(locations):
        if not isinstance(location, dict) or not isinstance(location.get("id"), str) or not location["id"] \
                or not isinstance(location.get("gpus"), list):
            problems.setdefault("location(s) lack an id or a gpus list", []).append(f"#{n}")
            continue
        if not location["gpus"]:
            gpuless.append(location["id"])
        for gpu in location["gpus"]:
            name = gpu.get("v0Name") if isinstance(gpu, dict) else None
            label = gpu.get("displayName") if isinstance(gpu, dict) else None
            if not isinstance(name, str) or not name or not isinstance(label, str) or not label.strip() \
                    or not _int(gpu.get("max_count")) or gpu["max_count"] < 0:
                problems.setdefault("GPU(s) lack v0Name / displayName / a whole max_count", []).append(
                    f"{location['id']}/{name or '?'}")
                continue
            sku = f"{location['id']}/{name}"
            if sku in seen:
                problems.setdefault("GPU(s) listed twice in one location", []).append(sku)
                continue
            seen.add(sku)
            vram = VRAM.search(name)
            fields = dict(sku=sku, gpu_label=label.strip(), gpu_count=1,
                          vram_gb=float(vram.group(1)) if vram else None, billing="on-demand",
                          tier="gpu component", region=_region(location), currency="USD", price_unit="gpu_hour",
                          availability=_availability(location, gpu["max_count"]))
            foreign = stated_currency(gpu) or stated_currency(gpu.get("pricing"))
            raw, why = json_price(gpu.get("price_per_hr"))
            if foreign:
                parsed.hold(f"states {foreign}; prices are read as USD", price_raw=raw, **fields)
            elif raw is None or (not isinstance(raw, bool) and raw == 0):
                parsed.offer(price_raw=f"price_per_hr {raw!r}", **fields)
            elif why:
                parsed.hold(f"price_per_hr {why}", price_raw=raw, **fields)
            else:
                parsed.offer(price_raw=raw, **fields)
            parts = _host_prices(gpu)
            if parts:
                parsed.facts.append({"fact": f"host_prices:{sku}", "value_num": None, "value_text": parts})
    parsed.errors_by_problem(url, problems)
    if gpuless:
        parsed.facts.append({"fact": "locations_without_gpus", "value_num": len(gpuless),
                             "value_text": ", ".join(gpuless[:10])})
    if not parsed.offers and not parsed.errors:
        parsed.error(f"{url}: no GPU in any of {len(locations)} locations")
    return parsed


class TensorDockSpider(PriceSpider):
    name = "tensordock"
    allowed_domains = ["dashboard.tensordock.com"]
    pricing_url = LOCATIONS
    family = "marketplace"
    robots = ("unknown: no stored copy of dashboard.tensordock.com/robots.txt found (searched the pages corpus "
              "2026-12-02 for TensorDock's robots.txt); robots.txt is obeyed at every crawl if served")
    terms = ("TensorDock Terms of Service (https://docs.tensordock.com/legal-information/terms-of-service-tos, "
             "stored copy 'Last updated: September 24, 2024'): 'By accessing or using any part of our Services, "
             "you agree to be bound by all of the Terms'; the stored part says nothing of automated collection. "
             "The API docs ask to 'keep API requests reasonable (e.g. 1 request per second)'. We read only the "
             "documented locations endpoint, one request a day.")
    cadence = "daily"
    unit = "USD per GPU-hour (GPU component; vCPU, RAM and storage extra)"
    capture = "composed"
    source_urls = (LOCATIONS,)
    # Its price is the GPU component alone (vCPU, RAM and storage are billed on top), as cudo's:
    # not comparable with the instance prices every "cheapest" claim compares; and the endpoint
    # answered an empty list on 2026-10-06. It runs only when asked by name.
    enabled_by_default = False

    page_parser = staticmethod(parse_locations)

    async def start(self):
        yield scrapy.Request(self.pricing_url, headers={"Accept": "application/json"}, callback=self.parse,
                             errback=self.request_failed)

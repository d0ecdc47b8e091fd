"""Cudo Compute: the public VM machine-type list, ``GET rest.compute.cudo.org/v1/vms/machine-types``.

The keyless call dstack's gpuhunt made until it dropped Cudo (2026-06). Cudo prices a VM by
its parts, per data center and machine type::

    {"machineTypes": [{"dataCenterId": "no-luster-1", "machineType": "epyc-rome-rtx-a5000",
       "gpuModel": "RTX A5000", "gpuModelId": "nvidia-rtx-a5000",
       "vcpuPriceHr": {"value": "0.002100"}, "memoryGibPriceHr": {"value": "0.003400"},
       "gpuPriceHr": {"value": "0.520000"}, "minStorageGibPriceHr": {"value": "0.000107"},
       "maxGpuFree": 4, "totalGpuFree": 7, ...}]}

* One offer per GPU machine type and data center: ``sku`` = ``<dataCenterId>/<machineType>``,
  ``region`` = ``dataCenterId``, label = ``gpuModel`` as printed, one GPU, price =
  ``gpuPriceHr.value`` as printed, USD per **GPU-hour** (decimal strings; gpuhunt and SkyPilot
  read them as USD; a stated other currency fails).
* That price is the **GPU component only**: vCPUs (``vcpuPriceHr``), memory (``memoryGibPriceHr``)
  and disk are billed on top, in amounts the customer picks within ``minVcpuPerGpu`` /
  ``min/maxVcpuPerMemoryGib``. We never add them up into an invented VM: the offer's tier is
  ``gpu component``, and the per-vCPU and per-GiB prices of the type are source facts
  (``vcpu_usd_per_hour`` / ``memory_gib_usd_per_hour``, value_text = the sku).
* Availability: ``totalGpuFree`` GPUs free in the data center, ``maxGpuFree`` on one host; 0 is
  "sold out (0 GPUs free)" and the price still stands.
* A machine type without ``gpuModelId`` (a CPU type) is not an offer (counted in the fact
  ``cpu_only_machine_types``). ``gpuPriceHr.value`` "0" is no price (unpriced, ``gpuPriceHr 0``);
  one that is not a decimal string is that row **held**, the others load.
* Layout: no ``machineTypes`` list, an empty list, or a type without ``dataCenterId`` /
  ``machineType`` / ``gpuModel`` fails.
"""

from __future__ import annotations

import re
from decimal import Decimal

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency

MACHINE_TYPES = "https://rest.compute.cudo.org/v1/vms/machine-types"
DECIMAL = re.compile(r"^\d+(\.\d+)?$")
#: The parts billed beside the GPU (kept as one source fact per machine type, never summed).
PARTS = (("vcpuPriceHr", "vCPU", "vCPU-hour"), ("memoryGibPriceHr", "memory", "GiB-hour"),
         ("minStorageGibPriceHr", "storage", "GiB-hour"))


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _value(obj) -> str | None:
    """The ``{"value": "0.05"}`` money string, when it is one."""
    value = obj.get("value") if isinstance(obj, dict) else None
    return value.strip() if isinstance(value, str) and DECIMAL.match(value.strip()) else None


def _availability(mtype: dict) -> str | None:
    total, most = mtype.get("totalGpuFree"), mtype.get("maxGpuFree")
    if not _int(total):
        return None
    if not total:
        return "sold out (0 GPUs free)"
    return f"{total} GPUs free" + (f" (up to {most} on one host)" if _int(most) else "")


def parse_machine_types(text: str, url: str = MACHINE_TYPES) -> Parsed:
    """Offers of the machine-types answer (one GPU component price per type and data center)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    types = json_member(document, "machineTypes", list, url, parsed) if document is not None else None
    if types is None:
        return parsed
    if not types:
        parsed.error(f"{url}: no machine type in 'machineTypes'")
        return parsed
    problems: dict[str, list[str]] = {}
    cpu_only: list[str] = []
    for n, mtype in enumerate(types):
        if not isinstance(mtype, dict) or not all(isinstance(mtype.get(k), str) and mtype.get(k)
                                                  for k in ("dataCenterId", "machineType")):
            problems.setdefault("machine type(s) lack dataCenterId / machineType", []).append(f"#{n}")
            continue
        sku = f"{mtype['dataCenterId']}/{mtype['machineType']}"
        if not mtype.get("gpuModelId"):
            cpu_only.append(sku)
            continue
        label = mtype.get("gpuModel")
        if not isinstance(label, str) or not label.strip():
            problems.setdefault("GPU machine type(s) lack gpuModel", []).append(sku)
            continue
        foreign = stated_currency(mtype) or next(
            (f"{k}.{c}" for k in ("gpuPriceHr", "vcpuPriceHr", "memoryGibPriceHr")
             for c in [stated_currency(mtype.get(k))] if c), None)
        if foreign:
            problems.setdefault("machine type(s) state a currency other than USD", []).append(f"{sku} {foreign}")
            continue
        fields = dict(sku=sku, gpu_label=label.strip(), gpu_count=1, billing="on-demand", tier="gpu component",
                      region=mtype["dataCenterId"], currency="USD", price_unit="gpu_hour",
                      availability=_availability(mtype))
        price = _value(mtype.get("gpuPriceHr"))
        if price is None:
            raw = mtype.get("gpuPriceHr")
            raw = raw.get("value") if isinstance(raw, dict) else raw
            parsed.hold(f"gpuPriceHr.value is not a decimal USD price ({raw!r})", price_raw=raw, **fields)
            continue
        parsed.offer(price_raw=price if Decimal(price) else f"gpuPriceHr {price}", **fields)
        parts = [f"{what} {value} USD/{unit}" for key, what, unit in PARTS
                 for value in [_value(mtype.get(key))] if value is not None]
        if parts:
            parsed.facts.append({"fact": f"host_prices:{sku}", "value_num": None, "value_text": ", ".join(parts)})
    parsed.errors_by_problem(url, problems)
    if cpu_only:
        parsed.facts.append({"fact": "cpu_only_machine_types", "value_num": len(cpu_only),
                             "value_text": ", ".join(cpu_only[:10])})
    if not parsed.offers and not parsed.errors:
        parsed.error(f"{url}: no GPU machine type in 'machineTypes'")
    return parsed


class CudoSpider(PriceSpider):
    name = "cudo"
    allowed_domains = ["rest.compute.cudo.org"]
    pricing_url = MACHINE_TYPES
    family = "neocloud"
    robots = ("not applicable (rest.compute.cudo.org is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("Terms of Service (https://cudocompute.com/terms-of-service, stored copy 'Version dated: "
             "1 July 2024'): '1.4 Agreement to Terms: Accessing or using our Services constitutes your "
             "agreement to these Terms.'; no sentence on automated collection in the stored part. We read "
             "only the keyless machine-types list gpuhunt used, once a day.")
    cadence = "daily"
    unit = "USD per GPU-hour (GPU component; vCPU and RAM extra)"
    capture = "composed"
    source_urls = (MACHINE_TYPES,)
    # Its price is the GPU component alone (vCPU, RAM and disk are billed on top): not comparable
    # with the instance prices every "cheapest" claim and market mart compares, so it runs only
    # when asked by name (`pricewatch run --provider cudo`), and the endpoint's status since
    # gpuhunt dropped it (2026-06) is unknown.
    enabled_by_default = False

    page_parser = staticmethod(parse_machine_types)

    async def start(self):
        yield scrapy.Request(self.pricing_url, headers={"Accept": "application/json"}, callback=self.parse,
                             errback=self.request_failed)

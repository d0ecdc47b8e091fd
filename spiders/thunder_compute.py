"""Thunder Compute: the public pricing API joined with the specs API.

``/v1/pricing`` maps ``<gpu>_x<count>_<mode>`` to USD per instance-hour (mode: prototyping |
production); ``/v1/specs`` gives each key's display name, VRAM and GPU count. The v2 API drops
the mode from the key (``a6000_x1``); it is used when v1 is gone (404/410). Non-GPU keys
(``additional_vcpus``, ``disk_gb``, ...) are add-on rates, not offers.
"""

from __future__ import annotations

import re

import scrapy

from spiders.base import PriceSpider
from spiders.items import OfferItem

API = "https://api.thundercompute.com:8443"
GPU_KEY = re.compile(r"^(?P<gpu>[a-z0-9]+)_x(?P<count>\d+)(?:_(?P<mode>[a-z]+))?$")


class ThunderComputeSpider(PriceSpider):
    name = "thunder_compute"
    allowed_domains = ["api.thundercompute.com"]

    async def start(self):
        yield self._get("v1", "pricing", self.parse_pricing)

    def _get(self, version, what, callback, **kw):
        return scrapy.Request(f"{API}/{version}/{what}", callback=callback, errback=self.request_failed,
                              meta={"handle_httpstatus_list": [404, 410]} if what == "pricing" and version == "v1" else {},
                              cb_kwargs={"version": version, **kw})

    def parse_pricing(self, response, version):
        if response.status in (404, 410):
            if version == "v1":
                yield self._get("v2", "pricing", self.parse_pricing)
            return
        _, pricing = self.json_member(response, "pricing", dict)
        if pricing is None:
            return
        yield self._get(version, "specs", self.parse_specs, pricing=pricing,
                        pricing_capture=response.meta.get("capture"))

    def parse_specs(self, response, version, pricing, pricing_capture):
        _, specs = self.json_member(response, "specs", dict)
        if specs is None:
            return
        offers = 0
        for key, price in pricing.items():
            m = GPU_KEY.match(key)
            if not m:
                continue  # add-on rates: additional_vcpus, disk_gb, snapshot_gb, ...
            spec = specs.get(key)
            if spec is None:
                self.layout_error(f"{response.url}: pricing key {key!r} has no entry in specs")
                continue
            offers += 1
            yield OfferItem(
                provider=self.name, offer_key=key,
                gpu_label=spec.get("displayName") or m["gpu"],
                gpu_count=int(spec.get("gpuCount") or m["count"]),
                vram_gb=spec.get("vramGB"),
                billing="on-demand", tier=m["mode"] or spec.get("mode") or "on-demand",
                currency="USD", price_raw=price, price_unit="instance_hour",
                capture=pricing_capture,
            )
        if not offers:
            self.layout_error(f"{response.url}: pricing has no '<gpu>_x<count>[_<mode>]' keys")

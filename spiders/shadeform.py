"""Shadeform (aggregator): ``GET /v1/instances/types``, other clouds' instances re-published.

Every offer is tagged ``is_aggregator``, so it is stored and shown but never counted as a
provider of its own in "cheapest" claims (the warehouse's ``cheapest_offer`` excludes it).
``cloud`` is the underlying provider: it is the offer's tier and the start of its key
(``<cloud>:<shade_instance_type>@<region>``), so a Massed Compute 8x B200 bought through
Shadeform never looks like Massed Compute's own offer.

``hourly_price`` is in US CENTS per instance-hour (``configuration.num_gpus`` GPUs).
``configuration.gpu_type`` is the label, ``vram_per_gpu_in_gb`` its VRAM, ``interconnect``
its form factor. One offer per ``availability[]`` region, with ``available`` as availability.
"""

from __future__ import annotations

from decimal import Decimal

import scrapy

from spiders.base import PriceSpider
from spiders.items import OfferItem

TYPES = "https://api.shadeform.ai/v1/instances/types"


def form_factor(interconnect: str | None) -> str | None:
    value = (interconnect or "").lower()
    if "sxm" in value:
        return "SXM"
    if "pcie" in value:
        return "PCIe"
    return None


class ShadeformSpider(PriceSpider):
    name = "shadeform"
    allowed_domains = ["api.shadeform.ai"]
    is_aggregator = True

    async def start(self):
        yield scrapy.Request(TYPES, callback=self.parse, errback=self.request_failed)

    def parse(self, response):
        _, types = self.json_member(response, "instance_types", list)
        if types is None:
            return
        if not types:
            self.layout_error(f"{response.url}: 'instance_types' is empty")
        for entry in types:
            config = entry.get("configuration") or {}
            missing = [f for f in ("cloud", "shade_instance_type", "hourly_price") if entry.get(f) is None]
            missing += [f"configuration.{f}" for f in ("gpu_type", "num_gpus") if config.get(f) is None]
            if missing:
                self.layout_error(f"{response.url}: instance type {entry.get('shade_instance_type')!r} "
                                  f"of {entry.get('cloud')!r} lacks {', '.join(missing)}")
                continue
            if not config["num_gpus"]:
                continue  # CPU-only instance
            price = Decimal(str(entry["hourly_price"])) / 100  # cents -> dollars
            for where in entry.get("availability") or [{}]:
                region = where.get("region")
                yield OfferItem(
                    provider=self.name,
                    offer_key=f"{entry['cloud']}:{entry['shade_instance_type']}@{region or '-'}",
                    gpu_label=config["gpu_type"], gpu_count=int(config["num_gpus"]),
                    vram_gb=config.get("vram_per_gpu_in_gb") or None,
                    form_factor=form_factor(config.get("interconnect")),
                    billing="on-demand", tier=entry["cloud"], region=region, currency="USD",
                    price_raw=price, price_unit="instance_hour",
                    availability={True: "available", False: "unavailable"}.get(where.get("available"),
                                                                               "no region listed"),
                    is_aggregator=True,
                )

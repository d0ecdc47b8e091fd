"""Vast.ai: the public marketplace search (``/api/v0/bundles/``, GET with ``?q=<JSON>``, no key).

A marketplace: every host's listing is its own offer, so many offers per GPU are kept, each
keyed by the offer ``id``, billing ``marketplace``. ``dph_total`` is USD per hour for the whole
offer (``num_gpus`` GPUs, default storage included). ``gpu_ram`` is MiB per GPU; it is passed
as GB so the catalog can tell "A100 SXM4" 40 GB from 80 GB. Region is ``geolocation``.

Spot: ``min_bid`` is the floor of the interruptible auction for the same machine. It is
stored as a separate ``spot`` offer (tier ``interruptible``, key ``<id>:bid``), the price at
which the instance can be rented interruptibly at the time of the crawl.

A machine is sometimes listed twice for the same number of GPUs (two asks for the same
hardware): per ``machine_id`` + ``num_gpus`` only the cheapest listing is kept, and the
dropped ones are counted as duplicates in the crawl report.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import scrapy

from spiders.base import PriceSpider
from spiders.items import OfferItem

BUNDLES = "https://console.vast.ai/api/v0/bundles/"
# Every rentable, unrented on-demand offer, cheapest first (the API rejects `offset`, so one
# large page).
SEARCH = {"rentable": {"eq": True}, "rented": {"eq": False}, "type": "on-demand",
          "order": [["dph_total", "asc"]], "limit": 5000}
REQUIRED = ("id", "machine_id", "gpu_name", "num_gpus", "dph_total")


def search_url(query: dict = SEARCH) -> str:
    return BUNDLES + "?q=" + quote(json.dumps(query, separators=(",", ":")), safe="")


class VastaiSpider(PriceSpider):
    name = "vastai"
    allowed_domains = ["console.vast.ai"]

    async def start(self):
        yield scrapy.Request(search_url(), callback=self.parse, errback=self.request_failed)

    def parse(self, response):
        _, offers = self.json_member(response, "offers", list)
        if offers is None:
            return
        if not offers:
            self.layout_error(f"{response.url}: 'offers' is empty (search filter or API changed?)")
            return
        kept: dict[tuple, dict] = {}
        lacking: dict[str, int] = {}  # one message per missing field, not one per offer
        valid = 0
        for offer in offers:
            missing = [f for f in REQUIRED if offer.get(f) in (None, "")]
            for f in missing:
                lacking[f] = lacking.get(f, 0) + 1
            if missing:
                continue
            valid += 1
            machine = (offer["machine_id"], offer["num_gpus"])
            best = kept.get(machine)
            if best is None or (offer["dph_total"], offer["id"]) < (best["dph_total"], best["id"]):
                kept[machine] = offer
        for f, n in lacking.items():
            self.layout_error(f"{response.url}: {n} of {len(offers)} offers lack {f}")
        if valid > len(kept):
            self.crawler.stats.inc_value("pricewatch/duplicates_dropped", valid - len(kept))
        for offer in kept.values():
            yield from self._offers(offer)

    def _offers(self, offer):
        mib = offer.get("gpu_ram")
        common = dict(
            provider=self.name, gpu_label=offer["gpu_name"], gpu_count=int(offer["num_gpus"]),
            vram_gb=round(mib / 1024) if mib else None, region=offer.get("geolocation"),
            currency="USD", price_unit="instance_hour",
            availability="rentable" if offer.get("rentable") and not offer.get("rented") else "not rentable",
        )
        yield OfferItem(offer_key=str(offer["id"]), billing="marketplace", tier="on-demand",
                        price_raw=offer["dph_total"], **common)
        if offer.get("min_bid"):
            yield OfferItem(offer_key=f"{offer['id']}:bid", billing="spot", tier="interruptible",
                            price_raw=offer["min_bid"], **common)

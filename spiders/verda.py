"""Verda (formerly DataCrunch): the schema.org Offers in the pricing page's JSON-LD.

``https://verda.com/pricing`` carries ``<script type="application/ld+json">`` blocks; the one
with an ``@graph`` lists every price as ``{"@type":"Offer","name":"1x H100 SXM5 80GB on-demand",
"description":"Hourly on-demand instance price","price":3.81,"priceCurrency":"USD"}``. Other
blocks (Organization, BreadcrumbList) hold no offers.

The name is ``<N>x <GPU label> <kind>``; kind is on-demand, spot, instant cluster or
serverless <mode>. Unit: the page prices the named configuration per hour ("Hourly ...
instance price", "Hourly instant cluster price"), so the price is per instance-hour for N
GPUs: a 1x instance is one GPU (per instance = per GPU), an 8x instant cluster is one 8-GPU
node. Serverless offers are per container and not GPU rentals: skipped. Offers with a kind
but no GPU label (" on-demand") are CPU-only instances: skipped. The page repeats some offers
verbatim (featured grid + full list); the duplicate pipeline folds them.
"""

from __future__ import annotations

import json
import re

from spiders.base import PriceSpider
from spiders.items import OfferItem

NAME = re.compile(r"^\s*(?:(?P<count>\d+)x\s+)?(?P<label>.*?)\s*(?P<kind>on-demand|spot|instant cluster)\s*$", re.I)
KINDS = {  # kind in the name -> (billing, tier)
    "on-demand": ("on-demand", "on-demand"),
    "spot": ("spot", "spot"),
    "instant cluster": ("on-demand", "instant cluster"),
}


def offers_in(node):
    """Every schema.org Offer node, wherever the JSON-LD nests it (@graph, Product.offers, ...)."""
    if isinstance(node, list):
        for child in node:
            yield from offers_in(child)
    elif isinstance(node, dict):
        types = node.get("@type")
        if types == "Offer" or (isinstance(types, list) and "Offer" in types):
            yield node
            return
        for child in node.values():
            yield from offers_in(child)


class VerdaSpider(PriceSpider):
    name = "verda"
    allowed_domains = ["verda.com", "datacrunch.io"]
    pricing_url = "https://verda.com/pricing"

    def parse(self, response):
        blocks = response.xpath('//script[@type="application/ld+json"]/text()').getall()
        if not blocks:
            self.layout_error(f"{response.url}: no JSON-LD (<script type=\"application/ld+json\">) in the page")
            return
        offers = []
        for text in blocks:
            try:
                offers.extend(offers_in(json.loads(text)))
            except json.JSONDecodeError as exc:
                if '"Offer"' in text:  # a broken Organization block costs nothing; a broken offer list does
                    self.layout_error(f"{response.url}: JSON-LD block with offers is not valid JSON ({exc})")
        if not offers:
            self.layout_error(f"{response.url}: JSON-LD has no schema.org Offer nodes")
            return
        gpu_offers = 0
        for offer in offers:
            item = self.offer_item(response.url, offer)
            if item is not None:
                gpu_offers += 1
                yield item
        if not gpu_offers:
            self.layout_error(f"{response.url}: no JSON-LD Offer named '<N>x <GPU> on-demand|spot|instant cluster'")

    def offer_item(self, url: str, offer: dict) -> OfferItem | None:
        name = str(offer.get("name") or "")
        lowered = name.lower()
        if "serverless" in lowered:
            self.crawler.stats.inc_value("pricewatch/verda/serverless_skipped")
            return None
        m = NAME.match(name)
        if not m:
            return None  # storage and other non-compute offers carry no instance kind
        if not m["label"]:
            self.crawler.stats.inc_value("pricewatch/verda/cpu_only_skipped")
            return None
        if not m["count"]:
            self.layout_error(f"{url}: offer {name!r} has no leading '<N>x ' GPU count")
            return None
        kind = m["kind"].lower()
        description = str(offer.get("description") or "").lower()
        if description:
            said = [k for k in ("on-demand", "spot", "instant cluster") if k in description]
            if "hourly" not in description or (said and said != [kind]):
                self.layout_error(f"{url}: offer {name!r} is described as {offer['description']!r}, "
                                  f"expected an hourly {kind} price")
                return None
        currency = offer.get("priceCurrency")
        if not currency:
            self.layout_error(f"{url}: offer {name!r} has no priceCurrency")
            return None
        billing, tier = KINDS[kind]
        return OfferItem(
            provider=self.name, offer_key=name.strip(), gpu_label=m["label"], gpu_count=int(m["count"]),
            billing=billing, tier=tier, region=None, currency=currency,
            price_raw=offer.get("price"),
            # "per GPU" is never stated on this page today; if it ever is, believe it.
            price_unit="gpu_hour" if "per gpu" in description else "instance_hour",
            availability=offer.get("availability"),
        )

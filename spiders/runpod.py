"""RunPod: the public GraphQL API's ``gpuTypes`` (one POST, no API key).

Prices are per GPU-hour, one per tier: ``securePrice`` / ``communityPrice`` (on-demand) and
``secureSpotPrice`` / ``communitySpotPrice`` (spot). A tier the GPU is not offered in still
carries a placeholder (``securePrice: 0``, ``communityPrice: 0.5``) next to
``secureCloud`` / ``communityCloud`` = false: such a tier yields no offer at all. A spot
price of null or 0 means no spot offer in that tier.

GPU counts: a pod is priced per GPU, linearly, from 1 to ``maxGpuCount`` GPUs. We emit the
sizes the published pages compare (1, 2, 4 and 8 GPUs) that fit under ``maxGpuCount``, so an
8-GPU RunPod pod takes part in "cheapest 8x" comparisons at 8 x the per-GPU price.
Cluster, savings-plan and reserved fields (``clusterPrice``, ``threeMonthPrice``, ...) are
not read: the API does not say which tier or prepayment they belong to.
"""

from __future__ import annotations

import json

import scrapy

from spiders.base import PriceSpider
from spiders.items import OfferItem

API = "https://api.runpod.io/graphql"
# The fields of the recorded answers (the unused ones are kept as evidence for later analysis).
FIELDS = ("id displayName memoryInGb maxGpuCount secureCloud communityCloud securePrice communityPrice "
          "communitySpotPrice secureSpotPrice clusterPrice oneWeekPrice oneMonthPrice threeMonthPrice "
          "sixMonthPrice nodeGroupDatacenters { id name }")
QUERY = "{ gpuTypes { %s } }" % FIELDS
REQUIRED = ("id", "secureCloud", "communityCloud", "securePrice", "communityPrice")
GPU_COUNTS = (1, 2, 4, 8)
TIERS = (  # (tier, offered flag, on-demand price field, spot price field)
    ("secure", "secureCloud", "securePrice", "secureSpotPrice"),
    ("community", "communityCloud", "communityPrice", "communitySpotPrice"),
)


def form_factor(display_name: str | None) -> str | None:
    """The display name ("H200 SXM", "A100 PCIe") says the form factor the id may not."""
    words = (display_name or "").upper().split()
    for ff in ("SXM", "PCIE", "NVL"):
        if ff in words:
            return {"PCIE": "PCIe"}.get(ff, ff)
    return None


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


class RunpodSpider(PriceSpider):
    name = "runpod"
    allowed_domains = ["api.runpod.io"]

    async def start(self):
        # Replay serves by URL only; this is the crawl's single POST.
        yield scrapy.http.JsonRequest(API, data={"query": QUERY}, callback=self.parse,
                                      errback=self.request_failed)

    def parse(self, response):
        try:
            payload = json.loads(response.text)
        except ValueError as exc:
            self.layout_error(f"{response.url}: answer is not JSON ({exc})")
            return
        gpu_types = (payload.get("data") or {}).get("gpuTypes") if isinstance(payload, dict) else None
        if not isinstance(gpu_types, list):
            errors = "; ".join(e.get("message", "?") for e in (payload.get("errors") or [])
                               if isinstance(e, dict)) if isinstance(payload, dict) else ""
            self.layout_error(f"{response.url}: no data.gpuTypes list in the GraphQL answer"
                              + (f" (errors: {errors})" if errors else ""))
            return
        offered_tiers = priced_tiers = 0
        for gpu in gpu_types:
            missing = [f for f in REQUIRED if f not in gpu]
            if missing:
                self.layout_error(f"{response.url}: gpuType {gpu.get('id')!r} lacks {', '.join(missing)}")
                continue
            for tier, flag, price_field, spot_field in TIERS:
                if gpu[flag] is not True:
                    continue  # the tier's price is a placeholder (0, 0.5): not offered
                offered_tiers += 1
                od_price = gpu[price_field] if _positive(gpu[price_field]) else None
                priced_tiers += od_price is not None
                yield from self._offers(gpu, tier, "on-demand", od_price)
                if _positive(gpu.get(spot_field)):
                    yield from self._offers(gpu, tier, "spot", gpu[spot_field])
        if not offered_tiers:
            self.layout_error(f"{response.url}: no gpuType is offered in any tier "
                              "(secureCloud/communityCloud all false)")
        elif not priced_tiers:
            # Third-party code reports null prices for unauthenticated calls: that is not data.
            self.layout_error(f"{response.url}: gpuTypes carry no securePrice/communityPrice "
                              "(prices withheld?)")

    def _offers(self, gpu, tier, billing, price):
        max_count = gpu.get("maxGpuCount") or 1
        for count in GPU_COUNTS:
            if count > max_count:
                break
            yield OfferItem(
                provider=self.name, offer_key=f"{gpu['id']}:{tier}:{billing}:x{count}",
                gpu_label=gpu["id"], gpu_count=count, vram_gb=gpu.get("memoryInGb") or None,
                form_factor=form_factor(gpu.get("displayName")),
                billing=billing, tier=tier, currency="USD",
                # None for an offered tier without a price: stored unpriced, never as 0.
                price_raw=price, price_unit="gpu_hour",
            )

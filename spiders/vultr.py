"""Vultr: the public plans APIs (no auth): ``/v2/plans?type=all`` and ``/v2/plans-metal``.

Prices are per instance-hour: ``hourly_cost`` (on-demand) and, where present,
``hourly_cost_preemptible`` (billing spot, tier ``preemptible``). One offer per plan and
location (``locations[]``); a plan with no location is kept with availability "no location".

Cloud GPU plans (``type: vcg``) carry ``gpu_type`` ("NVIDIA_A100") and ``gpu_vram_gb``, the
VRAM of the whole plan. Vultr sells slices of a GPU (4 GB of an A100): a plan with less VRAM
than one whole GPU, or not a whole multiple of it, is not a GPU offer; it is skipped and
listed in the source fact ``fractional_gpu_plans`` rather than priced as a cheap "A100".
Bare-metal plans have no GPU fields: type and count are in the id
("vbm-112c-2048gb-8-h100-gpu" = 8x H100); an id that names a GPU but no count is not
guessed (source fact ``gpu_plans_without_count``). Plans without a GPU are skipped.
Pagination: ``meta.links.next`` is a cursor, sent back as ``&cursor=``.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import scrapy

from pricewatch.catalog import load_catalog
from spiders.base import PriceSpider
from spiders.items import OfferItem, SourceFactItem

API = "https://api.vultr.com/v2"
PLANS = f"{API}/plans?type=all&per_page=500"
METAL = f"{API}/plans-metal?per_page=500"
METAL_GPU_ID = re.compile(r"^vbm-.+?-(?:(?P<count>\d+)-)?(?P<gpu>[a-z0-9]+)-gpu$")
# Vultr's cloud-GPU A100 is the 80 GB part: its 4 GB plan costs about 1/20 of the 80 GB plan
# ($0.123 vs $2.397/h), so a "40vram" plan is half of an 80 GB A100, not an A100 40GB.
# Other GPU types take their VRAM from the catalog.
WHOLE_GPU_VRAM_GB = {"NVIDIA_A100": 80}
SKIPPED_FACT = {"plans": "fractional_gpu_plans", "plans_metal": "gpu_plans_without_count"}


class VultrSpider(PriceSpider):
    name = "vultr"
    allowed_domains = ["api.vultr.com"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.gpu_plans = 0
        self.skipped: dict[str, list[str]] = {"plans": [], "plans_metal": []}
        self.catalog = load_catalog()

    async def start(self):
        yield self._get(PLANS, "plans")

    def _get(self, url, field, first_url=None):
        return scrapy.Request(url, callback=self.parse_page, errback=self.request_failed,
                              cb_kwargs={"field": field, "first_url": first_url or url})

    def parse_page(self, response, field, first_url):
        data, plans = self.json_member(response, field, list)
        if plans is None:
            plans, data = [], {}
        for plan in plans:
            if field == "plans":
                yield from self._cloud_plan(response, plan)
            else:
                yield from self._metal_plan(response, plan)
        cursor = ((data.get("meta") or {}).get("links") or {}).get("next")
        if cursor:
            next_url = cursor if cursor.startswith("http") else f"{first_url}&cursor={quote(cursor, safe='')}"
            yield self._get(next_url, field, first_url)
            return
        if self.skipped[field]:  # one fact per endpoint (facts are unique per run and name)
            yield SourceFactItem(provider=self.name, fact=SKIPPED_FACT[field],
                                 value_num=len(self.skipped[field]), value_text="; ".join(self.skipped[field]))
        if field == "plans":
            yield self._get(METAL, "plans_metal")
        elif not self.gpu_plans:
            self.layout_error(f"{PLANS}, {METAL}: no GPU plan found (no gpu_type / gpu_vram_gb "
                              "on cloud plans, no '-<count>-<gpu>-gpu' bare-metal plan id)")

    def _cloud_plan(self, response, plan):
        gpu_type = plan.get("gpu_type")
        if not gpu_type:
            return  # vc2, vhf, vhp, voc ...: no GPU
        vram = plan.get("gpu_vram_gb")
        whole = WHOLE_GPU_VRAM_GB.get(gpu_type)
        if whole is None:
            match = self.catalog.resolve(gpu_type)
            whole = match.vram_gb if match else vram  # unknown type: kept as one GPU, reported
        if not vram or not whole:
            self.layout_error(f"{response.url}: GPU plan {plan.get('id')!r} lacks gpu_vram_gb")
            return
        count = round(vram / whole)
        if count < 1 or abs(count * whole - vram) > 0.1 * whole:
            self.skipped["plans"].append(
                f"{plan.get('id')}: {vram} GB of one {whole:g} GB {gpu_type} (${plan.get('hourly_cost')}/h)")
            return
        yield from self._offers(response, plan, gpu_type, count, vram / count)

    def _metal_plan(self, response, plan):
        m = METAL_GPU_ID.match(plan.get("id") or "")
        if not m:
            return  # bare metal without GPU
        if not m["count"]:
            self.skipped["plans_metal"].append(f"{plan['id']}: GPU count not in the plan id")
            return
        yield from self._offers(response, plan, m["gpu"], int(m["count"]), None)

    def _offers(self, response, plan, label, count, vram_gb):
        if "hourly_cost" not in plan:
            self.layout_error(f"{response.url}: GPU plan {plan.get('id')!r} lacks hourly_cost")
            return
        self.gpu_plans += 1
        prices = [("on-demand", "on-demand", "", plan["hourly_cost"])]
        if plan.get("hourly_cost_preemptible"):
            prices.append(("spot", "preemptible", ":preemptible", plan["hourly_cost_preemptible"]))
        for location in plan.get("locations") or [None]:
            for billing, tier, suffix, price in prices:
                yield OfferItem(
                    provider=self.name, offer_key=f"{plan['id']}@{location or '-'}{suffix}",
                    gpu_label=label, gpu_count=count, vram_gb=vram_gb, billing=billing, tier=tier,
                    region=location, currency="USD", price_raw=price, price_unit="instance_hour",
                    availability="available" if location else "no location",
                )

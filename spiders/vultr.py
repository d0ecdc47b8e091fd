"""Vultr: the public plans APIs (no auth): ``/v2/plans?type=all`` and ``/v2/plans-metal``.

Prices are USD per instance-hour: ``hourly_cost`` (on-demand) and, where present and above 0,
``hourly_cost_preemptible`` (billing spot, tier ``preemptible``). ``sku`` is the plan id.

**One offer per plan and tier, not per location.** ``locations[]`` lists where a plan can be
deployed; the price is the plan's, the same everywhere. The previous spider emitted one offer
per location, so a plan sold in two places counted twice (and weighed twice in every count of
offers) at one price. Now the locations go into ``availability`` ("locations: ord, sea", or
"no location" for a plan that is listed but orderable nowhere) and ``region`` stays empty.
Only a location whose ``location_cost`` entry states a different hourly price (Vultr's
per-location surcharge) is an offer of its own, with ``region`` set; a ``location_cost`` entry
without that hourly figure leaves the location out (source fact ``locations_without_hourly_price``).
``deploy_ondemand`` / ``deploy_preemptible`` = false: that tier cannot be ordered, so it is no
offer (source fact ``tiers_not_deployable``); answers without the flags offer both. One price
that is not a positive number ("N/A", -1), in a plan or a ``location_cost`` entry, or a plan
stating a currency other than USD, holds that offer (spiders/base.py Parsed.hold, the value
kept): the other plans, tiers and locations load. A renamed ``hourly_cost`` fails the page.

Cloud GPU plans (``type: vcg``) carry ``gpu_type`` ("NVIDIA_A100"), ``gpu_vram_gb`` (the VRAM
of the whole plan) and, in newer answers, ``gpu_count`` (a string, "1/4" for a slice). Vultr
sells slices of a GPU (4 GB of an A100): a plan whose count is a fraction, or, without a count,
whose VRAM is less than one whole GPU or not a whole multiple of it, is not a GPU offer; it is
skipped and listed in the source fact ``fractional_gpu_plans`` rather than priced as a cheap
"A100". A plan with a ``gpu_brand`` (other than "none") but no ``gpu_type`` (dedicated ``vdm``
plans) says neither GPU type nor count in fields: not guessed from the id, listed in
``gpu_plans_without_gpu_type``.

Bare-metal GPU plans: type and count in the id ("vbm-112c-2048gb-8-h100-gpu" = 8x H100). When
the plan also states ``gpu_type`` / ``gpu_count``, the stated type is the label (the id's
"l40" is an L40S) and a stated count that disagrees with the id is a layout error. An id that
names a GPU but no count, with no ``gpu_count``, is not guessed (``gpu_plans_without_count``).
Plans without a GPU are skipped. Pagination: ``meta.links.next`` is a cursor, sent back as
``&cursor=``; skipped-plan facts are merged over all pages.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from urllib.parse import quote

import scrapy

from pricewatch.record.catalog import load_catalog
from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency

API = "https://api.vultr.com/v2"
PLANS = f"{API}/plans?type=all&per_page=500"
METAL = f"{API}/plans-metal?per_page=500"
METAL_GPU_ID = re.compile(r"^vbm-.+?-(?:(?P<count>\d+)-)?(?P<gpu>[a-z0-9]+)-gpu$")
# Vultr's cloud-GPU A100 is the 80 GB part: its 4 GB plan costs about 1/20 of the 80 GB plan
# ($0.123 vs $2.397/h), so a "40vram" plan is half of an 80 GB A100, not an A100 40GB.
# Other GPU types take their VRAM from the catalog.
WHOLE_GPU_VRAM_GB = {"NVIDIA_A100": 80}
TIERS = (  # (billing, tier, price field, deploy flag)
    ("on-demand", "on-demand", "hourly_cost", "deploy_ondemand"),
    ("spot", "preemptible", "hourly_cost_preemptible", "deploy_preemptible"),
)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value) -> Fraction | None:
    """A stated ``gpu_count`` (8, "1", "1/4") as a number, or None when it is not one."""
    if _number(value):
        return Fraction(value).limit_denominator(1000) if value > 0 else None
    if isinstance(value, str) and re.fullmatch(r"\s*\d+(\s*/\s*\d+)?\s*", value):
        try:
            number = Fraction(value.replace(" ", ""))
        except ZeroDivisionError:
            return None
        return number if number > 0 else None
    return None


class _Reader:
    """What one plans document yields: offers, facts (skipped plans) and distinct problems."""

    def __init__(self, url: str):
        self.url = url
        self.parsed = Parsed()
        self.problems: dict[str, list[str]] = {}
        self.skipped: dict[str, list[str]] = {}

    def problem(self, message: str, plan_id) -> None:
        self.problems.setdefault(message, []).append(str(plan_id))

    def skip(self, fact: str, text: str) -> None:
        self.skipped.setdefault(fact, []).append(text)

    def offers(self, plan: dict, label: str, count: int, vram_gb) -> None:
        """The offers of one GPU plan: per tier, one for all locations at the plan's price and
        one per location whose ``location_cost`` states another hourly price."""
        plan_id = plan["id"]
        locations = plan.get("locations")
        if locations is None:
            locations = []
        if not isinstance(locations, list) or not all(isinstance(x, str) and x for x in locations):
            self.problem("locations is not a list of location ids", plan_id)
            return
        location_cost = plan.get("location_cost") or {}
        if not isinstance(location_cost, dict) or not all(isinstance(v, dict) for v in location_cost.values()):
            self.problem("location_cost is not an object of per-location prices", plan_id)
            return
        if "hourly_cost" not in plan:
            self.problem("GPU plan lacks hourly_cost", plan_id)
            return
        # One plan stating another currency, or one price that is not a positive number ("N/A",
        # -1, "$2.39"), holds that offer (spiders/base.py Parsed.hold, the value kept): the other
        # plans, tiers and locations load.
        foreign = stated_currency(plan)
        for billing, tier, field, flag in TIERS:
            price = plan.get(field)
            if price is None or (billing == "spot" and price == 0):
                continue   # no preemptible price: not offered
            deployable = plan.get(flag)
            if deployable not in (True, False, None):
                self.problem(f"{flag} is not true/false", plan_id)
                continue
            if deployable is False:
                self.skip("tiers_not_deployable", f"{plan_id}: {billing} (${price}/h, {flag} false)")
                continue
            common = dict(sku=plan_id, gpu_label=label, gpu_count=count, vram_gb=vram_gb, billing=billing,
                          tier=tier, currency="USD", price_unit="instance_hour")
            if foreign or not _number(price) or price <= 0:
                listed = list(dict.fromkeys(locations))
                self.parsed.hold(f"GPU plan states {foreign}; {field} is read as USD" if foreign else
                                 f"{field} unreadable: {price!r} is not a price", **common, region=None,
                                 price_raw=price,
                                 availability=f"locations: {', '.join(listed)}" if listed else "no location")
                continue
            base, own, held = [], {}, {}
            for location in dict.fromkeys(locations):   # de-duplicated, in order
                here = location_cost.get(location)
                if here is None or not here:
                    base.append(location)
                elif field not in here:
                    self.skip("locations_without_hourly_price",
                              f"{plan_id}@{location}: location_cost has no {field}")
                elif not _number(here[field]) or here[field] <= 0:
                    held[location] = here[field]
                elif here[field] == price:
                    base.append(location)
                else:
                    own[location] = here[field]
            if base or not (own or held):
                self.parsed.offer(**common, region=None, price_raw=price,
                                  availability=f"locations: {', '.join(base)}" if base else "no location")
            for location, value in own.items():
                self.parsed.offer(**common, region=location, price_raw=value, availability=f"locations: {location}")
            for location, value in held.items():
                self.parsed.hold(f"location_cost {field} unreadable: {value!r} is not a price", **common,
                                 region=location, price_raw=value, availability=f"locations: {location}")

    def cloud_plan(self, plan: dict) -> None:
        gpu_type = plan.get("gpu_type")
        plan_id = plan["id"]
        if not gpu_type:
            brand = plan.get("gpu_brand")
            if brand and str(brand).strip().lower() != "none":
                self.skip("gpu_plans_without_gpu_type",
                          f"{plan_id}: gpu_brand {brand}, no gpu_type/gpu_count (${plan.get('hourly_cost')}/h)")
            return   # vc2, vhf, vhp, voc ...: no GPU
        vram = plan.get("gpu_vram_gb")
        if vram is not None and not (_number(vram) and vram > 0):
            self.problem("gpu_vram_gb is not a size in GB", plan_id)
            return
        stated = plan.get("gpu_count")
        if stated is not None:
            count = _count(stated)
            if count is None:
                self.problem("gpu_count is not a GPU count", plan_id)
                return
            if count.denominator != 1:
                self.skip("fractional_gpu_plans", f"{plan_id}: gpu_count {stated} of one {gpu_type}"
                          f"{f' ({vram:g} GB)' if vram else ''} (${plan.get('hourly_cost')}/h)")
                return
            self.offers(plan, gpu_type, int(count), vram / int(count) if vram else None)
            return
        if not vram:
            self.problem("GPU plan lacks gpu_vram_gb and gpu_count", plan_id)
            return
        whole = WHOLE_GPU_VRAM_GB.get(gpu_type)
        if whole is None:
            match = load_catalog().resolve(gpu_type)
            whole = match.vram_gb if match else vram   # unknown type: kept as one GPU, reported
        count = round(vram / whole)
        if count < 1 or abs(count * whole - vram) > 0.1 * whole:
            self.skip("fractional_gpu_plans",
                      f"{plan_id}: {vram:g} GB of one {whole:g} GB {gpu_type} (${plan.get('hourly_cost')}/h)")
            return
        self.offers(plan, gpu_type, count, vram / count)

    def metal_plan(self, plan: dict) -> None:
        plan_id = plan["id"]
        m = METAL_GPU_ID.match(plan_id)
        gpu_type = plan.get("gpu_type")
        if not m and not gpu_type:
            brand = plan.get("gpu_brand")
            if brand and str(brand).strip().lower() != "none":
                self.skip("gpu_plans_without_gpu_type", f"{plan_id}: gpu_brand {brand}, no gpu_type, "
                          "no '-<gpu>-gpu' in the id")
            return   # bare metal without GPU
        id_count = int(m["count"]) if m and m["count"] else None
        count = None
        if plan.get("gpu_count") is not None:
            count = _count(plan["gpu_count"])
            if count is None or count.denominator != 1:
                self.problem("gpu_count is not a whole GPU count", plan_id)
                return
            count = int(count)
            if id_count is not None and count != id_count:
                self.problem("gpu_count disagrees with the GPU count in the plan id", plan_id)
                return
        count = count or id_count
        if not count:
            self.skip("gpu_plans_without_count", f"{plan_id}: GPU count not in the plan id")
            return
        vram = plan.get("gpu_vram_gb")
        vram_gb = vram / count if _number(vram) and vram > 0 else None
        self.offers(plan, gpu_type or m["gpu"], count, vram_gb)

    def finish(self) -> Parsed:
        for message, ids in self.problems.items():
            shown = ", ".join(repr(i) for i in ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            self.parsed.error(f"{self.url}: {message}: {shown}")
        for fact, entries in self.skipped.items():
            self.parsed.facts.append({"fact": fact, "value_num": len(entries), "value_text": "; ".join(entries)})
        return self.parsed


def _parse(text: str, url: str, member: str, read) -> Parsed:
    reader = _Reader(url)
    document = load_json(text, url, reader.parsed)
    plans = json_member(document, member, list, url, reader.parsed) if document is not None else None
    foreign = stated_currency(document) if plans is not None else None
    if foreign:
        reader.parsed.error(f"{url}: the answer states {foreign}; hourly_cost is read as USD")
        return reader.finish()
    for plan in plans or []:
        if not isinstance(plan, dict) or not isinstance(plan.get("id"), str) or not plan.get("id"):
            reader.problem("a plan is not an object with an id", "?")
            continue
        read(reader, plan)
    return reader.finish()


def parse_plans(text: str, url: str = PLANS) -> Parsed:
    """Offers of one page of the ``/v2/plans`` answer (cloud GPU plans; others skipped)."""
    return _parse(text, url, "plans", _Reader.cloud_plan)


def parse_plans_metal(text: str, url: str = METAL) -> Parsed:
    """Offers of one page of the ``/v2/plans-metal`` answer (GPU bare-metal plans)."""
    return _parse(text, url, "plans_metal", _Reader.metal_plan)


def next_page(text: str, first_url: str) -> str | None:
    """The URL of the next page (``meta.links.next``), or None on the last page."""
    try:
        document = json.loads(text)
    except ValueError:
        return None
    meta = document.get("meta") if isinstance(document, dict) else None
    links = meta.get("links") if isinstance(meta, dict) else None
    cursor = links.get("next") if isinstance(links, dict) else None
    if not cursor or not isinstance(cursor, str):
        return None
    return cursor if cursor.startswith("http") else f"{first_url}&cursor={quote(cursor, safe='')}"


PARSERS = {"plans": parse_plans, "plans_metal": parse_plans_metal}


class VultrSpider(PriceSpider):
    name = "vultr"
    allowed_domains = ["api.vultr.com"]
    family = "neocloud"
    robots = ("not applicable (api.vultr.com is an API host); no stored copy of its robots.txt found (searched"
              " the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt' and "
              "'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is obeyed at "
              "every crawl if served")
    terms = ("No stored copy of Vultr's terms found (searched the pages corpus 2026-12-02 for 'Vultr terms of "
             "service acceptable use policy API'; only a third-party app's terms came back). We read Vultr's "
             "documented public plans API (no key for plan lists).")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "composed"
    source_urls = (PLANS, METAL)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offer_count = 0
        self.error_count = 0
        self.facts: dict[str, list] = {}   # fact name -> [count, texts]
        self.seen_pages: set[str] = set()

    async def start(self):
        yield self._get(PLANS, "plans")

    def _get(self, url, field, first_url=None):
        self.seen_pages.add(url)
        return scrapy.Request(url, callback=self.parse_page, errback=self.request_failed,
                              cb_kwargs={"field": field, "first_url": first_url or url})

    def parse_page(self, response, field, first_url):
        parsed = PARSERS[field](response.text, response.url)
        self.offer_count += len(parsed.offers)
        self.error_count += len(parsed.errors)
        for fact in parsed.facts:   # facts are unique per run and name: merged over all pages
            merged = self.facts.setdefault(fact["fact"], [0, []])
            merged[0] += fact["value_num"]
            merged[1].append(fact["value_text"])
        parsed.facts = []
        yield from self.emit(parsed)
        following = next_page(response.text, first_url)
        if following in self.seen_pages:
            self.layout_error(f"{response.url}: meta.links.next points back to a page already read")
            following = None
        if following:
            yield self._get(following, field, first_url)
            return
        if field == "plans":
            yield self._get(METAL, "plans_metal")
            return
        facts = [{"fact": name, "value_num": num, "value_text": "; ".join(texts)}
                 for name, (num, texts) in self.facts.items()]
        yield from self.emit(Parsed(facts=facts))
        if self.offer_count or self.error_count:
            return
        if self.facts:
            self.layout_error(f"{PLANS}, {METAL}: no whole-GPU plan with a price (GPU plans skipped: "
                              f"{', '.join(sorted(self.facts))})")
        else:
            self.layout_error(f"{PLANS}, {METAL}: no GPU plan found (no gpu_type / gpu_vram_gb "
                              "on cloud plans, no '-<count>-<gpu>-gpu' bare-metal plan id)")

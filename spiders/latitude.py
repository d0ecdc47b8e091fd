"""Latitude.sh: the public pricing page ``www.latitude.sh/pricing``, its bare-metal plans in the
Next.js flight data.

Read from the real page (recorded 2026-08-22, ``tests/real/latitude/``). The plans are not in the
HTML markup: they are a JSON list in the React Server Components flight strings
(``self.__next_f.push([1,"…"])``, escaped as ``\\"``), whose joined text holds::

    "plansData":{"servers":[{"id":"plan_zrPm0dDg0KOw3","type":"plans","attributes":{
        "slug":"g4-b300-large","name":"g4.b300.large",
        "specs":{"cpu":{…},"memory":{…},"gpu":{"count":8,"type":"NVIDIA HGX B300","vram_per_gpu":288,
                                               "interconnect":"800Gbps Dual Plane RoCE"}},
        "regions":[{"name":"United States","locations":{"available":["DAL",…],"in_stock":[]},
                    "stock_level":"unavailable",
                    "pricing":{"USD":{"hour":128,"month":46720,"year":392448},
                               "BRL":{"hour":640,"month":233600,"year":1962240}}}, …],
        "available_operating_systems":[…]}}, …]}

So:

- one offer per GPU plan, region and currency: the ``hour`` price of the whole server (a node of
  ``specs.gpu.count`` GPUs): price unit ``instance_hour``, never divided here; ``sku`` = the plan
  slug, label = ``specs.gpu.type`` as printed, VRAM per GPU = ``vram_per_gpu``, tier ``bare metal``,
  region = the region's name. Every currency block of ``pricing`` is its own price list (USD and
  BRL today), kept in its currency, never converted; ``variant`` = the currency, so the USD and the
  BRL price of one server in one region are two offers, not a conflicting duplicate;
- ``month`` and ``year`` are per node-month / node-year (billing terms), not hourly prices: they
  are source facts ``node_month_price:<slug>@<region>#<currency>`` /
  ``node_year_price:…`` (the number as printed), never offers, never turned into an hourly price;
- a price that is ``null`` or ``0`` is no price: the region is not offered in that currency
  (g4-rtx6kpro-large's United Kingdom prints USD null and BRL 0: no offer; fact
  ``unpriced_regions:<slug>``). Any other value that is not a positive number ("N/A", "12,8", a
  negative number) holds that offer (spiders/base.py Parsed.hold, the value kept); the rest load;
- ``stock_level`` and the in-stock locations are the offer's ``availability``; a plan sold out
  everywhere ("unavailable") keeps its published price;
- CPU-only plans (``"gpu":{}``) are not offers (fact ``cpu_only_plans``, their count);
- layout errors (the provider fails): no flight data, no ``"plansData":{"servers":[``, a plan without
  ``attributes.slug`` / ``specs`` / ``regions``, a GPU spec without a whole ``count`` or a ``type``,
  a region without ``pricing``, a currency block without ``hour``, the same plan/region/currency
  with two prices;
- a plan cut off where the document ends (the flight string runs off the end: a recorded excerpt)
  is not an offer and not an error (fact ``plans_cut_off``); a plan that cannot be read anywhere
  else is a layout error.
"""

from __future__ import annotations

import re

from spiders.base import STRICT_JSON, Parsed, PriceSpider
from spiders.nextjs import read_flight_stream

PRICING = "https://www.latitude.sh/pricing"
SERVERS = '"plansData":{"servers":['
PLAN_START = re.compile(r'\{"id":"plan_')
CURRENCY = re.compile(r"^[A-Z]{3}$")
TERMS = ("month", "year")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _availability(region: dict) -> str | None:
    level = region.get("stock_level")
    locations = region.get("locations") if isinstance(region.get("locations"), dict) else {}
    listed, in_stock = locations.get("available") or [], locations.get("in_stock") or []
    parts = [f"stock {level}"] if level else []
    if listed:
        where = f"in stock at {', '.join(map(str, in_stock))}" if in_stock else "in stock at none"
        parts.append(f"{where} of {len(listed)} location{'s' if len(listed) != 1 else ''}")
    return "; ".join(parts) or None


def _plans(stream: str, start: int, truncated: bool, url: str, parsed: Parsed) -> tuple[list[dict], list[str]]:
    """The plan objects of one servers list from ``start`` (just after its "["), and the plans cut
    off where a truncated document ends (by the slug, when it is still readable)."""
    plans, cut, pos = [], [], start
    while True:
        while pos < len(stream) and stream[pos] in " \n\r\t":
            pos += 1
        if pos < len(stream) and stream[pos] == "]":
            return plans, cut
        try:
            plan, end = STRICT_JSON.raw_decode(stream, pos)
        except ValueError as exc:
            if truncated and not PLAN_START.search(stream, pos + 1):
                slug = re.match(r'\{"id":"[^"]*","type":"plans","attributes":\{"slug":"([^"]+)"', stream[pos:pos + 200])
                cut.append(slug.group(1) if slug else f"at offset {pos}")
                return plans, cut
            parsed.error(f"{url}: plan at offset {pos} of the flight data is not JSON we can read ({str(exc)[:80]})")
            return plans, cut
        plans.append(plan)
        if end < len(stream) and stream[end] == ",":
            pos = end + 1
        elif end < len(stream) and stream[end] == "]":
            return plans, cut
        elif end >= len(stream) and truncated:
            return plans, cut
        else:
            parsed.error(f"{url}: the servers list does not go on after a plan (offset {end})")
            return plans, cut


def parse_pricing(text: str, url: str = PRICING) -> Parsed:
    """Offers of the bare-metal plans in the pricing page's flight data (one per GPU plan, region
    and currency, per node-hour)."""
    parsed = Parsed()
    stream, truncated = read_flight_stream(text, url, parsed.error)
    if stream is None:
        return parsed
    starts = [m.end() for m in re.finditer(re.escape(SERVERS), stream)]
    if not starts:
        parsed.error(f"{url}: no plan list ('{SERVERS}') in the flight data")
        return parsed
    plans, cut = [], []
    for start in starts:
        more, cut_here = _plans(stream, start, truncated, url, parsed)
        plans += more
        cut += cut_here
    bad: dict[str, list[str]] = {}
    offers: dict[tuple, dict] = {}
    facts: dict[str, dict] = {}
    cpu_only: list[str] = []
    for n, plan in enumerate(plans):
        attributes = plan.get("attributes") if isinstance(plan, dict) else None
        slug = attributes.get("slug") if isinstance(attributes, dict) else None
        if not isinstance(slug, str) or not slug:
            bad.setdefault("plan(s) without attributes.slug", []).append(f"#{n}")
            continue
        specs, regions = attributes.get("specs"), attributes.get("regions")
        if not isinstance(specs, dict) or not isinstance(regions, list):
            bad.setdefault("plan(s) without a specs object and a regions list", []).append(slug)
            continue
        gpu = specs.get("gpu")
        if gpu in (None, {}):
            cpu_only.append(slug)
            continue
        count = gpu.get("count") if isinstance(gpu, dict) else None
        label = gpu.get("type") if isinstance(gpu, dict) else None
        if isinstance(count, bool) or not isinstance(count, int) or count < 1 or not isinstance(label, str) or not label:
            bad.setdefault("GPU spec(s) without a whole 'count' and a 'type'", []).append(slug)
            continue
        vram = gpu.get("vram_per_gpu")
        unpriced: list[str] = []
        for region in regions:
            name = region.get("name") if isinstance(region, dict) else None
            pricing = region.get("pricing") if isinstance(region, dict) else None
            if not isinstance(name, str) or not isinstance(pricing, dict):
                bad.setdefault("region(s) without a name and a pricing object", []).append(f"{slug}@{name}")
                continue
            priced = False
            for currency, prices in pricing.items():
                if not CURRENCY.match(str(currency)) or not isinstance(prices, dict) or "hour" not in prices:
                    bad.setdefault("price list(s) that are not '<currency>': {'hour': ...}",
                                   []).append(f"{slug}@{name}#{currency}")
                    continue
                for term in TERMS:
                    value = prices.get(term)
                    if _number(value) and value > 0:
                        facts.setdefault(f"node_{term}_price:{slug}@{name}#{currency}", dict(
                            fact=f"node_{term}_price:{slug}@{name}#{currency}", value_num=float(value),
                            value_text=f"{currency} per node-{term} ({count}x {label}), as printed: {value!r}"))
                hour = prices["hour"]
                if hour is None or (_number(hour) and hour == 0):
                    continue   # not offered in this currency
                fields = dict(sku=slug, gpu_label=label, gpu_count=count,
                              vram_gb=float(vram) if _number(vram) and vram > 0 else None,
                              billing="on-demand", tier="bare metal", region=name, variant=str(currency),
                              currency=str(currency), price_unit="instance_hour", price_raw=hour,
                              availability=_availability(region))
                priced = True
                if not (_number(hour) and hour > 0):
                    fields["_held"] = f"hour price unreadable: {hour!r} is not a positive number"
                key = (slug, name, currency)
                first = offers.setdefault(key, fields)
                if first is not fields and first["price_raw"] != fields["price_raw"]:
                    bad.setdefault("plan/region/currency listed twice with different prices", []).append(
                        f"{slug}@{name}#{currency} ({first['price_raw']!r} vs {fields['price_raw']!r})")
                    first["_conflict"] = True
            if not priced:
                unpriced.append(name)
        if unpriced:
            facts.setdefault(f"unpriced_regions:{slug}", dict(
                fact=f"unpriced_regions:{slug}", value_num=float(len(unpriced)),
                value_text="no hour price (null or 0) in any currency: " + ", ".join(unpriced)))
    for problem, where in bad.items():
        more = ", …" if len(where) > 3 else ""
        parsed.error(f"{url}: {len(where)} {problem} ({', '.join(where[:3])}{more})")
    for fields in offers.values():
        if fields.pop("_conflict", False):
            continue
        held = fields.pop("_held", None)
        if held:
            parsed.hold(held, **fields)
        else:
            parsed.offer(**fields)
    parsed.facts += facts.values()
    parsed.facts.append(dict(fact="cpu_only_plans", value_num=float(len(dict.fromkeys(cpu_only))),
                             value_text=", ".join(dict.fromkeys(cpu_only))))
    if cut:
        parsed.facts.append(dict(fact="plans_cut_off", value_num=float(len(cut)),
                                 value_text="cut off where the document ends: " + ", ".join(cut)))
    return parsed


class LatitudeSpider(PriceSpider):
    name = "latitude"
    allowed_domains = ["www.latitude.sh"]
    pricing_url = PRICING
    family = "neocloud"
    unit = "USD and BRL per node-hour (month and year prices kept as facts)"
    capture = "real"
    robots = ("no stored copy of www.latitude.sh/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Terms of service: not found in a stored public copy (searched 2026-12; only the compute SLA "
             "page https://www.latitude.sh/docs/slas/compute is stored, and it says nothing on automated "
             "access). We read only the public pricing page, once a day, with our contact User-Agent and "
             "robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

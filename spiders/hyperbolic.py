"""Hyperbolic: the public on-demand rental options (``GET /v2/alpha/on-demand/rental-options``).

The answer is a bare JSON list, one object per rental option (real recording 2026-08-29)::

    {"enabled":true,"costPerHourCents":319,"providerCostPerHourCents":111,"region":"us-east-1",
     "gpuCount":1,"gpuType":"h100","gpuFormFactor":"sxm5","connectionType":"ethernet",
     "ethernetVariant":"normal","machineType":"virtual-machine","nodes":[{"gpuCount":1,...}]}

* ``costPerHourCents`` is an integer in US CENTS for the whole option (``gpuCount`` GPUs) per
  hour: 2552 on an 8x H100 is $25.52/h, $3.19 per GPU-hour. A value that is not whole cents (a
  dollar figure such as 3.19) is a layout error, never read as 3 cents or $3.19 by guess.
  ``0`` is no price (an unpriced offer with its text), not a free GPU.
* ``providerCostPerHourCents`` is the supplier's cost, not the customer's price (and synthetic
  in the recording): never read.
* The GPU label is the type and form factor as the API gives them (``h100 sxm5``); the form
  factor is also stated apart (sxm5 -> SXM, pcie -> PCIe).
* One offer per option: region, the machine type as the tier (``virtual-machine`` /
  ``bare-metal``) and the network as the variant (``infiniband``, ``ethernet rocev2``; plain
  ethernet has none) tell options apart. ``totalAvailable``, where printed, is the availability.
* ``enabled: false`` options cannot be rented: no offer (source fact ``disabled_options``).
* The nodes' GPU counts must add up to ``gpuCount``. One option whose ``costPerHourCents`` is not
  a number ("N/A", -1), or which states a currency other than USD, is held (spiders/base.py
  Parsed.hold, the value kept); the other options load. An empty list is not an empty
  snapshot: it is a layout error.
"""

from __future__ import annotations

from decimal import Decimal

import scrapy

from spiders.base import Parsed, PriceSpider, load_json, stated_currency

RENTAL_OPTIONS = "https://api.hyperbolic.ai/v2/alpha/on-demand/rental-options"
FORM_FACTORS = {"sxm": "SXM", "pcie": "PCIe", "nvl": "NVL"}
REQUIRED = ("costPerHourCents", "gpuCount", "gpuType", "region")


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _form_factor(value) -> str | None:
    text = str(value or "").lower()
    return next((ff for prefix, ff in FORM_FACTORS.items() if text.startswith(prefix)), None)


def _variant(option: dict) -> str | None:
    connection = option.get("connectionType")
    flavour = option.get("ethernetVariant")
    if not connection:
        return None
    if connection == "ethernet" and flavour in (None, "normal"):
        return None
    return f"{connection} {flavour}" if flavour and flavour != "normal" else str(connection)


def parse_rental_options(text: str, url: str = RENTAL_OPTIONS) -> Parsed:
    """Offers of the rental-options answer (a JSON list of options)."""
    parsed = Parsed()
    options = load_json(text, url, parsed)
    if options is None:
        return parsed
    if not isinstance(options, list):
        parsed.error(f"{url}: expected a JSON list of rental options, found {type(options).__name__}")
        return parsed
    if not options:
        parsed.error(f"{url}: the list of rental options is empty")
        return parsed
    problems: dict[str, list[str]] = {}
    disabled: list[str] = []

    def problem(message: str, where: str) -> None:
        problems.setdefault(message, []).append(where)

    for n, option in enumerate(options):
        if not isinstance(option, dict):
            problem("an option is not an object", f"#{n}")
            continue
        where = f"#{n} {option.get('gpuType')} x{option.get('gpuCount')} @{option.get('region')}"
        missing = [f for f in REQUIRED if option.get(f) is None]
        if missing:
            problem(f"option(s) lack {', '.join(missing)}", where)
            continue
        count, cents = option["gpuCount"], option["costPerHourCents"]
        if not _int(count) or count < 1:
            problem("gpuCount is not a GPU count", where)
            continue
        # One option's price that is not a number of cents ("N/A", -1), or an option stating
        # another currency: that option is held (spiders/base.py Parsed.hold, the value kept), the
        # other options load. A number that is not whole cents is a unit change of the answer.
        held = None
        if isinstance(cents, bool) or not isinstance(cents, (int, float)) or cents < 0:
            held = f"costPerHourCents unreadable: {cents!r} is not a number of cents"
        elif cents != int(cents):
            problem("costPerHourCents is not whole cents (unit changed?)", f"{where}={cents}")
            continue
        foreign = stated_currency(option)
        if foreign:
            held = f"option states {foreign} (costPerHourCents is read as US cents)"
        nodes = option.get("nodes")
        if nodes is not None:
            node_gpus = [node.get("gpuCount") for node in nodes] if isinstance(nodes, list) and all(
                isinstance(node, dict) for node in nodes) else None
            if node_gpus is None or not all(_int(g) for g in node_gpus) or sum(node_gpus) != count:
                problem("the nodes' GPU counts do not add up to gpuCount", where)
                continue
        enabled = option.get("enabled", True)
        if enabled is not True:
            if enabled is False:
                disabled.append(where.split(" ", 1)[1])
                continue
            problem("enabled is not true/false", where)
            continue
        available = option.get("totalAvailable")
        form = option.get("gpuFormFactor")
        fields = dict(
            gpu_label=f"{option['gpuType']} {form}".strip() if form else str(option["gpuType"]),
            gpu_count=count, form_factor=_form_factor(form), billing="on-demand",
            tier=str(option.get("machineType") or "on-demand"), variant=_variant(option),
            region=str(option["region"]), currency="USD",
            price_raw=cents if held else Decimal(int(cents)) / 100 if cents else "costPerHourCents 0",
            price_unit="instance_hour",
            availability=f"{available} available" if _int(available) else None,
        )
        if held:
            parsed.hold(held, **fields)
        else:
            parsed.offer(**fields)
    parsed.errors_by_problem(url, problems)
    if disabled:
        parsed.facts.append({"fact": "disabled_options", "value_num": len(disabled),
                             "value_text": "; ".join(disabled)})
    return parsed


class HyperbolicSpider(PriceSpider):
    name = "hyperbolic"
    allowed_domains = ["api.hyperbolic.ai"]
    pricing_url = RENTAL_OPTIONS
    family = "neocloud"
    robots = ("not applicable (api.hyperbolic.ai is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("Hyperbolic Terms of Use (https://hyperbolic.xyz/terms, stored copy, 'Last Updated Date: "
             "September 4, 2024') apply 'TO THE HTTPS://HYPERBOLIC.XYZ WEBSITE AND ALL SUBDOMAINS THEREOF' and"
             ' to \'using any application programming interfaces ("API") that we make available\'; no clause on '
             "automated access in the stored excerpt (searched the pages corpus 2026-12-02 for 'Hyperbolic AI "
             "terms of service hyperbolic.xyz', 'hyperbolic.xyz terms you agree not to use robot spider "
             "scraper data mining'). We read only the public, anonymous rental-options API the dashboard uses,"
             " once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"
    unit = "US cents per instance-hour"
    capture = "real"

    page_parser = staticmethod(parse_rental_options)

    async def start(self):
        yield scrapy.Request(self.pricing_url, headers={"Accept": "application/json"}, callback=self.parse,
                             errback=self.request_failed)

"""Verda (formerly DataCrunch): the schema.org Offers in the pricing page's JSON-LD.

``https://verda.com/pricing`` carries a ``<script type="application/ld+json">`` element whose
``@graph`` holds every price as an Offer (recorded 2026-08-22, tests/real/verda)::

    {"@type":"Offer","name":"1x B300 SXM6 268GB on-demand","description":"Hourly on-demand
     instance price","price":7.5,"priceCurrency":"USD","priceSpecification":
     {"@type":"UnitPriceSpecification","price":7.5,"priceCurrency":"USD","unitText":"hour"}}

The name is ``<N>x <GPU label> <kind>``; the description says what the price is, and the two
must agree (:data:`KINDS`). The price is per hour of the named configuration: a "1x" instance
is one GPU, "104x B300 ... instant cluster" is $780 for 104 GPUs ($7.50 per GPU-hour),
"8x B200 ... serverless continuous" is $53.77 for an 8-GPU container. So every price is read
per instance-hour of ``N`` GPUs (for a 1x instance that is the GPU-hour).

What is an offer here:

* instances (``on-demand`` / ``spot``): billing and tier as named;
* ``instant cluster``: billed on demand, tier "instant cluster", self-service (priced per
  hour on the public page, no sales contact);
* serverless containers (``serverless continuous`` / ``serverless spot``): GPUs rented per
  container-hour, so kept as GPU offers, but with tier "serverless": a claim about the cheapest
  on-demand *instance* can leave them out by tier;
* not offers: storage ("Monthly storage price per GiB") and the CPU instances and CPU
  containers, whose names carry no GPU (``" on-demand"``, ``" serverless spot"``).

A description we do not know is a layout error for that offer kind, never a guess; so is a
unit other than "hour" in ``priceSpecification``. One offer whose price is not a positive
amount in its own ``priceCurrency`` ("N/A", "€7.50" in a USD offer, 0, null) is held
(spiders/base.py Parsed.hold, the value kept): the other offers load. The page repeats the H100 rows verbatim
(featured grid + full list): the duplicate pipeline folds them. Confidential-compute rows
("B200 CC SXM6 180GB") keep their label, so their key differs from the plain B200's.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, json_price, load_json

#: kind in the offer name -> (the description the page gives it, billing, tier)
KINDS = {
    "on-demand": ("Hourly on-demand instance price", "on-demand", "on-demand"),
    "spot": ("Hourly spot instance price", "spot", "spot"),
    "instant cluster": ("Hourly instant cluster price", "on-demand", "instant cluster"),
    "serverless continuous": ("Hourly serverless container price", "on-demand", "serverless"),
    "serverless spot": ("Hourly serverless spot container price", "spot", "serverless"),
}
#: Offers the page lists that are not GPU rentals, by description.
NOT_GPU = {"Monthly storage price per GiB"}

NAME = re.compile(r"^\s*(?:(?P<count>\d+)x\s+)?(?P<label>.*?)\s*(?P<kind>" +
                  "|".join(re.escape(k) for k in sorted(KINDS, key=len, reverse=True)) + r")\s*$", re.I)
VRAM = re.compile(r"(\d+(?:\.\d+)?)\s*GB\b", re.I)


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


def parse_pricing(text: str, url: str) -> Parsed:
    """The GPU offers of the pricing page's JSON-LD (see the module docstring)."""
    parsed = Parsed()
    blocks = Selector(text=text).xpath('//script[@type="application/ld+json"]/text()').getall()
    if not blocks:
        parsed.error(f"{url}: no JSON-LD (<script type=\"application/ld+json\">) in the page")
        return parsed
    offers, unreadable = [], False
    for block in blocks:
        read = Parsed()
        document = load_json(block, f"{url} JSON-LD", read)
        if document is None:
            if '"Offer"' in block:  # a broken Organization block costs nothing; a broken offer list does
                why = read.errors[0].split("(", 1)[-1].rstrip(")") if read.errors else "not valid JSON"
                parsed.error(f"{url}: JSON-LD block with offers is not readable ({why})")
                unreadable = True
            continue
        offers.extend(offers_in(document))
    if unreadable:
        return parsed   # nothing from a page whose offer list we could not read
    if not offers:
        parsed.error(f"{url}: JSON-LD has no schema.org Offer nodes")
        return parsed

    problems: dict[str, list[str]] = {}  # distinct problem -> offer names it applies to
    for offer in offers:
        name = str(offer.get("name") or "")
        description = " ".join(str(offer.get("description") or "").split())
        if description in NOT_GPU:
            continue
        m = NAME.match(name)
        if not m:
            problems.setdefault(f"offer(s) named with no kind we know (described as {description!r})",
                                []).append(name)
            continue
        kind = m["kind"].lower()
        expected, billing, tier = KINDS[kind]
        if description != expected:
            problems.setdefault(f"{kind} offer(s) described as {description!r}, not {expected!r}",
                                []).append(name)
            continue
        spec = offer.get("priceSpecification") if isinstance(offer.get("priceSpecification"), dict) else {}
        unit = spec.get("unitText")
        if unit is not None and str(unit).strip().lower() != "hour":
            problems.setdefault(f"{kind} offer(s) priced per {unit!r} (unitText), not per 'hour'",
                                []).append(name)
            continue
        if not m["label"]:
            continue  # a CPU instance or CPU container: no GPU in the name
        if not m["count"]:
            problems.setdefault("offer name(s) without a leading '<N>x ' GPU count", []).append(name)
            continue
        currency = offer.get("priceCurrency") or spec.get("priceCurrency")
        if not currency:
            problems.setdefault("offer(s) without priceCurrency", []).append(name)
            continue
        if spec.get("priceCurrency") not in (None, currency) or (
                "price" in spec and "price" in offer and spec["price"] != offer["price"]):
            problems.setdefault("offer(s) whose price/priceCurrency disagrees with priceSpecification",
                                []).append(name)
            continue
        vram = VRAM.search(m["label"])
        fields = dict(
            gpu_label=m["label"], gpu_count=int(m["count"]),
            vram_gb=float(vram[1]) if vram else None,
            billing=billing, tier=tier, self_service=True, currency=str(currency).strip(),
            price_raw=offer.get("price", spec.get("price")), price_unit="instance_hour",
        )
        raw, why = json_price(fields["price_raw"], fields["currency"].upper())
        if why:
            # one offer whose price is not a positive amount in its currency ("N/A", "€7.50" in a
            # USD offer, 0, null): that offer is held (spiders/base.py Parsed.hold, the value
            # kept), the other offers load
            parsed.hold(f"price unreadable: {why}", **fields)
        else:
            parsed.offer(**fields)
    for problem, names in problems.items():  # one message per distinct problem, the example last
        parsed.error(f"{len(names)} {problem}, e.g. {names[0]!r}")
    if not parsed.offers and not parsed.errors:
        parsed.error(f"{url}: none of the {len(offers)} JSON-LD Offers is a GPU offer '<N>x <GPU> <kind>'")
    return parsed


class VerdaSpider(PriceSpider):
    name = "verda"
    allowed_domains = ["verda.com", "datacrunch.io"]
    family = "neocloud"
    robots = ("no stored copy of verda.com/robots.txt found (searched the pages corpus 2026-12-02; it cannot "
              "be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt Disallow' found"
              " only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("DataCrunch's 'Friendly Guide to Our Terms of Service' "
             "(https://datacrunch.io/terms-and-conditions, stored copy, undated; it 'does not have legal "
             "power') asks customers to 'Use our services responsibly'; no clause on automated reading of the "
             "website (searched the pages corpus 2026-12-02 for 'Verda DataCrunch terms of service "
             "datacrunch.io'). We read the public pricing page (its JSON-LD offers), once a day, no login.")
    cadence = "daily"
    unit = "USD per hour of the named configuration"
    capture = "real"
    pricing_url = "https://verda.com/pricing"

    page_parser = staticmethod(parse_pricing)

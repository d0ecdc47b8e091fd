"""Oracle Cloud (OCI): the public price-list API, ``GET …/cetools/api/v1/products/?currencyCode=USD``.

One unpaginated answer ``{"lastUpdated": "2026-08-14T09:09:55.872Z", "items": [...]}`` (real
recordings 2026-08-22 and ≥ 2026-10-01), one item per price-list part::

    {"partNumber": "B98415", "displayName": "Oracle Cloud Infrastructure - Compute - GPU - H100",
     "metricName": "GPU Per Hour", "serviceCategory": "Compute - GPU",
     "currencyCodeLocalizations": [{"currencyCode": "USD",
                                    "prices": [{"model": "PAY_AS_YOU_GO", "value": 10}]}]}

What is an offer:

* items of service category ``Compute - GPU`` (and ``Compute - GPU - Other``): the price is the
  USD ``PAY_AS_YOU_GO`` value, per **GPU-hour** as ``metricName`` "GPU Per Hour" says (a GPU
  item with another metric is a unit change: layout error). billing on-demand, ``sku`` = the
  part number, GPU count 1 (the price list prices one GPU; OCI shapes bundle 1-8 of them).
* The GPU label is what follows "GPU - " in the display name ("H100", "A100 - v2", "MI355X";
  Oracle's own spacing slips such as "OCI- Compute" and "Compute  - GPU" are tolerated); a name
  with no such part (the "GPU Standard - X7" shape generations) is kept whole. Labels the catalog
  cannot know ("H100T", "E3", "E4", the X7/V2 generations) are stored as unknown labels, not
  guessed: Oracle's own stored documents do not tie these parts to a GPU (docs/catalog.md,
  "Oracle's part names").
* Not offers (source fact ``skipped_gpu_items``): NVIDIA AI Enterprise software licences (a
  per-GPU fee on top of the GPU), and everything outside those categories: Cloud@Customer
  (on-premises) GPU rows, VMware per-node commits, Roving Edge per-day devices, CPU parts.
* ``lastUpdated`` is the source fact ``price_list_updated``. An answer without ``items``, a GPU
  item without a USD pay-as-you-go price, or no GPU item at all is a layout error. One GPU
  item whose pay-as-you-go value is there but not a price ("N/A", -1) is held
  (spiders/base.py Parsed.hold, the value kept): the other items load.
"""

from __future__ import annotations

import re

from spiders.base import Parsed, PriceSpider, json_member, load_json

PRODUCTS = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD"
GPU_CATEGORIES = ("Compute - GPU", "Compute - GPU - Other")
UNIT = "GPU Per Hour"
LICENCE = re.compile(r"NVIDIA AI Enterprise", re.I)
GPU_PART = re.compile(r"\bGPU\s*(?:-|\.)\s*(?P<label>.+)$")


def gpu_label(display_name: str) -> str:
    """"Oracle Cloud Infrastructure - Compute - GPU - H100" -> "H100"; no "GPU - " part -> the name."""
    m = GPU_PART.search(display_name)
    return " ".join((m["label"] if m else display_name).split())


class Unreadable(str):
    """A PAY_AS_YOU_GO value that is there but not a price ("N/A", -1): that item is held."""

    value = None


def _payg_usd(item: dict):
    """The USD pay-as-you-go value, or a string saying what is missing (an :class:`Unreadable`
    when the value is there but is not a price)."""
    localizations = item.get("currencyCodeLocalizations")
    if not isinstance(localizations, list):
        return "no currencyCodeLocalizations list"
    usd = [loc for loc in localizations if isinstance(loc, dict) and loc.get("currencyCode") == "USD"]
    if len(usd) != 1 or not isinstance(usd[0].get("prices"), list):
        return "no USD prices" if not usd else "USD prices twice or not a list"
    payg = [p for p in usd[0]["prices"] if isinstance(p, dict) and p.get("model") == "PAY_AS_YOU_GO"]
    if len(payg) != 1:
        return "no PAY_AS_YOU_GO price" if not payg else "two PAY_AS_YOU_GO prices"
    value = payg[0].get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        why = Unreadable(f"PAY_AS_YOU_GO value unreadable: {value!r} is not a price")
        why.value = value
        return why
    return value


def parse_products(text: str, url: str = PRODUCTS) -> Parsed:
    """Offers of the price list's GPU items."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    items = json_member(document, "items", list, url, parsed) if document is not None else None
    if items is None:
        return parsed
    problems: dict[str, list[str]] = {}
    skipped: list[str] = []
    for n, item in enumerate(items):
        if not isinstance(item, dict) or not item.get("partNumber") or not isinstance(item.get("displayName"), str):
            problems.setdefault("item(s) without partNumber / displayName", []).append(f"#{n}")
            continue
        part, name = str(item["partNumber"]), item["displayName"]
        category, metric = item.get("serviceCategory"), item.get("metricName")
        if category not in GPU_CATEGORIES:
            if metric == UNIT:
                skipped.append(f"{part} {name} ({category})")
            continue
        if LICENCE.search(name):
            skipped.append(f"{part} {name} (software licence)")
            continue
        if metric != UNIT:
            problems.setdefault(f"GPU item(s) priced per {metric!r}, not {UNIT!r} (unit changed?)", []).append(part)
            continue
        price = _payg_usd(item)
        fields = dict(sku=part, gpu_label=gpu_label(name), gpu_count=1, billing="on-demand",
                      tier="pay as you go", currency="USD", price_unit="gpu_hour")
        if isinstance(price, Unreadable):
            # one item's value is not a price: that item is held (spiders/base.py Parsed.hold,
            # the value kept), the other items load
            parsed.hold(str(price), price_raw=price.value, **fields)
            continue
        if isinstance(price, str):
            problems.setdefault(f"GPU item(s) with {price}", []).append(part)
            continue
        parsed.offer(price_raw=price if price else f"PAY_AS_YOU_GO {price}", **fields)
    parsed.errors_by_problem(url, problems)
    if not parsed.offers and not parsed.errors:
        parsed.error(f"{url}: no item of service category {' / '.join(GPU_CATEGORIES)} priced {UNIT!r}")
    if skipped:
        parsed.facts.append({"fact": "skipped_gpu_items", "value_num": len(skipped), "value_text": "; ".join(skipped)})
    if isinstance(document.get("lastUpdated"), str):
        parsed.facts.append({"fact": "price_list_updated", "value_num": None, "value_text": document["lastUpdated"]})
    return parsed


class OracleCloudSpider(PriceSpider):
    name = "oracle_cloud"
    allowed_domains = ["apexapps.oracle.com"]
    pricing_url = PRODUCTS
    family = "hyperscaler"
    robots = ("not applicable (apexapps.oracle.com is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("No stored copy of Oracle's website Terms of Use found (searched the pages corpus 2026-12-02 for "
             "'Oracle website terms of use automated scraping oracle.com'; only other Oracle agreements came "
             "back). We read only Oracle's public price-list API (the one its cost estimator uses), one "
             "request a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"

    page_parser = staticmethod(parse_products)

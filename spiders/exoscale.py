"""Exoscale: the public price list, ``GET https://portal.exoscale.com/api/pricing/opencompute``.

No key ("PriceListURL is public and unauthenticated", a public cost tool's client; the price page
www.exoscale.com/pricing/ reads the same list). The answer is one object per currency, ``{"chf":
{...}, "eur": {...}, "usd": {...}}``, each mapping a price key to a decimal string per hour:
``running_<family>_<size>`` for an instance type ``<family>.<size>`` (``gpua5000.small`` ->
``running_gpua5000_small``; the standard family has no family part, ``running_medium``), and
storage, traffic and network keys (``volume``, ``traffic``, ``template`` ...). The list has no zone
dimension.

* We read the ``usd`` section (USD per instance-hour, the whole instance). In the one recording
  the three sections print the same figures, so the ``usd`` figures are not a conversion of the
  CHF ones; we never convert. A list without a ``usd`` object fails.
* GPU prices are the keys of the GPU families (``running_gpu...``). The list states no GPU model
  and no GPU count: those come from ``DOCUMENTED_TYPES`` below, one entry per instance type whose
  GPU and count we found stated by a public source (quoted there). A priced GPU type without such
  an entry is no offer (we do not guess a count from the price steps): it is told in the fact
  ``gpu_types_without_documented_gpus`` with its key, so nothing is lost silently.
* A price that is not a positive decimal string holds that offer; a list with no GPU family key
  at all, or with none of the documented types, fails (the layout changed).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from spiders.base import Parsed, PriceSpider, load_json

PRICE_LIST = "https://portal.exoscale.com/api/pricing/opencompute"
CURRENCY = "usd"
_GPU_KEY = re.compile(r"^running_(?P<family>gpu[a-z0-9]*)_(?P<size>[a-z_]+)$")

#: (family, size) -> (GPU label, GPU count, where the count and model are stated).
DOCUMENTED_TYPES = {
    ("gpua5000", "small"): (
        "RTX A5000", 1,
        "a public Exoscale client's note quoting the instance-type list: '\"family\": \"gpua5000\", "
        "\"size\": \"small\", \"cpus\": 4, \"gpus\": 1'; the family is Exoscale's A5000 GPU family"),
}


def _price(value) -> tuple[str | None, str | None]:
    """(the decimal string, None) for a positive decimal string, else (None, why not)."""
    try:
        number = Decimal(value) if isinstance(value, str) else None
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite() or number <= 0:
        return None, f"price {value!r} is not a positive decimal string"
    return value, None


def parse_price_list(text: str, url: str = PRICE_LIST) -> Parsed:
    """Offers of Exoscale's price list (the documented GPU instance types, USD per hour)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    if document is None:
        return parsed
    prices = document.get(CURRENCY) if isinstance(document, dict) else None
    if not isinstance(prices, dict):
        parsed.error(f"{url}: expected a JSON object with a '{CURRENCY}' object of prices")
        return parsed
    gpu_keys = {key: m for key in prices if (m := _GPU_KEY.match(key))}
    if not gpu_keys:
        parsed.error(f"{url}: no GPU instance price (running_gpu*) among {len(prices)} {CURRENCY} prices")
        return parsed
    undocumented = []
    for key, m in sorted(gpu_keys.items()):
        family, size = m["family"], m["size"]
        known = DOCUMENTED_TYPES.get((family, size))
        if known is None:
            undocumented.append(key)
            continue
        label, count, _source = known
        fields = dict(sku=f"{family}.{size}", gpu_label=label, gpu_count=count, billing="on-demand",
                      currency="USD", price_unit="instance_hour")
        raw, why = _price(prices[key])
        if why:
            parsed.hold(f"{key}: {why}", price_raw=prices[key], **fields)
        else:
            parsed.offer(price_raw=raw, **fields)
    if not parsed.offers:
        parsed.error(f"{url}: none of the documented GPU types ({', '.join(f'{f}.{s}' for f, s in DOCUMENTED_TYPES)})"
                     f" is in the {CURRENCY} prices")
    if undocumented:
        parsed.facts.append({"fact": "gpu_types_without_documented_gpus", "value_num": len(undocumented),
                             "value_text": ", ".join(undocumented)})
    return parsed


class ExoscaleSpider(PriceSpider):
    name = "exoscale"
    allowed_domains = ["portal.exoscale.com"]
    family = "neocloud"
    robots = ("unknown: no stored copy of portal.exoscale.com/robots.txt found (searched the pages corpus "
              "2026-12-02); robots.txt is obeyed at every crawl if served")
    terms = ("Exoscale Acceptable Use Policy (stored copy, 'Applicable starting October 12th, 2020', "
             "github.com/exoscale/terms) and End User Service Agreement (https://www.exoscale.com/eusa/, "
             "stored copy, 'Applicable starting January 16th, 2019') bind clients' use of the services; no "
             "clause on reading the public price list found (searched the pages corpus 2026-12-02 for "
             "'Exoscale terms of service acceptable use automated access'). We read only the public, "
             "unauthenticated price list the price page itself loads, once a day.")
    cadence = "daily"
    unit = "USD per instance-hour (the price list's usd section)"
    capture = "real"
    pricing_url = PRICE_LIST
    source_urls = (PRICE_LIST,)
    page_parser = staticmethod(parse_price_list)

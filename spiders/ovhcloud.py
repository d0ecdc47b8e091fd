"""OVHcloud: the public order catalog of Public Cloud, one price book per billing subsidiary.

``GET https://api.ovh.com/1.0/order/catalog/public/cloud?ovhSubsidiary=FR`` (the FR entity, EUR,
the whole GPU lineup) and ``GET https://api.us.ovhcloud.com/1.0/order/catalog/public/cloud?ovhSubsidiary=US``
(the separate US entity, USD, a smaller lineup; ``ovhSubsidiary=US`` is refused on api.ovh.com).
No key. The two entities publish different lineups and different prices: each book is read on
its own, in the currency its ``locale.currencyCode`` states (never converted), and its
``locale.subsidiary`` must be the one the URL asks for, or the book fails.

What is read, from ``addons`` (a list of addon objects; ``plans[].addonFamilies[].addons`` only
names them):

* GPU instances are the addons whose ``blobs.commercial.brick`` is ``"gpu"``. The brick, not the
  presence of a ``blobs.technical.gpu`` blob, is the fence: AI Deploy / AI Training addons carry a
  full GPU blob but are priced per minute (brick ``ai-serving``) and are not instance offers.
  A book without any GPU addon fails (the lineup or the brick vocabulary changed).
* GPU model, count and memory per GPU from ``blobs.technical.gpu`` (``model``, ``number``,
  ``memory.size``); a GPU addon without a model or a whole count is a layout error.
* The billing mode is the planCode's suffix: ``<flavor>.consumption`` is the hourly on-demand
  price of the whole instance (price_unit ``instance_hour``); ``<flavor>.monthly.postpaid`` is a
  monthly rate, not an hourly offer (not converted; counted in the fact ``monthly_plans``); any
  other suffix is counted in ``other_billing_modes``. ``intervalUnit`` is not trusted: the US book
  prints ``"none"`` / interval 0 on hourly rows.
* ``pricings[0].price`` is an integer in 1e-8 units of the book's currency (280000000 = 2.80):
  price_raw is that number / 1e8, exact. It must agree to the half-cent with the row's own
  ``formattedPrice`` display ("2.80 €", "$1.56 USD": rounded to cents): a row whose two figures
  disagree, whose display cannot be read, whose price is not an integer, or that has more than
  one pricing phase is held (unpriced, with the text), never rescaled. A price of 0 is an
  unpriced offer.
* ``win-*`` flavors (``blobs.technical.os.family`` "windows") are the same hardware with a Windows
  licence in the price: not GPU rental prices, counted in ``windows_flavors``.
* ``t1-le-*`` / ``t2-le-*`` are legacy variants of t1/t2, kept as their own offers (their own sku).
* ``blobs.tags`` "coming_soon" is the offer's availability ("coming soon"); the price is kept.
* ``sku`` = the flavor (planCode without its suffix), ``variant`` = the book ("FR subsidiary"),
  prices ex-VAT as the catalog states them (``locale.taxRate`` is not applied).

A planCode that appears twice in one book fails it.
"""

from __future__ import annotations

import re
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import scrapy

from spiders.base import Parsed, PriceSpider, load_json

BOOKS = {
    "FR": "https://api.ovh.com/1.0/order/catalog/public/cloud?ovhSubsidiary=FR",
    "US": "https://api.us.ovhcloud.com/1.0/order/catalog/public/cloud?ovhSubsidiary=US",
}
UNITS = Decimal(10) ** 8             # pricings[].price is in 1e-8 currency units
HALF_CENT = Decimal("0.005")
CONSUMPTION, MONTHLY = ".consumption", ".monthly.postpaid"
# One number with at most two decimals inside currency text: "2.80 €", "$1.56 USD", "0,70 €".
_SHOWN = re.compile(r"^[^0-9]*?(\d+(?:[.,]\d{1,2})?)[^0-9]*$")


def _subsidiary(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("ovhSubsidiary")
    return values[0].upper() if values else None


def _whole(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 1 and int(value) == value


def _price(addon: dict) -> tuple[object, str | None]:
    """(price_raw, None) of one consumption addon, or (the text printed, why it cannot be read)."""
    pricings = addon.get("pricings")
    if not isinstance(pricings, list) or len(pricings) != 1 or not isinstance(pricings[0], dict):
        n = len(pricings) if isinstance(pricings, list) else "no"
        return f"{n} pricing phases", f"{n} pricing phases (expected exactly one)"
    pricing = pricings[0]
    units, shown = pricing.get("price"), str(pricing.get("formattedPrice") or "")
    if isinstance(units, bool) or not isinstance(units, int):
        return f"price {units!r} ({shown!r})", f"price {units!r} is not an integer of 1e-8 currency units"
    if units == 0:
        return f"price 0 ({shown!r})", None            # not priced: stored unpriced, not held
    if units < 0:
        return f"price {units!r} ({shown!r})", f"price {units!r} is negative"
    m = _SHOWN.match(shown)
    if not m:
        return f"price {units} ({shown!r})", f"formattedPrice {shown!r} cannot be read to check the price"
    value = Decimal(units) / UNITS
    if abs(value - Decimal(m.group(1).replace(",", "."))) > HALF_CENT:
        return f"price {units} ({shown!r})", (f"price {units} (/1e8 = {value.normalize()}) disagrees with its "
                                              f"formattedPrice {shown!r}")
    return value, None


def parse_catalog(text: str, url: str = BOOKS["FR"]) -> Parsed:
    """Offers of one subsidiary's Public Cloud order catalog (hourly GPU instances)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    if document is None:
        return parsed
    if not isinstance(document, dict) or not isinstance(document.get("locale"), dict):
        parsed.error(f"{url}: expected a JSON object with a 'locale' object (the book's currency)")
        return parsed
    locale, wanted = document["locale"], _subsidiary(url)
    currency, subsidiary = locale.get("currencyCode"), locale.get("subsidiary")
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        parsed.error(f"{url}: locale.currencyCode {currency!r} is not a currency code")
        return parsed
    if wanted and subsidiary != wanted:
        parsed.error(f"{url}: the book says subsidiary {subsidiary!r}, the URL asks for {wanted!r}")
        return parsed
    addons = document.get("addons")
    if not isinstance(addons, list):
        got = type(addons).__name__ if "addons" in document else "nothing"
        parsed.error(f"{url}: expected an 'addons' list, found {got}")
        return parsed
    gpu = [a for a in addons if isinstance(a, dict)
           and ((a.get("blobs") or {}).get("commercial") or {}).get("brick") == "gpu"]
    if not gpu:
        parsed.error(f"{url}: no addon with blobs.commercial.brick 'gpu' among {len(addons)} addons")
        return parsed
    seen: set[str] = set()
    skipped: dict[str, list[str]] = {"monthly_plans": [], "windows_flavors": [], "other_billing_modes": []}
    book = f"{subsidiary} subsidiary"
    for addon in gpu:
        code = str(addon.get("planCode") or "").strip()
        if not code:
            parsed.error(f"{url}: a GPU addon without planCode")
            continue
        if code in seen:
            parsed.error(f"{url}: planCode {code!r} appears twice")
            continue
        seen.add(code)
        technical = (addon.get("blobs") or {}).get("technical") or {}
        card = technical.get("gpu") if isinstance(technical.get("gpu"), dict) else {}
        model, number = str(card.get("model") or "").strip(), card.get("number")
        if not model or not _whole(number):
            parsed.error(f"{url}: GPU addon {code} lacks blobs.technical.gpu.model / a whole gpu.number "
                         f"({model!r}, {number!r})")
            continue
        if code.endswith(MONTHLY):
            skipped["monthly_plans"].append(code)
            continue
        if not code.endswith(CONSUMPTION):
            skipped["other_billing_modes"].append(code)
            continue
        if (technical.get("os") or {}).get("family") == "windows":
            skipped["windows_flavors"].append(code)
            continue
        memory = (card.get("memory") or {}).get("size")
        tags = (addon.get("blobs") or {}).get("tags") or []
        fields = dict(sku=code[:-len(CONSUMPTION)], gpu_label=model, gpu_count=int(number),
                      vram_gb=float(memory) if _whole(memory) else None, billing="on-demand",
                      variant=book, currency=currency, price_unit="instance_hour",
                      availability="coming soon" if "coming_soon" in tags else None)
        raw, why = _price(addon)
        if why:
            parsed.hold(why, price_raw=raw, **fields)
        else:
            parsed.offer(price_raw=raw, **fields)
    for fact, codes in skipped.items():
        if codes:
            parsed.facts.append({"fact": f"{subsidiary.lower()}_{fact}", "value_num": len(codes),
                                 "value_text": ", ".join(sorted(codes))})
    return parsed


class OvhcloudSpider(PriceSpider):
    name = "ovhcloud"
    allowed_domains = ["api.ovh.com", "api.us.ovhcloud.com"]
    family = "neocloud"
    robots = ("not applicable (api.ovh.com is an API host); no stored copy of its robots.txt found (searched "
              "the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt' and "
              "'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is obeyed at "
              "every crawl if served")
    terms = ("Terms of service on automated collection: not found in a stored public copy (the stored "
             "OVHcloud US Service-Specific Terms, https://us.ovhcloud.com/legal/service-specific-terms/, "
             "effective 2026-04-01, say nothing about reading the public catalog). We read only the public, "
             "unauthenticated order-catalog API (two books), once a day.")
    cadence = "daily"
    unit = "per instance-hour, EUR (FR book) and USD (US book), ex-VAT"
    capture = "composed"
    source_urls = tuple(BOOKS.values())
    page_parser = staticmethod(parse_catalog)

    async def start(self):
        for url in BOOKS.values():
            yield scrapy.Request(url, headers={"Accept": "application/json"}, callback=self.parse,
                                 errback=self.request_failed)

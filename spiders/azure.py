"""Microsoft Azure: the public Retail Prices API (``prices.azure.com/api/retail/prices``, no key).

One query for every size of the GPU series (``spiders/instance_types.py`` AZURE_GPU_SERIES:
the ``armSkuName`` prefixes Standard_NC, Standard_ND, Standard_NG, Standard_NV), not for a fixed
list of sizes, so a size Azure adds (an ND GB200 v6 size, say) is requested and arrives: Linux
and Windows meters alike (the API cannot tell them apart in the filter), pay-as-you-go only:
``serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and (contains(armSkuName,
'Standard_NC') or contains(armSkuName, 'Standard_ND') or ...)`` (``contains`` on armSkuName, as
other public clients of the API query it; filter values are case-sensitive since api-version
2023-01-01-preview, and the names are written as the API prints them).
The answer is an envelope ``{"BillingCurrency", "CustomerEntityId", "CustomerEntityType",
"Items": [...], "NextPageLink", "Count"}``; ``NextPageLink`` (a whole URL, ``$skip=``) is followed
until it is null. A page whose ``Count`` is not its number of items, a link back to a page
already read, or a page that is not that envelope is a layout error.

Each item is one meter: ``armSkuName`` (``Standard_ND96isr_H100_v5``), ``armRegionName``,
``retailPrice`` (USD per VM-hour, ``unitOfMeasure`` "1 Hour", checked), ``meterName``,
``productName``, ``type``. What is an offer:

- ``meterName`` "... Spot" is billing ``spot``; "... Low Priority" (the legacy Batch/VMSS
  low-priority tier) is skipped; everything else is ``on-demand``;
- ``productName`` "... Windows" is a Windows licence meter: skipped (we compare Linux VMs);
- ``type`` other than "Consumption" (``DevTestConsumption``, ``Reservation``: a reservation's
  price is the whole term, not an hourly rate, though its ``unitOfMeasure`` still reads
  "1 Hour"), and any item that names a ``reservationTerm`` ("1 Year", "3 Years") whatever its
  ``type`` says, is not read as an hourly price: skipped, counted in the source fact
  ``non_consumption_meters``; a ``meterName`` / ``productName`` / ``skuName`` saying
  "Reservation" or "Reserved" likewise (a reservation is never an on-demand price);
- US Government regions (``usgov*``, ``usdod*``) are not open to the public: skipped;
- a ``currencyCode`` (or the envelope's ``BillingCurrency``) other than USD fails;
- a 0 price is no offer; a price that is not a number fails;
- the GPU model and count come from the size table; a fractional-GPU size (NVadsA10 v5 1/6,
  1/3, 1/2 of an A10) is known but no whole-GPU offer (source fact ``fractional_gpu_types``); a
  size of the GPU series not in the table is reported in the source fact
  ``unknown_instance_types`` and makes no offer (never guessed): news, not a failure; an item
  outside the GPU series (the filter's ``contains`` matching elsewhere) is not read.
One offer per size, region and billing; ``sku`` = armSkuName.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency
from spiders.instance_types import AZURE_GPU_SERIES, azure_fraction, azure_gpus

API = "https://prices.azure.com/api/retail/prices"
NOT_PUBLIC_REGIONS = ("usgov", "usdod")


def query_url(series=AZURE_GPU_SERIES) -> str:
    series_filter = " or ".join(f"contains(armSkuName, '{s}')" for s in series)
    flt = f"serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and ({series_filter})"
    return f"{API}?$filter={quote(flt, safe='')}"


URL = query_url()


def _billing(meter: str) -> str | None:
    if meter.endswith(" Low Priority"):
        return None
    return "spot" if meter.endswith(" Spot") else "on-demand"


def _page_name(url: str) -> str:
    """A page named in a readable line: the API path and its ``$skip`` (the filter is long)."""
    skip = re.search(r"[?&]\$skip=(\d+)", url)
    return f"{API} ({'$skip=' + skip[1] if skip else 'first page'})"


def parse_prices(text: str, url: str = URL) -> Parsed:
    """Offers of one page of the Retail Prices answer (its ``NextPageLink``: :func:`next_page`)."""
    parsed = Parsed()
    url = _page_name(url)
    document = load_json(text, url, parsed)
    items = json_member(document, "Items", list, url, parsed) if document is not None else None
    if items is None:
        return parsed
    if document.get("Count") != len(items):
        parsed.error(f"{url}: Count {document.get('Count')!r} but {len(items)} Items: a cut page")
        return parsed
    foreign = stated_currency(document, keys=("BillingCurrency",))
    if foreign:
        parsed.error(f"{url}: the answer states {foreign}; retailPrice is read as USD")
        return parsed
    problems: dict[str, list[str]] = {}
    facts: dict[str, list[str]] = {}
    for item in items:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in
                                                 ("armSkuName", "armRegionName", "meterName", "productName", "type")):
            problems.setdefault("an item lacks armSkuName/armRegionName/meterName/productName/type", []).append("?")
            continue
        sku, region, meter = item["armSkuName"], item["armRegionName"], item["meterName"]
        where = f"{sku}@{region} {meter!r}"
        term = item.get("reservationTerm")
        names = " ".join(str(item.get(k) or "") for k in ("meterName", "productName", "skuName")).lower()
        if item["type"] != "Consumption" or term or "reservation" in names or "reserved" in names:
            what = item["type"] if item["type"] != "Consumption" else "Consumption naming a reservation"
            facts.setdefault("non_consumption_meters", []).append(
                f"{where}: {what}" + (f" {term}" if term else ""))
            continue
        billing = _billing(meter)
        if (billing is None or "windows" in item["productName"].lower()
                or region.startswith(NOT_PUBLIC_REGIONS)):
            continue
        if item.get("unitOfMeasure") != "1 Hour":
            problems.setdefault(f"unitOfMeasure is not '1 Hour'", []).append(f"{where}: {item.get('unitOfMeasure')!r}")
            continue
        foreign = stated_currency(item, keys=("currencyCode",))
        if foreign:
            problems.setdefault("an item states another currency", []).append(f"{where}: {foreign}")
            continue
        price = item.get("retailPrice")
        if not isinstance(price, (int, float)) or isinstance(price, bool) or price < 0:
            problems.setdefault("retailPrice is not a price", []).append(f"{where}: {price!r}")
            continue
        if price == 0:
            continue
        gpus = azure_gpus(sku)
        if gpus is None:
            fraction = azure_fraction(sku)
            if fraction is not None:
                facts.setdefault("fractional_gpu_types", []).append(f"{sku} ({fraction.share} {fraction.label})")
            elif sku.startswith(AZURE_GPU_SERIES):
                facts.setdefault("unknown_instance_types", []).append(f"{sku} ({item['productName']})")
            continue
        parsed.offer(sku=sku, gpu_label=gpus.label, gpu_count=gpus.count, vram_gb=gpus.vram_gb,
                     billing=billing, tier=billing, region=region, currency="USD", price_raw=price,
                     price_unit="instance_hour")
    for message, where in problems.items():
        shown = ", ".join(where[:3]) + (f" and {len(where) - 3} more" if len(where) > 3 else "")
        parsed.error(f"{url}: {message}: {shown}")
    for fact, entries in facts.items():
        unique = list(dict.fromkeys(entries))
        parsed.facts.append({"fact": fact, "value_num": len(unique), "value_text": "; ".join(unique)})
    return parsed


def next_page(text: str) -> str | None:
    """``NextPageLink`` of a page, or None on the last one."""
    try:
        link = json.loads(text).get("NextPageLink")
    except (ValueError, AttributeError):
        return None
    return link if isinstance(link, str) and link else None


class AzureSpider(PriceSpider):
    name = "azure"
    allowed_domains = ["prices.azure.com"]
    pricing_url = URL

    family = "hyperscaler"
    robots = ("not applicable (prices.azure.com is an API host), read through its documented public API; no "
              "stored copy of its robots.txt found (searched the pages corpus 2026-12-02; it cannot be "
              "searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt Disallow' found "
              "only other sites' files); robots.txt is obeyed at every crawl if served")
    terms = ("Microsoft's web crawling policy "
             "(https://about.ads.microsoft.com/en-us/resources/policies/web-crawling, stored copy, undated): "
             "'Automated Web crawling and robotic activities from third parties are generally disallowed "
             "across our properties.' So we read only the Retail Prices API, Microsoft's documented public API"
             " for price lists (unauthenticated), never the portal or calculator pages. The Azure Services "
             "Terms (http://azure.microsoft.com/en-us/support/legal/services-terms/, stored copy, undated) are"
             " about using the Services (searched the pages corpus 2026-12-02 for 'Microsoft Azure terms of "
             "use website automated access', 'Microsoft Terms of Use website robots scraping').")
    cadence = "daily"
    unit = "USD per instance-hour (VM-hour)"
    capture = "real"
    source_urls = (API,)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen: set[str] = set()
        self.counts = {"offers": 0, "errors": 0}
        self.facts: dict[str, list[str]] = {}

    async def start(self):
        self.seen.add(URL)
        yield scrapy.Request(URL, callback=self.parse_page, errback=self.request_failed)

    def parse_page(self, response):
        parsed = parse_prices(response.text, response.url)
        self.counts["offers"] += len(parsed.offers)
        self.counts["errors"] += len(parsed.errors)
        for fact in parsed.facts:   # merged over all pages, emitted once at the end
            self.facts.setdefault(fact["fact"], []).extend(fact["value_text"].split("; "))
        parsed.facts = []
        yield from self.emit(parsed)
        link = next_page(response.text) if not parsed.errors else None
        if link and (link in self.seen or response.urljoin(link) in self.seen):
            self.layout_error(f"{_page_name(response.url)}: NextPageLink points back to a page already read")
            link = None
        if link:
            self.seen.add(link)
            yield scrapy.Request(link, callback=self.parse_page, errback=self.request_failed)
            return
        facts = [{"fact": name, "value_num": len(set(v)), "value_text": "; ".join(dict.fromkeys(v))}
                 for name, v in self.facts.items()]
        yield from self.emit(Parsed(facts=facts))
        if not self.counts["offers"] and not self.counts["errors"]:
            self.layout_error(f"{API}: no Linux pay-as-you-go meter of a known GPU VM size in any page")

"""Spheron: the public GPU offers list, ``GET app.spheron.ai/api/gpu-offers?page=N&limit=100``.

Spheron's API reference: "Get available GPU offers with filtering and pagination. Authenticate
to see team discounts." (the Authorization header is optional; we send none). The answer, as
Spheron's docs and the public clients that read it describe it (no real recording exists: the
shipped capture is COMPOSED, see captures/src/2026-06-03/spheron/exchanges.yaml)::

    {"data": [{"gpuType": "h100-sxm5", "displayName": "H100 SXM5", "totalAvailable": 2,
               "lowestPrice": 2.91, "highestPrice": 5.07, "providers": [...],
               "offers": [{"provider": "voltage-park", "offerId": "h100-sxm5-voltage-park-1",
                           "gpuCount": 1, "price": 5.07, "available": true, "maintenance": false,
                           "clusters": ["us-central-1"], "region": "us-central-1",
                           "gpu_memory": 80, "instanceType": "DEDICATED", ...}, ...]}, ...],
     "total": 6, "page": 1, "limit": 100, "totalPages": 1}

* Spheron re-sells capacity of other clouds (Voltage Park, DataCrunch, TensorDock, Sesterce,
  Massed Compute, and its own "spheron-ai"): every offer is ``is_aggregator``, ``variant`` the
  upstream ``provider``, ``sku`` the ``offerId``. One offer per offer object, its ``region``
  the offer's; ``clusters`` and ``available`` / ``maintenance`` are the ``availability``.
* ``price`` is the whole offer's price per hour (USD, "1 Credit = $1 USD"; the answer states
  no currency, and an offer stating another one is held): ``price_unit`` instance_hour, never
  divided here. The group aggregates (lowestPrice, highestPrice, averagePrice) are not offers.
* ``instanceType``: ``SPOT`` is billing ``spot``; ``DEDICATED``, ``BARE_METAL``, ``CLUSTER`` (and
  ``VM``) are on-demand, tier the type in words ("dedicated", "bare metal", ...). A spot offer's
  ``spot_price`` must equal its ``price`` (else the row is held); a ``spot_price`` on an
  on-demand offer is that offer's spot tier, a second offer. An instance type we do not know is
  a layout error (its billing cannot be read).
* A price of 0 or null is no price (the offer is kept unpriced); any other value that is not a
  positive number ("N/A", "$2.9.9", a bool) holds that offer (spiders/base.py Parsed.hold), the
  others load.
* Paging: the spider asks for ``page=1`` with ``limit=100`` and follows ``page`` until
  ``totalPages``; the answer's ``page`` must be the one asked for, and ``total`` must equal the
  GPU groups read over all pages. No ``data`` list (an error object), a first page with no group,
  a group without an ``offers`` list, or an offer without a positive ``gpuCount`` or an
  ``offerId`` are layout errors.
"""

from __future__ import annotations

import scrapy

from spiders.base import (Parsed, PriceSpider, json_member, json_price, load_json, price_value,
                          stated_currency)

API = "https://app.spheron.ai/api/gpu-offers"
LIMIT = 100
#: instanceType -> (billing, tier)
INSTANCE_TYPES = {"SPOT": ("spot", "spot"), "DEDICATED": ("on-demand", "dedicated"),
                  "BARE_METAL": ("on-demand", "bare metal"), "CLUSTER": ("on-demand", "cluster"),
                  "VM": ("on-demand", "vm")}


def page_url(page: int) -> str:
    return f"{API}?page={page}&limit={LIMIT}"


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _availability(offer: dict) -> str | None:
    clusters = offer.get("clusters")
    where = (" in " + ", ".join(str(c) for c in clusters)) if isinstance(clusters, list) and clusters else ""
    if offer.get("maintenance") is True:
        return "under maintenance" + where
    if offer.get("available") is True:
        return "available" + where
    if offer.get("available") is False:
        return "unavailable" + where
    return None


def parse_offers(text: str, url: str = API) -> Parsed:
    """Offers of one page of the GPU offers answer (one per offer object, plus the spot tier an
    on-demand offer states in ``spot_price``)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    groups = json_member(document, "data", list, url, parsed) if document is not None else None
    if groups is None:
        return parsed
    page, pages, total = document.get("page"), document.get("totalPages"), document.get("total")
    if not all(_int(v) for v in (page, pages, total)) or page < 1 or page > max(pages, 1):
        parsed.error(f"{url}: page {page!r} of {pages!r} ({total!r} GPU types) is not a page of the answer")
        return parsed
    if page == 1 and not groups:
        parsed.error(f"{url}: no GPU type in 'data'")
        return parsed
    bad: dict[str, list[str]] = {}
    for n, group in enumerate(groups):
        name = str(group.get("gpuType") or f"#{n}") if isinstance(group, dict) else f"#{n}"
        if not isinstance(group, dict) or not isinstance(group.get("offers"), list):
            bad.setdefault("GPU type without an 'offers' list", []).append(name)
            continue
        label = group.get("displayName") or group.get("gpuType")
        if not isinstance(label, str) or not label.strip():
            bad.setdefault("GPU type without a displayName or gpuType", []).append(name)
            continue
        for m, offer in enumerate(group["offers"]):
            problem = _offer(parsed, label.strip(), offer)
            if problem:
                where = str(offer.get("offerId")) if isinstance(offer, dict) and offer.get("offerId") else f"{name} #{m}"
                bad.setdefault(problem, []).append(where)
    for problem, names in bad.items():
        parsed.error(f"{url}: {problem} ({', '.join(repr(n) for n in names[:3])}"
                     f"{f' and {len(names) - 3} more' if len(names) > 3 else ''})")
    return parsed


def _offer(parsed: Parsed, label: str, offer) -> str | None:
    """Add one offer object's offers to ``parsed``; the layout problem, if any."""
    if not isinstance(offer, dict):
        return "an offer that is not an object"
    sku, count, kind = offer.get("offerId"), offer.get("gpuCount"), offer.get("instanceType")
    if not isinstance(sku, str) or not sku:
        return "an offer without an offerId"
    if not _int(count) or count < 1:
        return f"gpuCount is not a positive whole number ({count!r})"
    if kind not in INSTANCE_TYPES:
        return f"unknown instanceType {kind!r}"
    billing, tier = INSTANCE_TYPES[kind]
    memory = offer.get("gpu_memory")
    fields = dict(sku=sku, gpu_label=label, gpu_count=count,
                  vram_gb=float(memory) if isinstance(memory, (int, float)) and not isinstance(memory, bool)
                  and memory > 0 else None,
                  billing=billing, tier=tier, variant=str(offer.get("provider") or "") or None,
                  region=offer.get("region") if isinstance(offer.get("region"), str) and offer.get("region") else None,
                  currency="USD", price_unit="instance_hour", availability=_availability(offer),
                  is_aggregator=True)
    foreign = stated_currency(offer)
    if foreign:
        parsed.hold(f"offer states {foreign}; price is read as USD", price_raw=offer.get("price"), **fields)
        return None
    price, spot = offer.get("price"), offer.get("spot_price")
    if kind == "SPOT":
        if spot is not None and json_price(spot)[1] is None and json_price(price)[1] is None \
                and price_value(spot) != price_value(price):
            parsed.hold(f"spot offer priced {price!r} with spot_price {spot!r}", price_raw=price, **fields)
        else:
            _priced(parsed, price, "price", fields)
        return None
    _priced(parsed, price, "price", fields)
    if spot is not None:
        _priced(parsed, spot, "spot_price", {**fields, "billing": "spot", "tier": "spot"})
    return None


def _priced(parsed: Parsed, raw, field: str, fields: dict) -> None:
    """An offer priced by ``raw`` (a positive number), unpriced (0 / null), or held (anything else)."""
    value, why = json_price(raw)
    if why is None:
        parsed.offer(price_raw=value, **fields)
    elif raw is None or (isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw == 0):
        parsed.offer(price_raw=f"{field} {raw!r}", **fields)
    else:
        parsed.hold(f"{field} unreadable: {raw!r} ({why})", price_raw=raw, **fields)


class SpheronSpider(PriceSpider):
    name = "spheron"
    allowed_domains = ["app.spheron.ai"]
    pricing_url = page_url(1)
    source_urls = (page_url(1),)
    family = "aggregator"
    is_aggregator = True
    unit = "USD per instance-hour"
    capture = "composed"
    robots = ("not applicable (app.spheron.ai is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("No stored copy of Spheron's terms of service found (searched the pages corpus 2026-12-02 for "
             "'Spheron terms of service spheron.network'; only its airdrop terms, "
             "https://checker.spheron.network/terms). Spheron's API reference "
             "(https://docs.spheron.ai/api-reference, stored copy) documents GET /api/gpu-offers as callable "
             "without a key ('Authorization: Bearer <your-api-key> (optional)'; the docs' skill file: 'Without"
             " it, you can only list public GPU offers and providers'). We read only that public list, page by"
             " page, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.groups_read = 0

    async def start(self):
        yield self._get(1)

    def _get(self, page: int):
        return scrapy.Request(page_url(page), headers={"Accept": "application/json"}, callback=self.parse_page,
                              errback=self.request_failed, cb_kwargs={"page": page})

    def parse_page(self, response, page):
        parsed = parse_offers(response.text, response.url)
        yield from self.emit(parsed)
        if parsed.layout_errors:
            return
        document = load_json(response.text, response.url, Parsed())
        self.groups_read += len(document["data"])
        if document["page"] != page:
            self.layout_error(f"{response.url}: asked for page {page}, the answer is page {document['page']}")
        elif page < document["totalPages"]:
            yield self._get(page + 1)
        elif document["total"] != self.groups_read:
            self.layout_error(f"{API}: {self.groups_read} GPU types on {page} page(s) but total {document['total']}")

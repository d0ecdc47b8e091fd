"""Vast.ai: the public marketplace search (``/api/v0/bundles/``, GET with ``?q=<JSON>``, no key).

One query per GPU name, as the real recordings were taken (tests/real/vast, 2026-08-22)::

    {"gpu_name": {"eq": "H100 SXM"}, "rentable": {"eq": true}, "type": "on-demand",
     "order": [["dph_total", "asc"]], "limit": 8}

answered by ``{"offers": [{"id": 48285735, "machine_id": 148199, "gpu_name": "H100 SXM",
"num_gpus": 1, "gpu_ram": 81559, "dph_total": 1.3867407407407408, "min_bid": 0.4, ...}]}``.
The server clamps a page to 64 offers and rejects ``offset``: one "everything, limit 5000"
query returns the 64 cheapest offers of all GPUs, not the book. So the spider asks per GPU
name, cheapest first, and for a deep book also most expensive first (the multi-GPU boxes that
are cheap per GPU sit at the top of ``dph_total`` and are cut first from an ascending page).
:data:`QUERIES` is exactly the set of queries a real capture answers; every replayed URL must
be one of them.

What is an offer:

* each listing (its ``id``, the ``sku``) is its own offer: billing ``marketplace``, tier
  ``on-demand``, price ``dph_total`` = USD per hour for the whole listing (``num_gpus`` GPUs,
  default storage included), so per GPU = dph_total / num_gpus. The same machine listed with
  another GPU count is another offer (machine 146215: a 1x slice and the 8x box; machine 144888:
  2x and 4x B300); in the recordings no machine is listed twice with the same GPU count. The
  same ``id`` in both the ascending and the descending answer is one offer (the duplicate
  pipeline folds it).
* ``min_bid``, when present, is the floor of the interruptible auction for the same listing:
  a second offer, billing ``spot``, tier ``interruptible``, per hour of the whole listing. It is
  kept as read, also where it is above ``dph_total`` (offer 48370130: min_bid 19.2 vs 15.47);
  unlike ``dph_total`` it does not include storage.
* not offers: a listing that is not ``rentable`` or is ``rented``, and interruptible bids
  (``is_bid``), which are not asks.

``gpu_ram`` is MiB per GPU (81559 for an H100 80 GB); it is passed as is and read as its
nominal size by the pipeline. ``geolocation`` is the region, without the empty city part the
API prints for some hosts (", US" -> "US"). ``verification`` ("verified", "unverified",
"deverified") is kept in ``availability``: a deverified machine is still rentable.

Layout errors: an answer that is not ``{"offers": [...]}`` (an error object such as
``{"success": false, "error": ...}``, ``{"offers": null}``), an answer stating a currency other
than USD, offers lacking a required field (one message per field: a renamed ``dph_total`` is
missing from every offer), offers of another GPU than the one asked for (the ``gpu_name``
filter no longer holds). An empty ``offers`` list is an empty book, not an error. One listing
whose ``dph_total`` is there but not a positive USD amount ("N/A", -1, "€1.38"), or which states
another currency, is held (spiders/base.py Parsed.hold, the value kept): the others load.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, quote, urlsplit

import scrapy

from spiders.base import Parsed, PriceSpider, json_price, load_json, stated_currency

BUNDLES = "https://console.vast.ai/api/v0/bundles/"
#: (gpu_name, order, limit) of every query; the real 2026-08-22 capture answers exactly these.
#: A limit must stay at or below the server's page clamp (64 offers).
QUERIES = (
    ("H100 SXM", "asc", 8),
    ("H100 SXM", "desc", 8),
    ("B300", "asc", 8),
    ("H200 NVL", "asc", 4),
)
REQUIRED = ("id", "machine_id", "gpu_name", "num_gpus", "dph_total")


def search_query(gpu_name: str, order: str = "asc", limit: int = 8) -> dict:
    return {"gpu_name": {"eq": gpu_name}, "rentable": {"eq": True}, "type": "on-demand",
            "order": [["dph_total", order]], "limit": limit}


def search_url(gpu_name: str, order: str = "asc", limit: int = 8) -> str:
    return BUNDLES + "?q=" + quote(json.dumps(search_query(gpu_name, order, limit)), safe="")


def asked(url: str) -> tuple[str | None, str]:
    """The GPU name the URL's query filters on (None when it has none) and a short name of
    the query for messages (the URL itself is too long to read)."""
    try:
        q = json.loads(parse_qs(urlsplit(url).query).get("q", [""])[0])
        name = q["gpu_name"]["eq"]
        order = q.get("order", [["", ""]])[0][1]
        return name, f"bundles {name!r} {order} limit {q.get('limit')}"
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None, "bundles"


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _region(geolocation) -> str | None:
    if not isinstance(geolocation, str):
        return None
    parts = [p.strip() for p in geolocation.split(",") if p.strip()]
    return ", ".join(parts) or None


def parse_bundles(text: str, url: str) -> Parsed:
    """The offers of one bundles answer (see the module docstring)."""
    parsed = Parsed()
    gpu_name, what = asked(url)
    document = load_json(text, what, parsed)
    if document is None:
        return parsed
    if isinstance(document, dict) and document.get("success") is False:
        reason = " ".join(str(document.get(k)) for k in ("error", "msg") if document.get(k))
        parsed.error(f"{what}: the API answered an error ({reason[:100] or 'no reason given'})")
        return parsed
    offers = document.get("offers") if isinstance(document, dict) else None
    if not isinstance(offers, list):
        if not isinstance(document, dict):
            found = f"a JSON {'array' if isinstance(document, list) else type(document).__name__}"
        elif "offers" not in document:
            found = "no 'offers' member"
        else:
            found = "null" if offers is None else type(offers).__name__
        parsed.error(f"{what}: expected an 'offers' list, found {found}")
        return parsed
    document_currency = stated_currency(document)
    if document_currency:
        parsed.error(f"{what}: the answer states {document_currency} (dph_total is read as USD)")
        return parsed
    lacking: dict[str, int] = {}
    other_gpu = 0
    for offer in offers:
        if not isinstance(offer, dict):
            lacking["an object"] = lacking.get("an object", 0) + 1
            continue
        if offer.get("is_bid") is True or offer.get("rentable") is False or offer.get("rented") is True:
            continue  # a bid, or a listing nobody can rent now: not an offer
        missing = [f for f in REQUIRED if offer.get(f) in (None, "")]
        count = _number(offer.get("num_gpus"))
        if "num_gpus" not in missing and not (count and count >= 1 and count == int(count)):
            missing.append("num_gpus")
        for f in missing:
            lacking[f] = lacking.get(f, 0) + 1
        if missing:
            continue
        if gpu_name is not None and offer["gpu_name"] != gpu_name:
            other_gpu += 1
            continue
        verification = offer.get("verification")
        common = dict(
            sku=str(offer["id"]), gpu_label=str(offer["gpu_name"]), gpu_count=int(count),
            vram_gb=_number(offer.get("gpu_ram")), region=_region(offer.get("geolocation")),
            currency="USD", price_unit="instance_hour",
            availability="rentable" + (f", {verification}" if isinstance(verification, str) else ""),
        )
        # One listing's dph_total that is not a positive USD amount ("N/A", -1, "€1.38"), or a
        # listing stating another currency: that listing is held (spiders/base.py Parsed.hold,
        # the value kept), the other listings load.
        currency = stated_currency(offer)
        raw, why = json_price(offer["dph_total"])
        if currency or why:
            parsed.hold(f"dph_total unreadable: {why}" if not currency else
                        f"listing states {currency} (dph_total is read as USD)",
                        billing="marketplace", tier="on-demand", price_raw=raw, **common)
            if currency:
                continue   # its min_bid is in that currency too
        else:
            parsed.offer(billing="marketplace", tier="on-demand", price_raw=raw, **common)
        bid = _number(offer.get("min_bid"))
        if bid and bid > 0:
            parsed.offer(billing="spot", tier="interruptible", price_raw=offer["min_bid"], **common)
    for field_name, n in lacking.items():
        parsed.error(f"{what}: {n} of {len(offers)} offers lack a valid {field_name}")
    if other_gpu:
        parsed.error(f"{what}: {other_gpu} of {len(offers)} offers are not {gpu_name!r} "
                     f"(the gpu_name filter no longer holds)")
    return parsed


class VastaiSpider(PriceSpider):
    name = "vastai"
    allowed_domains = ["console.vast.ai"]
    family = "marketplace"
    robots = ("not applicable (console.vast.ai is an API host), read through its documented public search API;"
              " no stored copy of its robots.txt found (searched the pages corpus 2026-12-02; it cannot be "
              "searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt Disallow' found "
              "only other sites' files); robots.txt is obeyed at every crawl if served")
    terms = ("Vast.ai Terms of Use Agreement (https://vast.ai/terms, stored copy, 'Version Date: December "
             "15th, 2023') governs 'your access to and use of the https://vast.ai website'; its terms restrict "
             "automated scraping of the website, so we read only the documented public search API "
             "(console.vast.ai/api/v0/bundles, the one its own CLI uses), never the site's pages, once a day")
    cadence = "daily"
    unit = "USD per instance-hour (dph_total)"
    capture = "real"
    source_urls = ("https://console.vast.ai/api/v0/bundles/",)
    queries = QUERIES

    async def start(self):
        for gpu_name, order, limit in self.queries:
            yield scrapy.Request(search_url(gpu_name, order, limit), callback=self.parse,
                                 errback=self.request_failed)

    page_parser = staticmethod(parse_bundles)

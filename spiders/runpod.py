"""RunPod: the public GraphQL API's ``gpuTypes`` (one POST to https://api.runpod.io/graphql, no key).

Prices are USD per GPU-hour, one per surface: ``securePrice`` / ``communityPrice`` (on-demand,
tiers "secure" and "community") and ``secureSpotPrice`` / ``communitySpotPrice`` (spot, same
tiers). The API prints no unit; per GPU-hour is what RunPod's pricing page and every recorded
use of these fields say (tests/real/runpod/SOURCE.md).

A surface that does not offer the chip still carries a number:

* 0 or null: not offered (e.g. ``NVIDIA A100-SXM4-40GB`` securePrice 0, secureCloud false);
* 0.5 next to ``secureCloud`` / ``communityCloud`` = false: a placeholder. In the recorded
  answers that carry the flags, every tier flagged false holds 0 or 0.5 and no tier flagged
  true holds 0.5 (2026-08-25: MI300X communityPrice 0.5, communityCloud false; late-2025
  sample: B200, MI300X, RTX PRO 6000 WK communityPrice 0.5, communityCloud false).

When the flags are in the answer they decide. An answer without them (the answer to a query
that did not ask for them, such as the 2026-09-28 recording) cannot tell a placeholder 0.5
from a real $0.50, so there 0.5 is read as the placeholder: otherwise an H200 NVL "community"
at $0.50 (no such offer) would win every cheapest-H200-NVL comparison. The id ``unknown``
(all zeros) is RunPod's placeholder entry, not a GPU.

A price quoted as a string the USD answer reads unambiguously ("$2.39", "2.39") is the same
number; any other value of one field ("N/A", "€2.39", -1, "2.39/hr") holds that GPU's offers
of the surface (spiders/base.py Parsed.hold), the other GPUs load.

GPU counts: a pod costs the per-GPU price times its GPU count, from 1 to ``maxGpuCount``. When
the answer states ``maxGpuCount`` we emit the sizes the published pages compare (1, 2, 4, 8)
that fit under it; without it we do not know which sizes exist and emit 1-GPU offers only.
Cluster, savings-plan and reserved prices are not asked for: the API does not say which tier
or prepayment they belong to.
"""

from __future__ import annotations

import re

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, json_price, load_json, price_value, stated_currency

API = "https://api.runpod.io/graphql"
# Every field asked for is in the real 2026-08-25 answer (tests/real/runpod/gputypes.json).
# A field the server no longer knows makes the whole answer a GraphQL error, so nothing unread.
FIELDS = ("id displayName memoryInGb maxGpuCount secureCloud communityCloud "
          "securePrice communityPrice secureSpotPrice communitySpotPrice")
QUERY = "query { gpuTypes { %s } }" % FIELDS
REQUIRED = ("id", "securePrice", "communityPrice")
GPU_COUNTS = (1, 2, 4, 8)
TIERS = (  # (tier, offered flag, on-demand price field, spot price field)
    ("secure", "secureCloud", "securePrice", "secureSpotPrice"),
    ("community", "communityCloud", "communityPrice", "communitySpotPrice"),
)
PLACEHOLDER_PRICE = 0.5   # what a tier flagged not-offered carries (see above)
PLACEHOLDER_ID = "unknown"


def form_factor(gpu_id: str | None, display_name: str | None) -> str | None:
    """The form factor the id or display name states ("H200 SXM", "NVIDIA A100-SXM4-80GB",
    "NVIDIA B300 SXM6 AC", "A100 PCIe", "H100 NVL"): SXM, PCIe or NVL, else None."""
    words = re.split(r"[\s\-]+", f"{gpu_id or ''} {display_name or ''}".upper())
    for word in words:
        if re.fullmatch(r"SXM\d?", word):
            return "SXM"
    if "PCIE" in words:
        return "PCIe"
    if "NVL" in words:
        return "NVL"
    return None


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def graphql_errors(document) -> str | None:
    """The GraphQL ``errors`` of an answer as one short line, or None when there are none."""
    errors = document.get("errors") if isinstance(document, dict) else None
    if not errors:
        return None
    errors = errors if isinstance(errors, list) else [errors]
    first = errors[0].get("message") if isinstance(errors[0], dict) else errors[0]
    text = " ".join(str(first or "(no message)").split())
    text = text if len(text) <= 120 else text[:119].rstrip() + "…"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"GraphQL error: {text}{more}"


def parse_gpu_types(text: str, url: str = API) -> Parsed:
    """Offers of a ``gpuTypes`` answer: one per GPU type, tier, billing and GPU count."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    if document is None:
        return parsed
    error = graphql_errors(document)
    if error:
        parsed.error(f"{url}: {error}")
        return parsed
    data = document.get("data") if isinstance(document, dict) else None
    gpu_types = json_member(data, "gpuTypes", list, f"{url} data", parsed)
    if gpu_types is None:
        return parsed
    foreign = stated_currency(document) or stated_currency(data)
    if foreign:
        parsed.error(f"{url}: answer states {foreign}; gpuTypes prices are read as USD")
        return parsed
    problems: dict[str, list[str]] = {}   # distinct problem -> ids it applies to

    def problem(message: str, gpu_id) -> None:
        problems.setdefault(message, []).append(str(gpu_id))

    for gpu in gpu_types:
        if not isinstance(gpu, dict):
            problem("a gpuTypes entry is not an object", "?")
            continue
        missing = [f for f in REQUIRED if f not in gpu]
        if missing:
            problem(f"gpuType lacks {', '.join(missing)}", gpu.get("id"))
            continue
        if gpu["id"] == PLACEHOLDER_ID:
            continue
        foreign = stated_currency(gpu)
        if foreign:
            problem(f"gpuType states {foreign}; its prices are read as USD", gpu["id"])
            continue
        max_count = gpu.get("maxGpuCount")
        if max_count is not None and not (_number(max_count) and max_count >= 1):
            problem(f"maxGpuCount is not a GPU count ({max_count!r})", gpu["id"])
            continue
        counts = [c for c in GPU_COUNTS if c <= max_count] if max_count else [1]
        memory = gpu.get("memoryInGb")
        for tier, flag, price_field, spot_field in TIERS:
            offered = gpu.get(flag)   # True / False, or None when the query did not ask
            if offered not in (True, False, None):
                problem(f"{flag} is not true/false ({offered!r})", gpu["id"])
                continue
            if offered is False:
                continue
            for billing, field in (("on-demand", price_field), ("spot", spot_field)):
                price = gpu.get(field)
                if price is None or (_number(price) and price == 0):
                    continue   # 0 / null: not offered
                price, unreadable = json_price(price, "USD")
                value = price_value(price) if not unreadable else None
                if offered is None and value == PLACEHOLDER_PRICE:
                    continue   # 0.5 without a flag: the placeholder
                for count in counts:
                    fields = dict(gpu_label=gpu["id"], gpu_count=count,
                                  vram_gb=memory if _number(memory) and memory > 0 else None,
                                  form_factor=form_factor(gpu["id"], gpu.get("displayName")),
                                  billing=billing, tier=tier, currency="USD",
                                  price_raw=price, price_unit="gpu_hour")
                    if unreadable:   # this surface's price cannot be read: held, the others load
                        parsed.hold(f"{field} is not a price ({price!r}): {unreadable}", **fields)
                    else:
                        parsed.offer(**fields)
    for message, ids in problems.items():
        shown = ", ".join(repr(i) for i in ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        parsed.error(f"{url}: {message}: {shown}")
    if not parsed.offers and not parsed.errors:
        # Third-party code reports null prices for unauthenticated calls: that is not data.
        parsed.error(f"{url}: no gpuType has a securePrice/communityPrice above 0 (prices withheld?)")
    return parsed


class RunpodSpider(PriceSpider):
    name = "runpod"
    allowed_domains = ["api.runpod.io"]
    family = "neocloud"
    robots = ("not applicable (api.runpod.io is an API host); no stored copy of its robots.txt found (searched"
              " the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt' and "
              "'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is obeyed at "
              "every crawl if served")
    terms = ("RunPod Terms of Use (https://www.runpod.io/legal/disclaimer, stored copy, undated) concern 'your"
             " access to and use of the runpod.io website and its subdomains'; no clause on automated access "
             "in the stored excerpt (searched the pages corpus 2026-12-02 for 'RunPod terms of service "
             "scraping automated', 'RunPod Terms of Use prohibited activities systematically retrieve data "
             "automated use of the system scripts'). We read RunPod's public GraphQL API (gpuTypes), no key, "
             "one query a day.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"
    source_urls = (API,)

    async def start(self):
        # The crawl's single POST. Replay serves by URL only (pricewatch/archive.ReplayIndex).
        yield scrapy.http.JsonRequest(API, data={"query": QUERY}, callback=self.parse,
                                      errback=self.request_failed)

    page_parser = staticmethod(parse_gpu_types)

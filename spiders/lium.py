"""Lium (Bittensor subnet 51): the public machine book, ``GET https://lium.io/api/executors``.

The answer is a bare JSON list, one object per executor (a miner's machine), real recording
2026-08-22 (an excerpt: 17 of 86 rows, each row's bulky ``specs`` pruned to ``is_spot``)::

    {"id":"42ef8a0b-…","machine_name":"NVIDIA B300 SXM6 AC","price_per_gpu":7.97,
     "pending_price_per_hour":null,"price_change_effective_date":null,"gpu_count":8,
     "available_gpu_count":8,"specs":{"is_spot":false},"location":{"country_code":"US",…},
     "tier":"secure","min_gpu_count_for_rental":null,…}

* A marketplace: each executor is its own offer (``sku`` = the executor id), billing
  ``marketplace`` with the row's ``tier`` ("secure"); a spot row (``tier`` "spot", and
  ``specs.is_spot`` true) is billing ``spot``, tier ``spot``. The two must agree.
* ``price_per_gpu`` is USD per GPU-hour (no currency field; lium.io prints "$"), the whole
  machine being ``gpu_count`` GPUs. Miner-set prices carry float residue (``8.000300000000001``)
  and are kept as printed. 0 or a missing price is no price (unpriced, with its text).
* ``pending_price_per_hour`` / ``price_change_effective_date`` announce a future change: never
  the current price, not stored.
* ``available_gpu_count`` and ``min_gpu_count_for_rental`` go into ``availability``; the region is
  the location's country code.
* Layout errors: an answer that is not a list, an empty book, rows lacking a field, tier and
  ``is_spot`` disagreeing. One row whose price is not a number ("$0.33/hr", -1), or which
  states a currency other than USD, is held (spiders/base.py Parsed.hold, the value kept): the
  other rows load.
"""

from __future__ import annotations

from spiders.base import Parsed, PriceSpider, load_json, stated_currency

EXECUTORS = "https://lium.io/api/executors"
REQUIRED = ("id", "machine_name", "gpu_count", "tier")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _availability(row: dict) -> str | None:
    free, least = row.get("available_gpu_count"), row.get("min_gpu_count_for_rental")
    parts = []
    if _number(free):
        parts.append(f"{free:g} of {row['gpu_count']} GPUs free")
    if _number(least):
        parts.append(f"rentable from {least:g} GPU{'s' if least != 1 else ''}")
    return "; ".join(parts) or None


def parse_executors(text: str, url: str = EXECUTORS) -> Parsed:
    """Offers of the executors answer (one per machine listed)."""
    parsed = Parsed()
    rows = load_json(text, url, parsed)
    if rows is None:
        return parsed
    if not isinstance(rows, list):
        parsed.error(f"{url}: expected a JSON list of executors, found {type(rows).__name__}")
        return parsed
    if not rows:
        parsed.error(f"{url}: the list of executors is empty")
        return parsed
    problems: dict[str, list[str]] = {}

    def problem(message: str, where: str) -> None:
        problems.setdefault(message, []).append(where)

    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            problem("an executor is not an object", f"#{n}")
            continue
        where = str(row.get("id") or f"#{n}")[:8]
        missing = [f for f in REQUIRED if row.get(f) in (None, "")]
        if "price_per_gpu" not in row:
            missing.append("price_per_gpu")
        if missing:
            problem(f"executor(s) lack {', '.join(missing)}", where)
            continue
        count, price = row["gpu_count"], row["price_per_gpu"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            problem("gpu_count is not a GPU count", where)
            continue
        # One row's price that is not a number ("$0.33/hr", -1), or a row stating another
        # currency: that listing is held (spiders/base.py Parsed.hold, the value kept), the other
        # rows load.
        held = None
        if price is not None and (not _number(price) or price < 0):
            held = f"price_per_gpu unreadable: {price!r} (not a number of USD)"
        foreign = stated_currency(row)
        if foreign:
            held = f"executor states {foreign} (price_per_gpu is read as USD)"
        tier = str(row["tier"])
        specs = row.get("specs") if isinstance(row.get("specs"), dict) else {}
        is_spot = specs.get("is_spot")
        if is_spot not in (None, True, False) or (is_spot is not None and is_spot != (tier == "spot")):
            problem("tier and specs.is_spot disagree", f"{where} tier={tier!r} is_spot={is_spot!r}")
            continue
        location = row.get("location") if isinstance(row.get("location"), dict) else {}
        fields = dict(
            sku=str(row["id"]), gpu_label=str(row["machine_name"]), gpu_count=count,
            billing="spot" if tier == "spot" else "marketplace", tier=tier,
            region=location.get("country_code") or None, currency="USD",
            price_raw=price if price or held else f"price_per_gpu {price}", price_unit="gpu_hour",
            availability=_availability(row),
        )
        if held:
            parsed.hold(held, **fields)
        else:
            parsed.offer(**fields)
    parsed.errors_by_problem(url, problems)
    return parsed


class LiumSpider(PriceSpider):
    name = "lium"
    allowed_domains = ["lium.io"]
    pricing_url = EXECUTORS
    family = "marketplace"
    robots = ("no stored copy of lium.io/robots.txt found (searched the pages corpus 2026-12-02; it cannot be "
              "searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt Disallow' found "
              "only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of Lium's terms found (searched the pages corpus 2026-12-02 for 'lium.io terms of"
             " service'). We read only the public, anonymous executors API that lium.io's own marketplace page"
             " calls, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"

    page_parser = staticmethod(parse_executors)

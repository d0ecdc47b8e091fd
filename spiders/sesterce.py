"""Sesterce (aggregator): the live offers book of the public console page ``cloud.sesterce.com/compute``.

The console's compute page (a plain GET, no account) is a Next.js page that server-renders the
whole offers book into its React Server Components flight data (``self.__next_f.push([1,"…"])``
strings, escaped as ``\\"``); the joined text holds, in the props of the offers list::

    "filteredOffers":[{"gpuName":"H200","gpuCount":8,"spotOfferAvailable":false,"hourlySpotPrice":0,
      "hourlyPrice":28.16,"configuration":{"ramGB":1904,"storageGB":30000,"vCpu":208,"vRamGB":1128,
      "os":[…],"interconnect":"sxm5"},"nvlink":true,
      "availability":[{"name":"tokyo-japan-5","region":"tokyo-japan-5","countryCode":null,"available":true}],
      "deploymentType":"vm","cloudInitAvailable":false,"cloud":{"_id":"…","name":"AZ_22"},
      "instanceId":"H200x8"}, …]

(real recording 2026-08-25, ``tests/real/sesterce_console/``; its ``cloud`` ids and names were
anonymized by the recording's origin). So:

* Each offer is one rentable configuration of one underlying cloud (``cloud``): Sesterce re-sells
  other clouds' capacity, so every offer is ``is_aggregator``, its tier is the cloud's name, its
  ``sku`` ``<cloud name>:<instanceId>`` and its ``variant`` the ``deploymentType`` (``vm`` /
  ``baremetal``): an 8x H200 re-sold here never looks like a provider's own offer.
* ``hourlyPrice`` is USD per **instance**-hour (``gpuCount`` GPUs; the book states no currency:
  the console prints "$", the homepage's book footer says "USD · ON-DEMAND"; an offer that states
  another currency is held). Float artifacts are kept as printed (30.008000000000003). A price of
  0 or null is an unpriced offer (never $0); any other value that is not a positive number ("N/A",
  "$2.19", -1) holds that offer (spiders/base.py Parsed.hold, the value kept); the others load.
* Spot: a ``spot`` offer only where ``spotOfferAvailable`` is true, priced by ``hourlySpotPrice``
  (0 there: an unpriced spot offer); ``hourlySpotPrice`` of an offer without spot is not read.
* VRAM per GPU = ``configuration.vRamGB`` / ``gpuCount`` (1128 / 8 = 141 GB). Form factor only from
  what the instance id's NAME states (``A100_sxm4_80Gx8`` -> SXM); ``configuration.interconnect``
  is not read as one (in Shadeform's book, the same shape, it contradicts the name).
* One price for all listed regions: ``availability`` summarises them ("available in 4 of 5 listed
  regions: …").
* CPU offers (``gpuCount`` 0) are not offers (fact ``cpu_only_offers``); the book's size is the fact
  ``offers_in_book``. The ``offers`` map beside the book refers to book entries by reference
  strings (``"$1b:1:props:filteredOffers:0"``) and is not read.
* Layout errors (the provider fails): no flight data, no ``"filteredOffers":[``, an entry that is not
  an object, an offer without ``gpuName`` / ``gpuCount`` / ``instanceId`` / ``deploymentType`` /
  ``hourlyPrice`` / a cloud, an ``availability`` that is not a list, the same sku with two prices.
  A book cut off where a truncated document ends keeps the offers before the cut.
* Not read: the homepage ``www.sesterce.com`` "From / GPU / hr" table: floors derived from this
  book (cached 5 minutes, and they did not reconcile with it on 2026-08-25), no offers of their own.
"""

from __future__ import annotations

import re

from spiders.base import STRICT_JSON, Parsed, PriceSpider, stated_currency
from spiders.nextjs import read_flight_stream

COMPUTE = "https://cloud.sesterce.com/compute"
BOOK = '"filteredOffers":['
REQUIRED = ("gpuName", "gpuCount", "instanceId", "deploymentType", "hourlyPrice")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _form_factor(instance_id: str) -> str | None:
    return "SXM" if re.search(r"(?:^|_)sxm\d?(?:$|_|x\d)", instance_id, re.I) else None


def _availability(regions: list) -> str:
    """"available in 4 of 5 listed regions: AMS, …", "unavailable in the 1 listed region"."""
    if not regions:
        return "no region listed"
    listed = f"{len(regions)} listed region{'s' if len(regions) > 1 else ''}"
    up = [str(r.get("name") or r.get("region")) for r in regions if r.get("available") is True]
    if not up:
        return f"unavailable in the {listed}" if len(regions) == 1 else f"unavailable in all {listed}"
    return f"available in {len(up)} of {listed}: {', '.join(up)}"


def _book(stream: str, start: int, truncated: bool, url: str, parsed: Parsed) -> list:
    """The entries of one offers list from ``start`` (just after its "["); a list cut off where a
    truncated document ends keeps the entries before the cut."""
    entries, pos = [], start
    while True:
        while pos < len(stream) and stream[pos] in " \n\r\t":
            pos += 1
        if pos < len(stream) and stream[pos] == "]":
            return entries
        try:
            entry, end = STRICT_JSON.raw_decode(stream, pos)
        except ValueError as exc:
            if truncated and not re.compile(r'\{"gpuName":').search(stream, pos + 1):
                return entries   # cut off where the document ends: not an offer, not an error
            parsed.error(f"{url}: book entry at offset {pos} of the flight data is not JSON we can read ({str(exc)[:80]})")
            return entries
        entries.append(entry)
        if end < len(stream) and stream[end] == ",":
            pos = end + 1
        elif end < len(stream) and stream[end] == "]":
            return entries
        elif end >= len(stream) and truncated:
            return entries
        else:
            parsed.error(f"{url}: the offers list does not go on after an entry (offset {end})")
            return entries


def _price(value, field: str) -> tuple[object, str | None]:
    """(price_raw, why held): a positive number as printed; 0/null unpriced; anything else held."""
    if value is None or (_number(value) and value == 0):
        return (f"{field} {value!r}"), None
    if _number(value) and value > 0:
        return value, None
    return value, f"{field} unreadable: {value!r} is not a positive number"


def parse_compute(text: str, url: str = COMPUTE) -> Parsed:
    """Offers of the console's offers book (one per GPU offer, and one per spot price)."""
    parsed = Parsed()
    stream, truncated = read_flight_stream(text, url, parsed.error)
    if stream is None:
        return parsed
    starts = [m.end() for m in re.finditer(re.escape(BOOK), stream)]
    if not starts:
        parsed.error(f"{url}: no offers book ('{BOOK}') in the flight data")
        return parsed
    entries = []
    for start in starts:
        entries += _book(stream, start, truncated, url, parsed)
    if not entries and not parsed.errors:
        parsed.error(f"{url}: the offers book is empty")
        return parsed
    bad: dict[str, list[str]] = {}
    offers: dict[tuple, dict] = {}
    conflicts: set[tuple] = set()
    cpu = 0
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict):
            bad.setdefault("book entries that are not objects", []).append(f"#{n}")
            continue
        name = str(entry.get("instanceId") or f"#{n}")
        missing = [f for f in REQUIRED if f not in entry or (f != "hourlyPrice" and entry[f] in (None, ""))]
        cloud = entry.get("cloud") if isinstance(entry.get("cloud"), dict) else {}
        cloud_name = cloud.get("name") or cloud.get("_id")
        if not cloud_name:
            missing.append("cloud.name")
        if missing:
            bad.setdefault(f"offer(s) without {', '.join(missing)}", []).append(name)
            continue
        count = entry["gpuCount"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            bad.setdefault("gpuCount is not a GPU count", []).append(f"{name}={count!r}")
            continue
        if count == 0:
            cpu += 1
            continue
        regions = entry.get("availability")
        if regions is None:
            regions = []
        if not isinstance(regions, list) or not all(isinstance(r, dict) for r in regions):
            bad.setdefault("availability is not a list of regions", []).append(name)
            continue
        config = entry.get("configuration") if isinstance(entry.get("configuration"), dict) else {}
        total = config.get("vRamGB")
        instance = str(entry["instanceId"])
        base = dict(sku=f"{cloud_name}:{instance}", gpu_label=str(entry["gpuName"]), gpu_count=count,
                    vram_gb=total / count if _number(total) and total > 0 else None,
                    form_factor=_form_factor(instance), tier=str(cloud_name), variant=str(entry["deploymentType"]),
                    region=None, currency="USD", price_unit="instance_hour",
                    availability=_availability(regions), is_aggregator=True)
        foreign = stated_currency(entry)
        tiers = [("on-demand", "hourlyPrice")]
        if entry.get("spotOfferAvailable") is True:
            tiers.append(("spot", "hourlySpotPrice"))
        for billing, field in tiers:
            raw, held = _price(entry.get(field), field)
            if foreign and not held:
                raw, held = entry.get(field), f"offer states {foreign} ({field} is read as USD)"
            fields = dict(base, billing=billing, price_raw=raw)
            if held:
                fields["_held"] = held
            key = (fields["sku"], fields["variant"], billing)
            first = offers.setdefault(key, fields)
            if first is not fields and first["price_raw"] != fields["price_raw"]:
                bad.setdefault("offer(s) listed twice with different prices", []).append(
                    f"{fields['sku']} {billing} ({first['price_raw']!r} vs {fields['price_raw']!r})")
                conflicts.add(key)
    for problem, where in bad.items():
        more = ", …" if len(where) > 3 else ""
        parsed.error(f"{url}: {len(where)} {problem} ({', '.join(where[:3])}{more})")
    for key, fields in offers.items():
        if key in conflicts:
            continue
        held = fields.pop("_held", None)
        if held:
            parsed.hold(held, **fields)
        else:
            parsed.offer(**fields)
    parsed.facts.append(dict(fact="offers_in_book", value_num=float(len(entries)),
                             value_text="entries of filteredOffers (CPU offers included)"))
    parsed.facts.append(dict(fact="cpu_only_offers", value_num=float(cpu), value_text="gpuCount 0: not offers"))
    return parsed


class SesterceSpider(PriceSpider):
    name = "sesterce"
    allowed_domains = ["cloud.sesterce.com"]
    pricing_url = COMPUTE
    family = "aggregator"
    is_aggregator = True
    unit = "USD per instance-hour"
    capture = "real"
    robots = ("no stored copy of cloud.sesterce.com/robots.txt found (searched the pages corpus 2026-12-02; it"
              " cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Terms and conditions (https://www.sesterce.com/terms-and-conditions, stored copy, undated): "
             "'The Terms apply to access to and use of Sesterce websites, platforms, products, services and "
             "solutions'; the stored excerpt says nothing on automated access or scraping. We read only the "
             "public console compute page (no account), once a day, with our contact User-Agent and "
             "robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_compute)

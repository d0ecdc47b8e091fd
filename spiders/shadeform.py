"""Shadeform (aggregator): the instance catalog embedded in the ``www.shadeform.ai`` homepage.

The homepage is a Next.js page; its marketplace listing is a dehydrated react-query state in
the React Server Components flight data, ``self.__next_f.push([1,"…"])`` strings whose joined
text holds one JSON object per instance type (escaped as ``\\"`` in the HTML)::

    {"cloud":"lambdalabs","shade_instance_type":"B200_sxm6x8","cloud_instance_type":"…",
     "configuration":{"num_gpus":8,"gpu_type":"B200","vram_per_gpu_in_gb":192,"interconnect":…},
     "num_gpus":8,"gpu_type":"B200",…,"hourly_price":5352,
     "availability":[{"region":"…","display_name":"…","available":false}],…,"deployment_type":"vm"}

(the same item shape as the API ``GET /v1/instances/types``, for which no real recording exists).

* ``hourly_price`` is an integer in US CENTS per instance-hour (``num_gpus`` GPUs): a price that
  is not whole cents is a layout error, not a dollar figure guessed at. One object whose price is
  not a number ("N/A", "$53.52", -1), or which states another currency, is held
  (spiders/base.py Parsed.hold, the value kept); the other objects load.
* ``cloud`` is the cloud Shadeform re-publishes: the offer's tier, and with the instance type
  its sku (``<cloud>:<shade_instance_type>``), so an 8x B200 of Lambda bought through Shadeform
  never looks like Lambda's own offer. Every offer is ``is_aggregator`` (never "a provider" of
  its own in "cheapest" claims).
* One price per instance type for all its regions: ONE offer per instance type (no region),
  ``availability`` summarising the listed regions.
* CPU-only types (``num_gpus`` 0) are not offers. An object cut off where the document ends
  (a truncated flight stream, e.g. a recorded excerpt) is not an offer and not an error.
* The same object printed twice is one offer; the same sku with two prices (or GPU counts,
  labels, ...) is a layout error; copies that differ only in availability are one offer whose
  availability says so.
* Form factor: only what the instance type's NAME states (``…_sxm4…`` -> SXM). The
  ``interconnect`` field is not read as one: in the real listing it says "pcie" for an
  ``A100_80G_sxm4x8`` and "sxm5" for an RTX 6000 Ada.
"""

from __future__ import annotations

import re
from decimal import Decimal

from spiders.base import STRICT_JSON, Parsed, PriceSpider, stated_currency
from spiders.nextjs import read_flight_stream

HOMEPAGE = "https://www.shadeform.ai/"

BLOB = re.compile(r'\{"cloud":')
REQUIRED = ("cloud", "shade_instance_type", "hourly_price", "configuration")
REQUIRED_CONFIG = ("gpu_type", "num_gpus")
# Fields the listing prints twice, inside ``configuration`` and beside it: the copies must agree.
MIRRORED = ("num_gpus", "gpu_type", "vram_per_gpu_in_gb")


def _availability(regions) -> str:
    """"available in 2 of 3 listed regions: a, b", "unavailable in the 1 listed region"."""
    if not regions:
        return "no region listed"
    listed = f"{len(regions)} listed region{'s' if len(regions) > 1 else ''}"
    up = [str(r.get("region")) for r in regions if r.get("available") is True]
    if not up:
        return f"unavailable in the {listed}" if len(regions) == 1 else f"unavailable in all {listed}"
    return f"available in {len(up)} of {listed}: {', '.join(up)}"


def _form_factor(instance_type: str) -> str | None:
    return "SXM" if re.search(r"(?:^|_)sxm\d?(?:$|_|x\d)", instance_type, re.I) else None


def parse_homepage(text: str, url: str) -> Parsed:
    """Offers of the instance objects embedded in the homepage's flight data."""
    parsed = Parsed()
    stream, truncated = read_flight_stream(text, url, parsed.error)
    if stream is None:
        return parsed
    starts = [m.start() for m in BLOB.finditer(stream)]
    if not starts:
        parsed.error(f'{url}: no instance objects ({{"cloud": …}}) in the flight data')
        return parsed

    decoder = STRICT_JSON   # a key printed twice is refused, not "the last one wins"
    # problem -> example skus: one message per distinct problem, however many objects share it.
    bad: dict[str, list[str]] = {}
    offers: dict[str, dict] = {}
    conflicts: dict[str, list[str]] = {}
    for n, start in enumerate(starts):
        try:
            blob, _ = decoder.raw_decode(stream, start)
        except ValueError as exc:
            if truncated and n == len(starts) - 1:
                continue  # cut off where the document ends: not an offer, not an error
            bad.setdefault(f"instance object(s) are not JSON we can read ({str(exc)[:80]})", []).append(
                f"at offset {start}")
            continue
        sku = f"{blob.get('cloud')}:{blob.get('shade_instance_type')}"
        config = blob.get("configuration")
        missing = [f for f in REQUIRED if blob.get(f) is None]
        if isinstance(config, dict):
            missing += [f"configuration.{f}" for f in REQUIRED_CONFIG if config.get(f) is None]
        elif config is not None:
            missing.append("configuration (not an object)")
        if missing:
            bad.setdefault(f"instance object(s) lack {', '.join(missing)}", []).append(sku)
            continue
        twice = [f for f in MIRRORED if f in blob and blob[f] != config.get(f)]
        if twice:
            bad.setdefault(f"{', '.join(twice)} differs inside and beside configuration", []).append(sku)
            continue
        count = config["num_gpus"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            bad.setdefault("configuration.num_gpus is not a GPU count", []).append(sku)
            continue
        if count == 0:
            continue  # CPU-only instance
        cents = blob["hourly_price"]
        # One object's price that is not a number of cents ("N/A", "$53.52", -1), or an object
        # stating another currency: that offer is held (spiders/base.py Parsed.hold, the value
        # kept), the other objects load. A number that is not whole cents is a unit change.
        held = None
        if isinstance(cents, bool) or not isinstance(cents, (int, float)) or cents < 0:
            held = f"hourly_price unreadable: {cents!r} is not a number of cents"
        elif cents != int(cents):
            bad.setdefault("hourly_price is not whole cents (unit changed?)", []).append(f"{sku}={cents}")
            continue
        foreign = stated_currency(blob)
        if foreign:
            held = f"instance object states {foreign} (hourly_price is read as US cents)"
        regions = blob.get("availability")
        if regions is None:
            regions = []
        if not isinstance(regions, list) or not all(isinstance(r, dict) for r in regions):
            bad.setdefault("availability is not a list of regions", []).append(sku)
            continue
        vram = config.get("vram_per_gpu_in_gb")
        offer = dict(
            sku=sku, gpu_label=str(config["gpu_type"]), gpu_count=count,
            vram_gb=vram if isinstance(vram, (int, float)) and not isinstance(vram, bool) and vram > 0 else None,
            form_factor=_form_factor(str(blob["shade_instance_type"])),
            billing="on-demand", tier=str(blob["cloud"]), currency="USD",
            price_raw=(cents if held else Decimal(int(cents)) / 100 if cents else "hourly_price 0"),
            price_unit="instance_hour", availability=_availability(regions), is_aggregator=True,
        )
        if held:
            offer["_held"] = held
        first = offers.setdefault(sku, offer)
        if first is not offer:  # printed again: one offer, if the copies agree
            differ = [k for k in offer if k != "availability" and offer[k] != first[k]]
            if differ:
                conflicts.setdefault(sku, []).append(
                    f"{', '.join(differ)}" + (f" (USD/h {first['price_raw']} vs {offer['price_raw']})"
                                              if "price_raw" in differ else ""))
            elif offer["availability"] != first["availability"]:
                first["availability"] = "copies list different availability"

    for problem, skus in bad.items():
        if skus:
            more = ", …" if len(skus) > 3 else ""
            parsed.error(f"{url}: {len(skus)} {problem} ({', '.join(skus[:3])}{more})")
        else:
            parsed.error(f"{url}: {problem}")
    for sku, differences in conflicts.items():
        parsed.error(f"{url}: {sku} is listed twice with different {'; '.join(dict.fromkeys(differences))}")
    for sku, offer in offers.items():
        if sku not in conflicts:
            held = offer.pop("_held", None)
            if held:
                parsed.hold(held, **offer)
            else:
                parsed.offer(**offer)
    return parsed


class ShadeformSpider(PriceSpider):
    name = "shadeform"
    allowed_domains = ["shadeform.ai"]
    family = "aggregator"
    robots = ("no stored copy of www.shadeform.ai/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Shadeform Terms of Use (https://www.shadeform.ai/tos.html, stored copy, 'Effective Date: October"
             " 15, 2024') govern 'your use of the website https://shadeform.ai'; '2.1 Website. Subject to "
             "these Terms, Shadeform grants you the limited, revocable, non-transferable, non-sublicensable, "
             "non-exclusive right to access and use the Website'; the rest of section 2 is not stored and no "
             "clause on automated access was found (searched the pages corpus 2026-12-02 for 'Shadeform terms "
             "of service', 'shadeform.ai Terms of Use you will not scrape crawl spider robot data mining "
             "Website'). We read the public homepage (its embedded instance list), once a day; Shadeform's "
             "documented API needs a key and is not used.")
    cadence = "daily"
    unit = "US cents per instance-hour"
    capture = "real"
    is_aggregator = True
    pricing_url = HOMEPAGE

    page_parser = staticmethod(parse_homepage)

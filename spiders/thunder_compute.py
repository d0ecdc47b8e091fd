"""Thunder Compute: the public pricing API joined with the public specs API (no key).

``GET /v1/pricing`` answers ``{"pricing": {"<key>": <number>}}`` and ``GET /v1/specs``
``{"specs": {"<key>": {displayName, vramGB, gpuCount, mode, vcpuOptions, ...}}}``. A GPU key
is ``<gpu>_x<count>_<mode>`` (``a100xl_x1_prototyping``); mode is ``prototyping`` (cheaper,
virtualised GPU-over-TCP) or ``production`` (dedicated). The v2 API drops the mode from the key
(``a6000_x1``, thunder-cli's fixtures) and is read only when v1 answers 404/410.

One offer per priced GPU key that specs describes: ``sku`` = the key's GPU part (``a100xl``;
Thunder has no plain ``a100``), ``tier`` = the key's mode, GPU label, count and VRAM from
specs (which must agree with the key). Other keys of the pricing map (``additional_vcpus``,
``disk_gb``, ``ephemeral_disk_gb``, ``snapshot_gb``) are add-on rates, not offers. In a v1
answer a bare ``<gpu>_x<count>`` key next to moded keys of the same GPU and count is an alias
(third-party notes of the live v1 specs list ``a100xl_x1`` beside ``a100xl_x1_prototyping``
with the same vCPU options), not an offer of its own.

Unit and currency: the API prints neither. Each number is USD for the whole configuration per
hour: thunder-cli (Thunder's own client, utils/pricing.go @ 0b6e8a7d) takes ``Rates[key]`` as
the GPU cost of the whole ``<gpu>_x<count>`` config (never times the GPU count) and prints it
as ``$%.2f/hr``; the OpenAPI schema ``thundertypes.PricingMap`` is a map of numbers with no
currency field. The public API is therefore read as USD-only: a ``currency`` field, should one
appear (beside the map or inside it), is used when it says USD and is a layout error otherwise.
The price each offer points to is the pricing record (the evidence of the number), not specs.
A price quoted as a string the USD answer reads unambiguously ("$2.49", "2.49") is the same
number; any other value of one key ("N/A", "€2.49", 0) holds that offer (spiders/base.py
Parsed.hold), the other keys load.
"""

from __future__ import annotations

import re

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, json_price, load_json

API = "https://api.thundercompute.com:8443"
GPU_KEY = re.compile(r"^(?P<gpu>[a-z0-9]+)_x(?P<count>\d+)(?:_(?P<mode>[a-z]+))?$")
MODES = ("prototyping", "production")
CURRENCY = "USD"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _currency(document, pricing: dict, what: str, parsed: Parsed) -> str | None:
    """USD, or None after a layout error when the answer names another currency."""
    stated = [v for v in (document.get("currency"), pricing.get("currency")) if v is not None]
    for value in stated:
        if str(value).strip().upper() != CURRENCY:
            parsed.error(f"{what}: answer states currency {value!r}; the pricing API was USD-only")
            return None
    return CURRENCY


def parse_offers(pricing_text: str, specs_text: str, pricing_url: str, specs_url: str) -> Parsed:
    """Offers of a pricing answer joined with its specs answer (same API version)."""
    parsed = Parsed()
    pricing_doc = load_json(pricing_text, pricing_url, parsed)
    pricing = json_member(pricing_doc, "pricing", dict, pricing_url, parsed) if pricing_doc is not None else None
    specs_doc = load_json(specs_text, specs_url, parsed)
    specs = json_member(specs_doc, "specs", dict, specs_url, parsed) if specs_doc is not None else None
    if pricing is None or specs is None:
        return parsed
    currency = _currency(pricing_doc, pricing, pricing_url, parsed)
    if currency is None:
        return parsed

    gpu_keys = {key: m for key in pricing if (m := GPU_KEY.match(key))}
    moded = {(m["gpu"], m["count"]) for m in gpu_keys.values() if m["mode"]}
    if not gpu_keys:
        parsed.error(f"{pricing_url}: pricing has no '<gpu>_x<count>[_<mode>]' keys")
        return parsed
    missing, unknown_modes, bad_prices, bad_specs = [], [], [], []
    for key, m in gpu_keys.items():
        gpu, count, mode = m["gpu"], int(m["count"]), m["mode"]
        if not mode and (gpu, m["count"]) in moded:
            continue  # a bare alias of a moded key (see the module docstring)
        if mode and mode not in MODES:
            unknown_modes.append(key)
            continue
        price, unreadable = json_price(pricing[key], currency)
        spec = specs.get(key)
        if spec is None:
            if unreadable:
                bad_prices.append(f"{key}={price!r}")
            else:
                missing.append(key)
            continue
        label = spec.get("displayName") if isinstance(spec, dict) else None
        spec_mode = spec.get("mode") if isinstance(spec, dict) else None
        if (not isinstance(label, str) or not label.strip() or spec.get("gpuCount") != count
                or (spec_mode and mode and spec_mode != mode)):
            bad_specs.append(key)
            continue
        vram = spec.get("vramGB")
        fields = dict(sku=gpu, gpu_label=label.strip(), gpu_count=count,
                      vram_gb=vram if _number(vram) else None, billing="on-demand",
                      tier=mode or spec_mode or None, currency=currency, price_raw=price,
                      price_unit="instance_hour")
        if unreadable:   # one key's price cannot be read: that offer is held, the others load
            parsed.hold(f"price of {key!r} unreadable: {unreadable}", **fields)
        else:
            parsed.offer(**fields)
    if missing:
        parsed.error(f"{specs_url}: pricing key(s) {', '.join(map(repr, missing))} have no entry in specs")
    if unknown_modes:
        parsed.error(f"{pricing_url}: unknown mode in key(s) {', '.join(map(repr, unknown_modes))} "
                     f"(known: {', '.join(MODES)})")
    if bad_prices:   # neither a price nor an offer specs describes: nothing to hold
        parsed.error(f"{pricing_url}: price is not a positive number: {', '.join(bad_prices)}")
    if bad_specs:
        parsed.error(f"{specs_url}: specs entry of {', '.join(map(repr, bad_specs))} lacks a displayName "
                     f"or disagrees with its key (gpuCount/mode)")
    return parsed


class ThunderComputeSpider(PriceSpider):
    name = "thunder_compute"
    allowed_domains = ["api.thundercompute.com"]
    family = "neocloud"
    robots = ("not applicable (api.thundercompute.com is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("No stored copy of Thunder Compute's terms found (searched the pages corpus 2026-12-02 for "
             "'Thunder Compute terms of service'). We read Thunder Compute's public pricing and specs API, no "
             "key.")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "composed"
    source_urls = (f"{API}/v1/pricing", f"{API}/v1/specs")

    async def start(self):
        yield self._get("v1", "pricing", self.parse_pricing)

    def _get(self, version, what, callback, **kw):
        gone_ok = what == "pricing" and version == "v1"
        return scrapy.Request(f"{API}/{version}/{what}", callback=callback, errback=self.request_failed,
                              meta={"handle_httpstatus_list": [404, 410]} if gone_ok else {},
                              cb_kwargs={"version": version, **kw})

    def parse_pricing(self, response, version):
        if response.status in (404, 410):
            if version == "v1":
                yield self._get("v2", "pricing", self.parse_pricing)
            return
        yield self._get(version, "specs", self.parse_specs, pricing=response)

    def parse_specs(self, response, version, pricing):
        parsed = parse_offers(pricing.text, response.text, pricing.url, response.url)
        yield from self.emit(parsed, capture=pricing.meta.get("capture"))

"""Scaleway: the Instance API product catalog, ``GET /instance/v1/zones/<zone>/products/servers``.

No key is needed for the catalog. An answer is ``{"servers": {"<COMMERCIAL-TYPE>": {...}}}``, a
mapping keyed by instance type (real recordings, zone fr-par-2, 2026-08-22)::

    "H100-SXM-8-80G": {"hourly_price": 25.3308, "monthly_price": 18491.484, "gpu": 8,
                       "gpu_info": {"gpu_manufacturer": "NVIDIA", "gpu_name": "H100-SXM",
                                    "gpu_memory": 85899345920}, "mig_profile": null,
                       "end_of_service": false, ...}

* Prices are **EUR** per instance-hour (the whole ``gpu`` GPUs), kept in EUR (never converted).
  The catalog states no currency; a catalog that states another currency fails, one type that
  does is held (spiders/base.py Parsed.hold), as is one type whose ``hourly_price`` is there but
  not a positive number ("N/A", 0): the other types load. ``monthly_price`` is
  ``hourly_price`` x 730 on this API: a pair that no longer agrees is a unit change (layout
  error), not a price.
* An offer per GPU type (``gpu`` >= 1): ``sku`` = the commercial type, label = ``gpu_info.gpu_name``
  ("H100-SXM", "B300-SXM", "P100"), VRAM = ``gpu_memory`` bytes / 2^30 (GiB-sized), region = the
  zone. CPU-only types are not offers. MIG slices (``mig_profile`` set) and types at
  ``end_of_service`` are skipped and listed (source facts ``mig_slices``, ``end_of_service_types``).
* Paging: ``page=1, 2, ...`` with ``per_page=100`` (the API's maximum). The spider asks for the
  next page until a page holds no type at all (the recorded excerpts are shorter than a full
  page, so "a short page is the last" cannot be trusted), or until ``X-Total-Count`` types were
  read where the header is sent. A type on two pages, or more than :data:`MAX_PAGES` pages, is a
  layout error; so is a first page with no type.
"""

from __future__ import annotations

import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency

ZONES = ("fr-par-2",)
PER_PAGE = 100
MAX_PAGES = 20
HOURS_PER_MONTH = 730


def servers_url(zone: str, page: int) -> str:
    return f"https://api.scaleway.com/instance/v1/zones/{zone}/products/servers?per_page={PER_PAGE}&page={page}"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_servers(text: str, url: str, zone: str = "fr-par-2") -> tuple[Parsed, list[str]]:
    """(offers of one catalog page, the commercial types it lists)."""
    parsed = Parsed()
    document = load_json(text, url, parsed)
    servers = json_member(document, "servers", dict, url, parsed) if document is not None else None
    if servers is None:
        return parsed, []
    foreign = stated_currency(document, expected="EUR")
    if foreign:
        parsed.error(f"{url}: the catalog states {foreign}; its prices are read as EUR")
        return parsed, list(servers)
    problems: dict[str, list[str]] = {}
    skipped: dict[str, list[str]] = {}
    for name, server in servers.items():
        if not isinstance(server, dict):
            problems.setdefault("type(s) that are not objects", []).append(name)
            continue
        gpus = server.get("gpu")
        if gpus is None or gpus == 0:
            continue   # CPU-only type
        if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 0:
            problems.setdefault("gpu is not a GPU count", []).append(f"{name}={gpus!r}")
            continue
        info = server.get("gpu_info")
        if not isinstance(info, dict) or not info.get("gpu_name"):
            problems.setdefault("GPU type(s) without gpu_info.gpu_name", []).append(name)
            continue
        hourly, monthly = server.get("hourly_price"), server.get("monthly_price")
        if hourly is None:
            problems.setdefault("hourly_price is not a price", []).append(f"{name}={hourly!r}")
            continue
        # One type's hourly_price that is there but not a positive number ("N/A", 0, -1), or a
        # type stating another currency: that type is held (spiders/base.py Parsed.hold, the value
        # kept), the other types load.
        held = None
        if not _number(hourly) or hourly <= 0:
            held = f"hourly_price unreadable: {hourly!r} (not a positive number of EUR)"
        elif monthly is not None and (not _number(monthly) or abs(monthly - hourly * HOURS_PER_MONTH) > 0.01 * monthly):
            problems.setdefault(f"hourly_price x {HOURS_PER_MONTH} is not monthly_price (unit changed?)", []).append(
                f"{name} {hourly!r}/h vs {monthly!r}/month")
            continue
        foreign = stated_currency(server, expected="EUR")
        if foreign:
            held = f"type states {foreign} (its prices are read as EUR)"
        if server.get("mig_profile"):
            skipped.setdefault("mig_slices", []).append(f"{name}: {server['mig_profile']}")
            continue
        if server.get("end_of_service") is True:
            skipped.setdefault("end_of_service_types", []).append(name)
            continue
        memory = info.get("gpu_memory")
        fields = dict(sku=name, gpu_label=str(info["gpu_name"]), gpu_count=gpus,
                      vram_gb=memory / 2**30 if _number(memory) and memory > 0 else None,
                      billing="on-demand", region=zone, currency="EUR", price_raw=hourly,
                      price_unit="instance_hour")
        if held:
            parsed.hold(held, **fields)
        else:
            parsed.offer(**fields)
    parsed.errors_by_problem(url, problems)
    for fact, names in skipped.items():
        parsed.facts.append({"fact": fact, "value_num": len(names), "value_text": "; ".join(names)})
    return parsed, list(servers)


class ScalewaySpider(PriceSpider):
    name = "scaleway"
    allowed_domains = ["api.scaleway.com"]
    family = "neocloud"
    robots = ("not applicable (api.scaleway.com is an API host); no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("Scaleway Customer Agreement (https://www.scaleway.com/en/terms/agreement/, stored copy, undated)"
             " defines 'the conditions under which SCALEWAY supplies the User' with Compute and Storage "
             "Services; nothing on reading the catalog (searched the pages corpus 2026-12-02 for 'Scaleway "
             "terms of service website contractual terms'). We read only the documented Instance API product "
             "catalog, which needs no key, a few requests a day, with our contact User-Agent and robots.txt "
             "obeyed.")
    cadence = "daily"
    unit = "EUR per instance-hour"
    capture = "real"
    source_urls = tuple(servers_url(zone, 1) for zone in ZONES)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.types_seen: dict[str, set[str]] = {}
        self.facts: dict[str, list[str]] = {}   # merged over pages: one fact per name and run

    async def start(self):
        for zone in ZONES:
            yield self._page(zone, 1)

    def _page(self, zone: str, page: int):
        return scrapy.Request(servers_url(zone, page), headers={"Accept": "application/json"},
                              callback=self.parse_page, errback=self.request_failed,
                              cb_kwargs={"zone": zone, "page": page})

    def parse_page(self, response, zone: str, page: int):
        parsed, types = parse_servers(response.text, response.url, zone)
        seen = self.types_seen.setdefault(zone, set())
        again = sorted(seen.intersection(types))
        if again:
            parsed.error(f"{response.url}: type(s) already listed on an earlier page: {', '.join(again[:3])}")
            parsed.offers = [o for o in parsed.offers if o["sku"] not in again]
        seen.update(types)
        for fact in parsed.facts:
            self.facts.setdefault(fact["fact"], []).append(fact["value_text"])
        parsed.facts = []
        yield from self.emit(parsed)
        following = self._following(response, page, types, seen, bool(again), bool(parsed.errors))
        if following:
            yield self._page(zone, following)
            return
        facts = [{"fact": name, "value_num": sum(len(t.split("; ")) for t in texts), "value_text": "; ".join(texts)}
                 for name, texts in self.facts.items()]
        self.facts = {}
        yield from self.emit(Parsed(facts=facts))

    def _following(self, response, page: int, types: list[str], seen: set[str], again: bool, errors: bool) -> int | None:
        """The next page to ask for, or None (after a layout error where the paging went wrong)."""
        if errors and not types:
            return None   # not a catalog page: the error says so
        total = response.headers.get("X-Total-Count")
        total = int(total) if total and total.decode().isdigit() else None
        if not types:
            if page == 1:
                self.layout_error(f"{response.url}: the catalog lists no instance type")
            elif total is not None and len(seen) < total:
                self.layout_error(f"{response.url}: empty page after {len(seen)} of {total} types (X-Total-Count)")
            return None
        if again or (total is not None and len(seen) >= total):
            return None
        if page >= MAX_PAGES:
            self.layout_error(f"{response.url}: still listing types after {MAX_PAGES} pages")
            return None
        return page + 1

"""AWS EC2: the price documents the public EC2 on-demand pricing page reads, one per region,
GPU instances only (the default); the Price List bulk offer files as an option.

**Default source (``-a source=price-page``).** The page aws.amazon.com/ec2/pricing/on-demand/
reads, for each region and operating system, one small JSON document (about 48 KB a region):
``GET https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel/<Location>/Linux/index.json``
(no key; ``<Location>`` the region's name, URL-quoted: ``US%20East%20(N.%20Virginia)``). Its
shape, as recorded (tests/real/aws/ewyluda_aws.json): ``{"regions": {<Location>: {<label>:
{"rateCode": "<sku>.<offerTermCode>.<rateCode>", "price": "55.0400000000", "Location",
"Instance Family", "Instance Type", "vCPU", "Memory", "Storage", "Network Performance",
"plc:OperatingSystem", "plc:InstanceFamily", "Operating System", "Pre Installed S/W",
"License Model"}}}}`` (other top-level members are not read). :func:`parse_price_page`:

- the map is "ec2-ondemand-without-sec-sel" (shared tenancy, no SQL/other software) of Linux:
  an entry whose ``Operating System`` is not Linux, ``Pre Installed S/W`` not NA or ``License
  Model`` not "No License required" is skipped; an entry whose ``Location`` is not the page's
  region is a layout error, as is a ``regions`` map without the page's region;
- ``price``: USD per instance-hour (the URL's "USD"; a stated ``currencyCode`` other than USD
  fails); a price that is not a number is a layout error; 0 is no offer;
- **on-demand only**: the offer-term code in ``rateCode`` must be ``JRTCKXETXF`` (AWS's
  on-demand term code); any other term (a Reserved term's code) is never read as an on-demand
  hourly price: skipped and counted in the source fact ``not_on_demand_terms``. An entry that
  carries an upfront fee (a member naming "upfront" with a value above 0) is no on-demand
  hourly price either: kept *unpriced* with the figures as text, fact ``on_demand_with_upfront_fee``;
- GPU model and count from the instance type (``spiders/instance_types.py``); a fractional-GPU
  type (g6f, gr6f: a slice of one L4) is known but no whole-GPU offer: fact
  ``fractional_gpu_types``; an ``Instance Family`` "GPU instance" whose type the table lacks
  is reported (fact ``unknown_instance_types``), never guessed.
``-a regions=us-east-1,eu-west-1`` names the regions (codes of :data:`LOCATIONS`), ``-a
page_url=...{location}...`` points the spider elsewhere (a stand-in server).

**Option (``-a source=offer-file``, implied by ``-a offers_url=...``).** The Price List bulk
offer file ``GET https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json``
(documented shape ``{"offerCode": "AmazonEC2", "products": {<sku>: {"productFamily",
"attributes"}}, "terms": {"OnDemand": {...}, "Reserved": {...}}}``), hundreds of MB a region,
so each request is flagged ``pricewatch_stream`` (spiders/streaming.py): the body goes from
the network (or the archive) to a temp file and :func:`parse_offer_file` streams it with ijson
(``products``, then ``terms.OnDemand`` / ``terms.Reserved``, keeping only the GPU SKUs), never
``json.loads``; ``DOWNLOAD_MAXSIZE`` raised (``-a max_bytes=N``) and ``DOWNLOAD_WARNSIZE``
silenced for these requests only; ``-a stream=0`` takes Scrapy's in-memory path (the
benchmark's baseline). What is an offer there: ``productFamily`` "Compute Instance", Linux,
``tenancy`` Shared, ``preInstalledSw`` NA, ``licenseModel`` "No License required",
``capacitystatus`` Used, ``operation`` RunInstances.
- ``OnDemand`` terms: one ``Hrs`` dimension in USD; an OnDemand term that also carries an
  upfront fee (a ``Quantity`` dimension above 0) is kept *unpriced* ("$55.04/h + $1000 upfront
  (OnDemand JRTCKXETXF)"), fact ``on_demand_with_upfront_fee``.
- ``Reserved`` terms: only ``PurchaseOption`` "No Upfront" without a fee is an hourly rate
  (billing reserved, ``reserved_term`` "1 year" / "3 years", tier "<OfferingClass> no
  upfront"); Partial / All Upfront are never turned into an hourly figure (fact
  ``reserved_with_upfront_fee``).
- A dimension whose unit is not "Hrs", a currency other than USD, or a kept SKU without a
  readable OnDemand price is a layout error.

Both sources: regions read one after the other, facts of all regions emitted once at the end;
``sku`` = the instance type; ``region`` = the region code. Spot prices are not covered.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from urllib.parse import quote, unquote

import ijson
import scrapy

from spiders.base import Parsed, PriceSpider, json_member, load_json, stated_currency
from spiders.instance_types import aws_fraction, aws_gpus
from spiders.streaming import STREAM_META, use_streaming_handler

PRICE_PAGE = ("https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/"
              "ec2-ondemand-without-sec-sel/{location}/Linux/index.json")
OFFERS = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"
#: The regions of the real recording (US East N. Virginia / Ohio, US West Oregon, Tokyo, Mumbai,
#: Sydney, São Paulo); ``-a regions=us-east-1,eu-west-1`` names others.
REGIONS = ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1", "ap-south-1", "ap-southeast-2", "sa-east-1")
#: Region code -> the location name the price page's documents are keyed by (AWS's own names,
#: as the price list's ``location`` attribute prints them; the first seven as recorded).
LOCATIONS = {
    "us-east-1": "US East (N. Virginia)", "us-east-2": "US East (Ohio)", "us-west-2": "US West (Oregon)",
    "ap-northeast-1": "Asia Pacific (Tokyo)", "ap-south-1": "Asia Pacific (Mumbai)",
    "ap-southeast-2": "Asia Pacific (Sydney)", "sa-east-1": "South America (Sao Paulo)",
    "us-west-1": "US West (N. California)", "ca-central-1": "Canada (Central)",
    "eu-west-1": "EU (Ireland)", "eu-west-2": "EU (London)", "eu-west-3": "EU (Paris)",
    "eu-central-1": "EU (Frankfurt)", "eu-north-1": "EU (Stockholm)", "eu-south-1": "EU (Milan)",
    "eu-south-2": "EU (Spain)", "eu-central-2": "EU (Zurich)",
    "ap-northeast-2": "Asia Pacific (Seoul)", "ap-northeast-3": "Asia Pacific (Osaka)",
    "ap-southeast-1": "Asia Pacific (Singapore)", "ap-southeast-3": "Asia Pacific (Jakarta)",
    "ap-east-1": "Asia Pacific (Hong Kong)", "me-central-1": "Middle East (UAE)",
}
ON_DEMAND_TERM = "JRTCKXETXF"
LINUX_PAGE = {"Operating System": "Linux", "Pre Installed S/W": "NA", "License Model": "No License required"}


def price_page_url(region: str, template: str = PRICE_PAGE) -> str:
    """The price page's document of one region (its location name URL-quoted, parentheses kept)."""
    return template.format(location=quote(LOCATIONS[region], safe="()"))


def _location_of(url: str) -> str:
    m = re.search(r"/ec2-ondemand-without-sec-sel/([^/]+)/", url)
    return unquote(m[1]) if m else ""


def parse_price_page(text: str | bytes, url: str) -> Parsed:
    """GPU instance offers of one region's price-page document (the on-demand Linux map)."""
    parsed = Parsed()
    location = _location_of(url)
    region = {v: k for k, v in LOCATIONS.items()}.get(location)
    what = f"EC2 price page {region or location or url}"
    if region is None:
        parsed.error(f"{what}: the URL names no region we know ({location!r})")
        return parsed
    document = load_json(text, what, parsed)
    if document is None:
        return parsed
    foreign = stated_currency(document.get("manifest") if isinstance(document, dict) else None,
                              keys=("currencyCode",))
    if foreign:
        parsed.error(f"{what}: the document states {foreign}; price is read as USD")
        return parsed
    regions = json_member(document, "regions", dict, what, parsed)
    if regions is None:
        return parsed
    entries = regions.get(location)
    if not isinstance(entries, dict):
        parsed.error(f"{what}: the 'regions' map has no {location!r} object (has {sorted(regions)[:3]})")
        return parsed
    problems: dict[str, list[str]] = {}
    facts: dict[str, list[str]] = {}
    gpu_entries = 0
    for label, entry in entries.items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in
                                                   ("Instance Type", "price", "rateCode", "Location")):
            problems.setdefault("an entry lacks Instance Type/price/rateCode/Location", []).append(repr(label)[:60])
            continue
        itype = entry["Instance Type"]
        gpus, fraction = aws_gpus(itype), aws_fraction(itype)
        if gpus is None:
            if fraction is not None:
                facts.setdefault("fractional_gpu_types", []).append(f"{itype} ({fraction.share} {fraction.label})")
            elif entry.get("Instance Family") == "GPU instance":
                facts.setdefault("unknown_instance_types", []).append(itype)
            continue
        gpu_entries += 1
        if entry["Location"] != location:
            problems.setdefault("an entry of another location", []).append(f"{itype}: {entry['Location']!r}")
            continue
        if any(entry.get(k) != v for k, v in LINUX_PAGE.items()):
            continue
        parts = entry["rateCode"].split(".")
        term = parts[1] if len(parts) == 3 else None
        if term != ON_DEMAND_TERM:
            facts.setdefault("not_on_demand_terms", []).append(f"{itype} {entry['rateCode']}")
            continue
        price = entry["price"]
        try:
            hourly = float(price)
        except ValueError:
            problems.setdefault("price is not a number", []).append(f"{itype}: {price!r}")
            continue
        common = dict(sku=itype, gpu_label=gpus.label, gpu_count=gpus.count, vram_gb=gpus.vram_gb,
                      region=region, currency="USD", price_unit="instance_hour", billing="on-demand",
                      tier="on-demand")
        fee = _entry_upfront(entry)
        if fee is not None:
            facts.setdefault("on_demand_with_upfront_fee", []).append(f"{itype} {region}: ${_short(price)}/h + ${fee} upfront")
            parsed.offer(**common, price_raw=f"${_short(price)}/h + ${fee} upfront (OnDemand {term})")
        elif hourly > 0:
            parsed.offer(**common, price_raw=price)
    for message, where in problems.items():
        shown = ", ".join(where[:3]) + (f" and {len(where) - 3} more" if len(where) > 3 else "")
        parsed.error(f"{what}: {message}: {shown}")
    for fact, found in facts.items():
        unique = list(dict.fromkeys(found))
        parsed.facts.append({"fact": fact, "value_num": len(unique), "value_text": "; ".join(unique)})
    if not gpu_entries and not parsed.errors:
        parsed.error(f"{what}: no GPU instance type we know in the document")
    return parsed


def _entry_upfront(entry: dict) -> str | None:
    """An upfront fee a price-page entry carries (a member naming "upfront", above 0), as printed."""
    fees = []
    for key, value in entry.items():
        if "upfront" not in key.lower():
            continue
        try:
            if float(value) > 0:
                fees.append(_short(str(value)))
        except (TypeError, ValueError):
            fees.append(str(value))   # a fee that is not a number is still a fee
    return " + ".join(fees) if fees else None
MAX_BYTES = 8 * 1024 ** 3
LINUX_ON_DEMAND = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
                   "licenseModel": "No License required", "capacitystatus": "Used", "operation": "RunInstances"}
TERMS = {"1yr": "1 year", "3yr": "3 years"}


def _region_of(url: str) -> str:
    parts = url.rstrip("/").split("/")
    return parts[-2] if len(parts) >= 2 else ""


def _hourly(term: dict, where: str, problems: dict[str, list[str]]):
    """The one hourly USD price of a term's price dimensions (a string as printed), or None."""
    hourly = []
    for dim in (term.get("priceDimensions") or {}).values():
        prices = dim.get("pricePerUnit") or {}
        if set(prices) - {"USD"} or "USD" not in prices:
            problems.setdefault("pricePerUnit is not in USD", []).append(f"{where}: {sorted(prices)}")
            return None
        if dim.get("unit") == "Hrs":
            hourly.append(prices["USD"])
        elif dim.get("unit") != "Quantity":
            problems.setdefault("a price dimension's unit is not Hrs", []).append(f"{where}: {dim.get('unit')!r}")
            return None
    if len(hourly) != 1:
        problems.setdefault("a term has no single hourly price", []).append(f"{where}: {len(hourly)} Hrs dimensions")
        return None
    return hourly[0]


def _upfront(term: dict) -> str | None:
    """The upfront fee of a term (a ``Quantity`` dimension priced above 0), as printed, or None."""
    fees = []
    for dim in (term.get("priceDimensions") or {}).values():
        if dim.get("unit") == "Quantity":
            usd = (dim.get("pricePerUnit") or {}).get("USD")
            try:
                if float(usd) > 0:
                    fees.append(str(usd))
            except (TypeError, ValueError):
                fees.append(str(usd))   # a fee that is not a number is still a fee
    return " + ".join(fees) if fees else None


def _opener(body):
    """A function giving a fresh binary stream of the document for each pass."""
    if isinstance(body, (bytes, bytearray, memoryview)):
        return lambda: io.BytesIO(body)
    if isinstance(body, (str, Path)):
        return lambda: open(body, "rb")
    return body.open   # a spooled body (pricewatch/evidence/streamed_body.py StreamedBody): decoded


def parse_offer_file(body, url: str) -> Parsed:
    """GPU instance offers of one region's EC2 offer file, streamed (never loaded whole).
    ``body``: the document as bytes, a file path, or a spooled body (``StreamedBody``)."""
    opener = _opener(body)
    try:
        return _parse(opener, url)
    except OSError as exc:   # a spooled body that cannot be read back or decoded (cut gzip)
        parsed = Parsed()
        parsed.error(f"EC2 offer file {_region_of(url)}: cannot be read ({exc})")
        return parsed


def _parse(opener, url: str) -> Parsed:
    parsed = Parsed()
    region = _region_of(url)
    url = f"EC2 offer file {region}"   # errors name the file briefly (the full URL is in the log)
    problems: dict[str, list[str]] = {}
    facts: dict[str, list[str]] = {}
    kept: dict[str, dict] = {}   # sku -> product attributes (GPU Linux on-demand instances)

    def stream(prefix):
        with opener() as fh:
            yield from ijson.kvitems(fh, prefix, use_float=False)

    try:
        with opener() as fh:
            offer_code = next(ijson.items(fh, "offerCode"), None)
        if offer_code != "AmazonEC2":
            parsed.error(f"{url}: not an AmazonEC2 offer file (offerCode {offer_code!r})")
            return parsed
        products = 0
        for sku, product in stream("products"):
            products += 1
            attrs = product.get("attributes") or {}
            if product.get("productFamily") != "Compute Instance":
                continue
            if any(attrs.get(k) != v for k, v in LINUX_ON_DEMAND.items()):
                continue
            itype = attrs.get("instanceType", "")
            if aws_gpus(itype) is not None:
                kept[sku] = attrs
            elif aws_fraction(itype) is not None:
                share = aws_fraction(itype)
                facts.setdefault("fractional_gpu_types", []).append(f"{itype} ({share.share} {share.label})")
            elif attrs.get("instanceFamily") == "GPU instance":
                facts.setdefault("unknown_instance_types", []).append(itype)
        if not products:
            parsed.error(f"{url}: no 'products' object in the offer file")
            return parsed
        found = {"OnDemand": set(), "Reserved": set()}
        for kind in found:
            for sku, terms in stream(f"terms.{kind}"):
                if sku not in kept:
                    continue
                found[kind].add(sku)
                for term in terms.values():
                    _term_offers(parsed, kind, kept[sku], term, region, problems, facts)
    except ijson.JSONError as exc:
        parsed.error(f"{url}: not a JSON document we can read ({str(exc)[:120]})")
        return parsed
    missing = sorted(kept[s]["instanceType"] for s in set(kept) - found["OnDemand"])
    if missing:
        problems.setdefault("a GPU instance has no OnDemand term", []).extend(missing)
    for message, where in problems.items():
        shown = ", ".join(where[:3]) + (f" and {len(where) - 3} more" if len(where) > 3 else "")
        parsed.error(f"{url}: {message}: {shown}")
    for fact, entries in facts.items():
        unique = sorted(set(entries))
        parsed.facts.append({"fact": fact, "value_num": len(unique), "value_text": "; ".join(unique)})
    if not kept and not parsed.errors:
        parsed.error(f"{url}: no Linux shared-tenancy GPU instance in the offer file")
    return parsed


def _term_offers(parsed, kind, attrs, term, region, problems, facts):
    itype = attrs["instanceType"]
    gpus = aws_gpus(itype)
    where = f"{itype} {term.get('offerTermCode', '?')}"
    common = dict(sku=itype, gpu_label=gpus.label, gpu_count=gpus.count, vram_gb=gpus.vram_gb,
                  region=attrs.get("regionCode") or region, currency="USD", price_unit="instance_hour")
    if kind == "OnDemand":
        price = _hourly(term, where, problems)
        if price is None:
            return
        fee = _upfront(term)
        if fee is not None:
            # Not an on-demand hourly price: kept unpriced with the term's own figures as text.
            facts.setdefault("on_demand_with_upfront_fee", []).append(f"{itype} {region}: ${_short(price)}/h + ${fee} upfront")
            parsed.offer(**common, billing="on-demand", tier="on-demand",
                         price_raw=f"${_short(price)}/h + ${_short(fee)} upfront (OnDemand {term.get('offerTermCode', '?')})")
        elif float(price) > 0:
            parsed.offer(**common, billing="on-demand", tier="on-demand", price_raw=price)
        return
    ta = term.get("termAttributes") or {}
    length, option, klass = ta.get("LeaseContractLength"), ta.get("PurchaseOption"), ta.get("OfferingClass")
    if length not in TERMS or not option or not klass:
        problems.setdefault("a Reserved term lacks LeaseContractLength/PurchaseOption/OfferingClass", []).append(where)
        return
    if option != "No Upfront" or _upfront(term) is not None:
        facts.setdefault("reserved_with_upfront_fee", []).append(f"{itype} {length} {klass} {option}")
        return
    price = _hourly(term, where, problems)
    if price is not None and float(price) > 0:
        parsed.offer(**common, billing="reserved", tier=f"{klass} no upfront", reserved_term=TERMS[length],
                     price_raw=price)


def _short(number: str) -> str:
    """A Price List figure without its trailing zeros ("55.0400000000" -> "55.04")."""
    try:
        return f"{float(number):g}" if "e" not in f"{float(number):g}" else str(number)
    except ValueError:
        return str(number)


class AwsSpider(PriceSpider):
    name = "aws"
    allowed_domains = ["b0.p.awsstatic.com", "pricing.us-east-1.amazonaws.com"]

    family = "hyperscaler"
    robots = ("not applicable (b0.p.awsstatic.com is an API host): static price documents and the "
              "pricing.us-east-1.amazonaws.com Price List API; no stored copy of its robots.txt found "
              "(searched the pages corpus 2026-12-02; it cannot be searched by address: 'lambda.ai robots.txt'"
              " and 'cloud.google.com robots.txt Disallow' found only other sites' files); robots.txt is "
              "obeyed at every crawl if served")
    terms = ("No stored copy of AWS's Site Terms found (searched the pages corpus 2026-12-02 for 'AWS site "
             "terms automated scraping crawling aws.amazon.com', 'AWS Site Terms license does not include data"
             " mining robots data gathering extraction tools'; only the AWS Service Terms, "
             "https://aws.amazon.com/it/serviceterms, stored copy 'Last Updated: October 22, 2025', which "
             "'govern your use of the Services'). The documents we read are the ones AWS's public EC2 "
             "on-demand pricing page itself loads, keyless (the Price List bulk offer files, AWS's documented "
             "public price API, are the option); no console or calculator scraping.")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "real"
    source_urls = tuple(price_page_url(r) for r in REGIONS)

    def __init__(self, *args, regions: str | None = None, source: str | None = None,
                 offers_url: str | None = None, page_url: str | None = None,
                 max_bytes: str | None = None, stream: str = "1", **kwargs):
        super().__init__(*args, **kwargs)
        self.regions = tuple(r.strip() for r in regions.split(",") if r.strip()) if regions else REGIONS
        # -a offers_url=... (a stand-in server of offer files) implies the offer-file source.
        self.source = source or ("offer-file" if offers_url else "price-page")
        if self.source not in ("price-page", "offer-file"):
            raise ValueError(f"aws: -a source={self.source!r}: price-page or offer-file")
        unknown = [r for r in self.regions if self.source == "price-page" and r not in LOCATIONS]
        if unknown:
            raise ValueError(f"aws: no location name known for region(s) {', '.join(unknown)} (spiders/aws.py LOCATIONS)")
        self.offers_url = offers_url or OFFERS
        self.page_url = page_url or PRICE_PAGE
        self.max_bytes = int(max_bytes) if max_bytes else MAX_BYTES
        # -a stream=0: Scrapy's in-memory path (the benchmark's baseline), the same parse.
        self.stream = stream not in ("0", "false", "no")
        self.facts: dict[str, list[str]] = {}

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        use_streaming_handler(settings)   # live only: a replay streams from the archive; unflagged requests unchanged

    # One region at a time: the next document is requested once the previous one is parsed (an
    # offer file's temp file removed first, so one body of hundreds of MB is on disk at a time),
    # and the facts of all regions are emitted once.
    def _request(self, i: int):
        region = self.regions[i]
        if self.source == "price-page":
            return scrapy.Request(price_page_url(region, self.page_url), callback=self.parse_page,
                                  errback=self.region_failed, cb_kwargs={"i": i}, meta={"region_index": i})
        return scrapy.Request(self.offers_url.format(region=region), callback=self.parse_offers,
                              errback=self.region_failed, cb_kwargs={"i": i},
                              meta={"download_maxsize": self.max_bytes, "download_warnsize": 0, "region_index": i,
                                    STREAM_META: self.stream})

    async def start(self):
        yield self._request(0)

    def parse_page(self, response, i):
        yield from self._region_done(parse_price_page(response.body, response.url), i)

    def parse_offers(self, response, i):
        streamed = getattr(response, "streamed", None)
        try:
            parsed = parse_offer_file(streamed if streamed is not None else response.body, response.url)
        finally:
            if streamed is not None:
                streamed.remove()
        yield from self._region_done(parsed, i)

    def _region_done(self, parsed, i):
        region = self.regions[i]
        for fact in parsed.facts:
            self.facts.setdefault(fact["fact"], []).extend(f"{region}: {v}" for v in fact["value_text"].split("; "))
        parsed.facts = []
        yield from self.emit(parsed)
        yield from self._next(i)

    def region_failed(self, failure):
        self.request_failed(failure)
        yield from self._next(failure.request.meta["region_index"])

    def _next(self, i: int):
        if i + 1 < len(self.regions):
            yield self._request(i + 1)
            return
        yield from self.emit(Parsed(facts=[{"fact": name, "value_num": len(v), "value_text": "; ".join(v)}
                                           for name, v in self.facts.items()]))

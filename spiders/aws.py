"""AWS EC2: the public Price List bulk offer files, one per region, GPU instances only.

``GET https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json``
(no key). The documented offer-file shape: ``{"formatVersion", "disclaimer", "offerCode":
"AmazonEC2", "version", "publicationDate", "products": {<sku>: {"sku", "productFamily",
"attributes": {...}}}, "terms": {"OnDemand": {<sku>: {<sku>.<offerTermCode>: {"priceDimensions":
{<rateCode>: {"unit": "Hrs", "pricePerUnit": {"USD": "55.0400000000"}, ...}}, "termAttributes"}}},
"Reserved": {...}}}``.

**Big answers stay cheap.** A region's file is hundreds of MB (more for us-east-1). It is never
held whole: each request is flagged ``pricewatch_stream`` (spiders/streaming.py), so the body
goes from the network (or the archive, in a replay) to a temp file and into the WARC record
from there, and :func:`parse_offer_file` streams that file with ijson (yajl2 C backend), never
``json.loads``, in passes: ``products`` (kept: only the GPU instance SKUs we compare), then
``terms.OnDemand`` and ``terms.Reserved`` (kept: only those SKUs). Memory is the few hundred
kept SKUs; figures in ``benchmarks/bench_hyperscaler_stream.py``. The temp file is removed
after the parse, also when it fails. ``DOWNLOAD_MAXSIZE`` is raised and ``DOWNLOAD_WARNSIZE``
silenced for these requests only (``download_maxsize`` / ``download_warnsize`` meta); the
regions are read one after the other. ``-a offers_url=...{region}...`` points the spider
elsewhere (a stand-in server in the tests and the benchmark), ``-a max_bytes=N`` lowers that
limit, ``-a stream=0`` takes Scrapy's in-memory path (the benchmark's baseline).

What is an offer (the EC2 price page's "Linux on-demand", the rows a reader compares):
``productFamily`` "Compute Instance", ``operatingSystem`` Linux, ``tenancy`` Shared,
``preInstalledSw`` NA, ``licenseModel`` "No License required", ``capacitystatus`` Used,
``operation`` RunInstances. GPU model and count from the instance type
(``spiders/instance_types.py``); an instance of ``instanceFamily`` "GPU instance" whose type the
table lacks is reported (source fact ``unknown_instance_types``), never guessed.

- ``OnDemand`` terms: billing on-demand, one ``Hrs`` price dimension in USD (checked). An
  OnDemand term that also carries an upfront fee (a ``Quantity`` dimension with a price above
  0) is no on-demand hourly price: the offer is kept *unpriced* (same key, so a claim citing
  it waits instead of moving to another offer), its ``price_raw`` the term as printed
  ("$55.04/h + $1000 upfront (OnDemand JRTCKXETXF)", which no price parse reads as a number),
  and counted in the fact ``on_demand_with_upfront_fee``.
- ``Reserved`` terms: only ``PurchaseOption`` "No Upfront" has a plain hourly rate: billing
  reserved, ``reserved_term`` "1 year" / "3 years" (``LeaseContractLength`` 1yr / 3yr), tier
  "<OfferingClass> no upfront"; Partial / All Upfront mix a fee with an hourly rate and are not
  turned into an hourly figure (counted in the fact ``reserved_with_upfront_fee``), nor is a
  "No Upfront" term whose dimensions do carry a fee (the same fact).
- Spot prices are not in the Price List (a separate feed): not covered here.
- A price dimension whose unit is not "Hrs", a currency other than USD, or a term for a SKU we
  kept with no readable price is a layout error. A 0 price is no offer.
``sku`` = the instance type; ``region`` = the region code of the file.
"""

from __future__ import annotations

import io
from pathlib import Path

import ijson
import scrapy

from spiders.base import Parsed, PriceSpider
from spiders.instance_types import aws_gpus
from spiders.streaming import STREAM_META, use_streaming_handler

OFFERS = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"
#: The regions of the real recording (US East N. Virginia / Ohio, US West Oregon, Tokyo, Mumbai,
#: Sydney, São Paulo); ``-a regions=us-east-1,eu-west-1`` names others.
REGIONS = ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1", "ap-south-1", "ap-southeast-2", "sa-east-1")
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
    allowed_domains = ["pricing.us-east-1.amazonaws.com"]

    family = "hyperscaler"
    robots = "not applicable (API host)"
    terms = ("not checked offline; the Price List bulk offer files are AWS's documented public, "
             "keyless price API (no console or calculator scraping). Files change at most a few times a day.")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "composed"
    source_urls = tuple(OFFERS.format(region=r) for r in REGIONS)

    def __init__(self, *args, regions: str | None = None, offers_url: str | None = None,
                 max_bytes: str | None = None, stream: str = "1", **kwargs):
        super().__init__(*args, **kwargs)
        self.regions = tuple(r.strip() for r in regions.split(",") if r.strip()) if regions else REGIONS
        self.offers_url = offers_url or OFFERS
        self.max_bytes = int(max_bytes) if max_bytes else MAX_BYTES
        # -a stream=0: Scrapy's in-memory path (the benchmark's baseline), the same parse.
        self.stream = stream not in ("0", "false", "no")
        self.facts: dict[str, list[str]] = {}

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        use_streaming_handler(settings)   # live only: a replay streams from the archive

    # One region at a time: the next file is requested once the previous one is parsed (and its
    # temp file removed), so one body of hundreds of MB is on disk at a time (and the facts of
    # all regions are emitted once).
    def _request(self, i: int):
        return scrapy.Request(self.offers_url.format(region=self.regions[i]), callback=self.parse_offers,
                              errback=self.region_failed, cb_kwargs={"i": i},
                              meta={"download_maxsize": self.max_bytes, "download_warnsize": 0, "region_index": i,
                                    STREAM_META: self.stream})

    async def start(self):
        yield self._request(0)

    def parse_offers(self, response, i):
        streamed = getattr(response, "streamed", None)
        try:
            parsed = parse_offer_file(streamed if streamed is not None else response.body, response.url)
        finally:
            if streamed is not None:
                streamed.remove()
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

"""What every provider spider shares: the parser contract, layout errors and failed requests.

A spider's parsing is a plain function from a document (or several) to a :class:`Parsed`:
the offers it found, the facts it read, and one message per distinct layout problem. A problem
of one row (its price cell cannot be read: a placeholder, garbled text, a foreign currency) is
not a problem of the page: the parser *holds* that offer (:meth:`Parsed.hold`: kept unpriced
with the text the page printed, and a ``row held:`` message naming the row and why), the other
rows load and the provider run is suspect; only when most rows are held does it fail
(pricewatch/collect/judge.py). The
spider fetches, calls the parser and hands its result to :meth:`PriceSpider.emit`; tests call
the parser in-process on recorded documents (see ``tests/inprocess.py``) and run its offers
through the same item pipelines a crawl uses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import scrapy
from scrapy.spidermiddlewares.httperror import HttpError

from pricewatch.record.prices import HELD_PRICE_MARK, HELD_ROW, price_in
from spiders.faults import DownloadFailed
from spiders.items import OfferItem, SourceFactItem

#: Class names (substrings) and inline styles that strike a price through: a "was" price.
STRUCK_CLASSES = ("line-through", "strikethrough", "strike-through", "old-price", "price-old",
                  "was-price", "price-was", "price--old")
#: XPath predicate for a node inside struck-through markup (<s>, <del>, <strike>, or an element
#: whose class or style says line-through / old price).
STRUCK = ("ancestor-or-self::*[self::s or self::del or self::strike or "
          + " or ".join(f'contains(@class, "{c}")' for c in STRUCK_CLASSES)
          + ' or contains(translate(@style, "LINETHROUGH", "linethrough"), "line-through")]')
#: What a cell whose only text is struck through reads as: never a price, never "unpriced"
#: words, so every parser refuses it by name ("struck through only: $6.69").
STRUCK_ONLY = "struck through only: "


def _joined(texts) -> str:
    return " ".join(" ".join(texts).split())


def text_of(sel, xpath: str = ".//text()") -> str:
    """The current text under a selector, whitespace collapsed (markup splits cells into many
    nodes). Struck-through text (a "was" price: ``<s>$9.99</s> $6.69``) is not read; a cell
    whose only text is struck through reads ``"struck through only: $9.99"``, which no parser
    takes for a price, an unpriced offer or "not offered"."""
    current = _joined(sel.xpath(f"({xpath})[not({STRUCK})]").getall())
    if current:
        return current
    struck = _joined(sel.xpath(f"({xpath})[{STRUCK}]").getall())
    return STRUCK_ONLY + struck if struck else ""


def no_duplicate_keys(pairs):
    """``object_pairs_hook``: a JSON object naming one key twice is refused (ValueError), not
    read as "the last one wins"."""
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError(f"duplicate key(s) {', '.join(map(repr, dup[:3]))}")
    return dict(pairs)


#: A decoder for ``raw_decode`` of JSON embedded in a page (flight data, escaped blocks).
STRICT_JSON = json.JSONDecoder(object_pairs_hook=no_duplicate_keys)


def stated_currency(obj, expected: str = "USD", keys=("currency", "priceCurrency", "currencyCode",
                                                       "currency_code")) -> str | None:
    """'currency=\'EUR\'' when a JSON object states a currency other than ``expected``, else
    None. The APIs read as USD state none today; one that starts to must not be read as USD."""
    if not isinstance(obj, dict):
        return None
    for key in keys:
        value = obj.get(key)
        if value is not None and str(value).strip().upper() != expected:
            return f"{key}={value!r}"
    return None


def row_name(fields: dict) -> str:
    """An offer's row in a few words: "8x NVIDIA H100 SXM 80 GB on-demand/secure eu-west"."""
    parts = [f"{fields.get('gpu_count', '?')}x {fields.get('gpu_label', '?')}"]
    if fields.get("variant"):
        parts.append(f"[{fields['variant']}]")
    if fields.get("vram_gb"):
        parts.append(f"{fields['vram_gb']:g} GB" if isinstance(fields["vram_gb"], (int, float)) else str(fields["vram_gb"]))
    billing, tier = fields.get("billing"), fields.get("tier")
    parts.append(billing if tier in (None, billing) else f"{billing}/{tier}")
    parts += [str(fields[k]) for k in ("reserved_term", "region", "sku") if fields.get(k)]
    return " ".join(str(p) for p in parts)


def is_held(message: str) -> bool:
    """A message of :meth:`Parsed.hold` (one row held), not a layout error of the page."""
    return message.startswith(HELD_ROW)


@dataclass
class Parsed:
    """What a parser read from a document: offers (OfferItem fields, without provider and
    capture), source facts, and its messages: layout errors (one per distinct problem of the
    page) and held rows (one per offer held, see :meth:`hold`), in ``errors`` both, so the crawl
    report carries them; :attr:`layout_errors` and :attr:`held` tell them apart."""

    offers: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    facts: list[dict] = field(default_factory=list)

    def offer(self, **fields) -> dict:
        self.offers.append(fields)
        return fields

    def error(self, message: str) -> None:
        self.errors.append(message)


    def errors_by_problem(self, where: str, problems: dict[str, list[str]]) -> None:
        """One layout error per distinct problem, counting and naming (up to three) the rows that
        have it: "<where>: 4 price(s) unreadable: a, b, c and 1 more"."""
        for message, rows in problems.items():
            more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
            self.error(f"{where}: {len(rows)} {message}: {', '.join(rows[:3])}{more}")

    def one_copy(self, copies: list, what: str, content=lambda c: c):
        """The one copy of what a page prints more than once (a desktop and a mobile table):
        identical copies (by ``content``) are read once; copies that differ fail the page,
        "2 <what> that differ: refusing to pick one", and None is returned."""
        if len({content(c) for c in copies}) > 1:
            self.error(f"{len(copies)} {what} that differ: refusing to pick one")
            return None
        return copies[0]

    def hold(self, reason: str, **fields) -> dict:
        """One row whose price cannot be read: the offer is kept (``price_raw`` the text the page
        printed, verbatim; None when the row has no price cell), never priced, and held with
        ``reason`` ("price cell unreadable: 'N/A—'"). Its identity fields must be the row's own."""
        raw = fields.get("price_raw")
        fields["price_raw"] = HELD_PRICE_MARK + ("" if raw is None else str(raw))
        fields["held_row"] = reason
        self.offers.append(fields)
        self.errors.append(f"{HELD_ROW}{row_name(fields)}: {reason}")
        return fields

    @property
    def layout_errors(self) -> list[str]:
        """The problems of the page (the provider fails)."""
        return [m for m in self.errors if not is_held(m)]

    @property
    def held(self) -> list[str]:
        """One message per held row."""
        return [m for m in self.errors if is_held(m)]

    def extend(self, other: "Parsed") -> "Parsed":
        self.offers += other.offers
        self.errors += other.errors
        self.facts += other.facts
        return self


def json_price(value, currency: str = "USD") -> tuple[object, str | None]:
    """A price an API answers, as (price_raw, None) when it reads as a price in the answer's
    ``currency``, else (value, why not): a positive number; or a string quoting one that the
    answer's currency reads unambiguously ("$1.09" or "1.09" in a USD answer: the same number
    as 1.09; "€1.09", "CA$1.09" or "N/A" are not read). 0 and null are the caller's to judge
    (not offered, a placeholder): they come back with a reason, as does a bool."""
    if isinstance(value, bool) or value is None:
        return value, f"not a price ({value!r})"
    if isinstance(value, (int, float)):
        return (value, None) if value > 0 else (value, f"not a positive price ({value!r})")
    if isinstance(value, str):
        amount, why = price_in(value, currency)
        return (value, None) if amount is not None else (value, why)
    return value, f"not a price (a JSON {type(value).__name__})"


def price_value(raw) -> float | None:
    """The number of a price json_price read (a number, or the string it quoted), else None."""
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, (int, float)):
        return float(raw)
    amount, _ = price_in(str(raw), "USD")
    return float(amount) if amount is not None else None


def load_json(text: str | bytes, what: str, parsed: Parsed):
    """A JSON document, or None after a layout error. Duplicate keys are an error, not a
    silent "last one wins": a price printed twice with two values is not a price."""
    try:
        return json.loads(text, object_pairs_hook=no_duplicate_keys)
    except ValueError as exc:
        parsed.error(f"{what}: not a JSON document we can read ({str(exc)[:120]})")
        return None


def json_member(document, key: str, kind: type, what: str, parsed: Parsed):
    """document[key] when it is a ``kind`` (list or dict), else None after one layout error
    naming what was expected: an API that changed shape must fail, not yield nothing."""
    name = "list" if kind is list else "object"
    if not isinstance(document, dict) or not isinstance(document.get(key), kind):
        got = type(document.get(key)).__name__ if isinstance(document, dict) and key in document else "nothing"
        parsed.error(f"{what}: expected a JSON object with a '{key}' {name}, found {got}")
        return None
    return document[key]


class PriceSpider(scrapy.Spider):
    #: True for aggregators that re-publish other clouds' offers (never "a provider" of its own).
    is_aggregator = False

    # --- the source, as the `sources` table states it (one place: the spider's module) ----
    #: hyperscaler | neocloud | marketplace | aggregator | own: reports and claims never blend
    #: families without saying so.
    family: str = "neocloud"
    #: What robots.txt says about the URLs this spider fetches, as checked on ``terms_checked``:
    #: "allowed", "disallowed", "no robots.txt", "not applicable (API host)", or "unknown".
    robots: str = "unknown"
    #: The terms of service on automated collection, in one or two sentences, and how the
    #: project handles it (documented public API only, disabled by default, ...).
    terms: str = ""
    #: The collection cadence the source tolerates ("daily", "hourly", "15 min").
    cadence: str = "daily"
    #: False for sources whose terms forbid scraping: they run only when asked by name.
    enabled_by_default: bool = True
    #: The one page a single-page spider reads (`-a pricing_url=...` points a test at a stand-in).
    pricing_url: str | None = None

    #: The parser of a spider whose every answer is parsed alone: ``parse_<what>(text, url) ->
    #: Parsed`` (declared as ``page_parser = staticmethod(parse_<what>)``).
    page_parser = None

    async def start(self):
        # Spiders reading several documents or an API define their own start().
        yield scrapy.Request(self.pricing_url, callback=self.parse, errback=self.request_failed)

    def parse(self, response):
        if self.page_parser is None:
            raise NotImplementedError(f"{self.name}: set page_parser or define parse()")
        yield from self.emit(self.page_parser(response.text, response.url))

    def emit(self, parsed: Parsed, capture: dict | None = None):
        """Items of a parser's result, its errors into the crawl report. ``capture``: the
        evidence of a multi-document join (default: the response the spider is parsing)."""
        for message in parsed.errors:
            if is_held(message):
                self.held_row(message)
            else:
                self.layout_error(message)
        for fields in parsed.offers:
            item = OfferItem(provider=self.name, **fields)
            if self.is_aggregator:
                item.setdefault("is_aggregator", True)
            if capture and not item.get("capture"):
                item["capture"] = capture
            yield item
        for fields in parsed.facts:
            fact = SourceFactItem(provider=self.name, **fields)
            if capture and not fact.get("capture"):
                fact["capture"] = capture
            yield fact

    def layout_error(self, message: str) -> None:
        """The page no longer looks like what the parser knows: say what is missing."""
        self.logger.error("layout: %s", message)
        errors = self.crawler.stats.get_value("pricewatch/layout_errors", [])
        self.crawler.stats.set_value("pricewatch/layout_errors", errors + [message])

    def held_row(self, message: str) -> None:
        """One row held (its price cell unreadable): into the crawl report beside the layout
        errors, where the judge counts it apart (pricewatch/collect/judge.py)."""
        self.logger.warning("%s", message)
        errors = self.crawler.stats.get_value("pricewatch/layout_errors", [])
        self.crawler.stats.set_value("pricewatch/layout_errors", errors + [message])

    def json_member(self, response, key: str, kind: type):
        """(document, document[key]) of a JSON answer, or (None, None) after a layout error."""
        parsed = Parsed()
        document = load_json(response.text, response.url, parsed)
        member = json_member(document, key, kind, response.url, parsed) if document is not None else None
        for message in parsed.errors:
            self.layout_error(message)
        return (document, member) if member is not None else (None, None)

    def request_failed(self, failure):
        """Errback: a request that failed for good (after retries) is named in the report."""
        request = failure.request
        if failure.check(HttpError):
            what = f"HTTP {failure.value.response.status}"
        elif failure.check(DownloadFailed):
            what = str(failure.value)   # already one line: what happened, after how many attempts
        else:
            what = f"{failure.type.__name__}: {failure.getErrorMessage()}"
        self.logger.error("request failed: %s %s", request.url, what)
        failed = self.crawler.stats.get_value("pricewatch/failed_urls", [])
        self.crawler.stats.set_value("pricewatch/failed_urls", failed + [f"{request.url} ({what})"])

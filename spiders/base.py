"""What every provider spider shares: layout errors and failed requests go into the crawl report."""

from __future__ import annotations

import json

import scrapy
from scrapy.spidermiddlewares.httperror import HttpError


def text_of(sel, xpath: str = ".//text()") -> str:
    """All text under a selector, whitespace collapsed (markup splits cells into many nodes)."""
    return " ".join(" ".join(sel.xpath(xpath).getall()).split())


class PriceSpider(scrapy.Spider):
    #: True for aggregators that re-publish other clouds' offers (never "a provider" of its own).
    is_aggregator = False
    #: The one page a single-page spider reads (`-a pricing_url=...` points a test at a stand-in).
    pricing_url: str | None = None

    async def start(self):
        # Spiders reading several documents or an API define their own start().
        yield scrapy.Request(self.pricing_url, callback=self.parse, errback=self.request_failed)

    def layout_error(self, message: str) -> None:
        """The page no longer looks like what the parser knows: say what is missing."""
        self.logger.error("layout: %s", message)
        errors = self.crawler.stats.get_value("pricewatch/layout_errors", [])
        self.crawler.stats.set_value("pricewatch/layout_errors", errors + [message])

    def json_member(self, response, key: str, kind: type):
        """(document, document[key]) of a JSON answer, or (None, None) after a layout error
        naming what was expected: an API that changed shape must fail, not yield nothing."""
        what = "list" if kind is list else "object"
        try:
            document = json.loads(response.text)
            member = document[key]
            if not isinstance(member, kind):
                raise TypeError(f"{key} is {type(member).__name__}")
        except (ValueError, KeyError, TypeError) as exc:
            self.layout_error(f"{response.url}: expected a JSON object with a '{key}' {what} ({exc!r})")
            return None, None
        return document, member

    def request_failed(self, failure):
        """Errback: a request that failed for good (after retries) is named in the report."""
        request = failure.request
        if failure.check(HttpError):
            what = f"HTTP {failure.value.response.status}"
        else:
            what = f"{failure.type.__name__}: {failure.getErrorMessage()}"
        self.logger.error("request failed: %s %s", request.url, what)
        failed = self.crawler.stats.get_value("pricewatch/failed_urls", [])
        self.crawler.stats.set_value("pricewatch/failed_urls", failed + [f"{request.url} ({what})"])

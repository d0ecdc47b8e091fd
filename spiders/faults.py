"""Network faults of a crawl, each ending in one clear line naming the URL and what happened.

:class:`NetworkFaultMiddleware` takes the place of Scrapy's RetryMiddleware (same slot, 550:
after decompression, so it sees the document the spider would parse). It retries what a retry
can fix and gives up at once on what it cannot:

===============================  ============================================================
fault                            what the crawl does
===============================  ============================================================
HTTP 5xx / 408 / 429             retried ``RETRY_TIMES``; then "HTTP 503 after 4 attempts"
``Retry-After: N`` (429, 503)    the retry waits N s (not in a replay: nothing to wait for);
                                 N above ``PRICEWATCH_RETRY_AFTER_MAX_S`` (60) fails at once
                                 ("asked to wait N s"), a crawl never sleeps for an hour
no answer in DOWNLOAD_TIMEOUT    "timed out after 30 s", not retried by default
                                 (``PRICEWATCH_RETRY_TIMEOUTS``): a host that gave no answer in
                                 30 s rarely gives one a moment later, and each try costs 30 s
DNS failure / no route           not retried, and every later request to that host in this
                                 crawl fails at once with the same line (no network: no loops)
connection refused               not retried in the crawl (an immediate retry meets the same
                                 closed port); the nightly flow may retry the crawl later
body shorter than its            Scrapy's dataloss check (``DOWNLOAD_FAIL_ON_DATALOSS``);
Content-Length                   retried, then "body cut off before its Content-Length"
a body cut with no               the document judged by its type (spiders/completeness.py):
Content-Length (the server       a whole HTML page without ``</body>``/``</html>``, a JSON
closed the connection)           that ends inside a string or with brackets open, an RSC
                                 stream whose last row is incomplete, a gzip/deflate/br stream
                                 without its end, a browser page whose received document is
                                 cut: retried, then "JSON document cut off at N bytes (...)".
                                 Excerpts (no page start) are not judged
===============================  ============================================================

Every give-up raises :class:`DownloadFailed` carrying that line, so the spider's errback
(``PriceSpider.request_failed``) names the URL with it; the kind of fault is counted under
``pricewatch/network_faults`` for the crawl report (the flow's retry decision reads it).
"""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    ResponseDataLossError,
)
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.error import (
    ConnectionDone,
    ConnectionLost,
    DNSLookupError,
    NoRouteError,
)
from twisted.internet.error import ConnectionRefusedError as TxConnectionRefusedError
from twisted.internet.error import TimeoutError as TxTimeoutError
from twisted.internet.task import deferLater

from spiders.completeness import cut_off, html_cut_off

#: Kinds of fault a retry of the whole crawl (minutes later) cannot be expected to fix.
NOT_TRANSIENT = frozenset({"dns", "no-route", "timeout", "retry-after-too-long"})


class DownloadFailed(Exception):
    """A request given up on; ``str()`` is the one line to show (without the URL)."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


def retry_after_seconds(value: bytes | str | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP date), else None."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def cut_off_html(response) -> str | None:
    """Why an HTML response is an incomplete page, or None: the HTML rule of
    spiders/completeness.py on a response (a whole page must reach ``</body>``/``</html>``;
    shipped captures that are excerpts of a page are not judged)."""
    ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
    return html_cut_off(response.body, ctype)


def _attempts(request) -> int:
    return request.meta.get("retry_times", 0) + 1


def _plural(n: int) -> str:
    return f"{n} attempt" + ("" if n == 1 else "s")


class NetworkFaultMiddleware(RetryMiddleware):
    def __init__(self, settings):
        super().__init__(settings)
        self.retry_after_max = settings.getfloat("PRICEWATCH_RETRY_AFTER_MAX_S", 60)
        self.retry_timeouts = settings.getbool("PRICEWATCH_RETRY_TIMEOUTS", False)
        self.timeout = settings.getfloat("DOWNLOAD_TIMEOUT")
        self.replay = bool(settings.get("PRICEWATCH_REPLAY"))
        self.unreachable: dict[str, DownloadFailed] = {}   # host -> why (DNS failure, no route)

    # -- helpers --------------------------------------------------------------------------
    def _give_up(self, request, message: str, kind: str) -> DownloadFailed:
        stats = self.crawler.stats
        stats.inc_value(f"pricewatch/network_faults/{kind}")
        self.crawler.spider.logger.warning("giving up on %s: %s", request.url, message)
        return DownloadFailed(message, kind)

    def _retry_or_fail(self, request, reason: str, kind: str, message: str):
        """The retry request, or a DownloadFailed to raise ("<message> after N attempts")."""
        if not request.meta.get("dont_retry", False):
            retry = self._retry(request, reason)
            if retry is not None:
                return retry
        raise self._give_up(request, f"{message} after {_plural(_attempts(request))}", kind)

    # -- requests -------------------------------------------------------------------------
    def process_request(self, request):
        host = urlsplit(request.url).hostname or ""
        known = self.unreachable.get(host)
        if known is not None:
            raise self._give_up(request, f"not tried: {known} on an earlier request", known.kind)
        return None

    # -- responses ------------------------------------------------------------------------
    async def process_response(self, request, response):
        status = response.status
        if status in self.retry_http_codes and not self._handles(request, status):
            message = f"HTTP {status}"
            wait = retry_after_seconds(response.headers.get(b"Retry-After")) if status in (429, 503) else None
            if wait is not None and wait > self.retry_after_max:
                raise self._give_up(request, f"HTTP {status} asked to wait {wait:.0f} s before a retry "
                                             f"(a crawl waits at most {self.retry_after_max:.0f} s)",
                                    "retry-after-too-long")
            retry = self._retry_or_fail(request, message, "http", message)
            if wait and not self.replay:
                self.crawler.stats.inc_value("pricewatch/retry_after_waited_s", round(wait, 1))
                self.crawler.spider.logger.info("%s: HTTP %s, waiting %.1f s (Retry-After)", request.url, status, wait)
                from twisted.internet import (
                    reactor,  # the crawl's installed reactor, not a default one
                )
                await maybe_deferred_to_future(deferLater(reactor, wait, lambda: None))
            return retry
        if 200 <= status < 300 and request.method != "HEAD":
            problem = cut_off(response)
            if problem:
                return self._retry_or_fail(request, "truncated body", "truncated", problem)
        return response

    @staticmethod
    def _handles(request, status: int) -> bool:
        """The spider asked to see this status itself (a 404 it expects, say)."""
        return request.meta.get("handle_httpstatus_all", False) or status in request.meta.get("handle_httpstatus_list", ())

    # -- exceptions -----------------------------------------------------------------------
    def process_exception(self, request, exception):
        if isinstance(exception, DownloadFailed):
            return None
        host = urlsplit(request.url).hostname or ""
        if isinstance(exception, (CannotResolveHostError, DNSLookupError)):
            failed = self._give_up(request, f"DNS lookup of {host} failed", "dns")
            self.unreachable[host] = failed
            raise failed
        if isinstance(exception, NoRouteError):
            failed = self._give_up(request, f"no route to {host} (is the network down?)", "no-route")
            self.unreachable[host] = failed
            raise failed
        if isinstance(exception, (DownloadConnectionRefusedError, TxConnectionRefusedError)):
            port = urlsplit(request.url).port
            raise self._give_up(request, f"connection refused by {host}" + (f":{port}" if port else ""), "refused")
        if isinstance(exception, (DownloadTimeoutError, TxTimeoutError)):
            timeout = request.meta.get("download_timeout", self.timeout)
            message = f"timed out: no answer within {timeout:g} s"
            if not self.retry_timeouts:
                raise self._give_up(request, f"{message} ({_plural(_attempts(request))})", "timeout")
            return self._retry_or_fail(request, "timeout", "timeout", message)
        if isinstance(exception, ResponseDataLossError):
            return self._retry_or_fail(request, "data loss", "dataloss",
                                       "body cut off before its Content-Length (connection closed early)")
        if isinstance(exception, (DownloadFailedError, ConnectionDone, ConnectionLost)):
            return self._retry_or_fail(request, "connection dropped", "dropped",
                                       "connection closed before a complete answer")
        if isinstance(exception, self.exceptions_to_retry) and not request.meta.get("dont_retry", False):
            retry = self._retry(request, exception)
            if retry is not None:
                return retry
            raise self._give_up(request, f"{type(exception).__name__}: {exception} "
                                         f"after {_plural(_attempts(request))}", "other")
        return None

"""Browser pages (scrapy-playwright + Debian chromium) that are archived and replayed like any page.

A page whose prices are filled in by its own JavaScript is only evidence if the page, its
scripts and the requests those scripts make are all archived, and a replay is only a test of
the parser if the page's JavaScript runs again on them. So:

* live: the browser fetches as usual (scrapy-playwright's own route applies our User-Agent);
  every response it receives is written, body as received, to the crawl's WARC file
  (``spiders.middlewares.crawl_archive``). The rendered DOM handed to the spider is derived,
  not received: it is written after them as a ``conversion`` record whose ``WARC-Refers-To`` is
  the page's own response (``response.meta["rendered_capture"]``), never as a response, so a
  replay serves the network responses and the page's JavaScript renders it again.
* replay (PRICEWATCH_REPLAY): every browser request is fulfilled from the archive
  (``pricewatch.evidence.archive.ReplayIndex``). A request the archive does not hold is aborted (a
  navigation gets a 404) and named in the crawl report; nothing reaches the network.

Either way the page's own document, as received (not the DOM rendered from it, which the browser
always closes), is judged whole or cut by spiders/completeness.py: a cut one flags the response
(``CUT_FLAG``) and the fault middleware retries it, then fails the request in one line.

Either way ``response.meta["browser_captures"]`` maps each URL the page loaded to the record it
came from, so an item can point to the JSON its price came from rather than to the page.

Use: ``custom_settings = BROWSER_SETTINGS`` and requests from ``browser_request()``. The
replay add-on (spiders/addons.py) keeps handlers whose path names "playwright", hence this
module's name.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import zlib
from datetime import datetime, timezone
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

import scrapy
from playwright.async_api import Error as PlaywrightError
from scrapy.utils.misc import load_object
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
from scrapy_playwright.page import PageMethod

from spiders.completeness import body_cut_off, flag_cut
from spiders.middlewares import crawl_archive
from spiders.replay import WarcReplayDownloadHandler

logger = logging.getLogger(__name__)

HANDLER = "spiders.playwright_replay.ArchivingPlaywrightHandler"
BROWSER_SETTINGS = {"DOWNLOAD_HANDLERS": {"http": HANDLER, "https": HANDLER}}

# Never prices, often third-party and heavy: not fetched live, so not expected in a replay.
SKIPPED_RESOURCE_TYPES = {"image", "media", "font"}
SKIPPED_EXTENSIONS = (".ico", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".woff", ".woff2", ".ttf")
# The body we store is decoded, and a fulfilled response states its own length.
_WIRE_HEADERS = {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
# Replay: the browser's proxy, a closed local port.
NO_PROXY = "http://127.0.0.1:9"
# After a needed request failed, how long the page's own error handling gets before we stop waiting.
FAILURE_GRACE_S = 2.0

_sessions: WeakKeyDictionary = WeakKeyDictionary()  # page -> PageSession


def browser_request(url: str, callback, errback, wait_for: str, timeout_ms: int = 20000, **kw) -> scrapy.Request:
    """A request rendered in Chromium; ``wait_for`` is a CSS selector present once the page's
    script has finished (successfully or not). The spider checks what was filled."""
    meta = {"playwright": True, "playwright_page_methods": [PageMethod(wait_for_page(wait_for, timeout_ms))],
            **kw.pop("meta", {})}
    return scrapy.Request(url, callback=callback, errback=errback, meta=meta, **kw)


def wait_for_page(selector: str, timeout_ms: int):
    """Waits for ``selector`` (attached, may be hidden), but not for the full timeout when a
    request the page needs has already failed: the spider then reports what is missing."""

    async def wait(page):
        session = _sessions.get(page)
        waiter = asyncio.ensure_future(page.wait_for_selector(selector, state="attached", timeout=timeout_ms))
        broken = asyncio.ensure_future(session.incomplete.wait()) if session else None
        try:
            done, _ = await asyncio.wait({waiter, broken} - {None}, return_when=asyncio.FIRST_COMPLETED)
            if waiter not in done:
                await asyncio.wait({waiter}, timeout=FAILURE_GRACE_S)
        finally:
            for task in (waiter, broken):
                if task and not task.done():
                    task.cancel()
        if waiter.done() and not waiter.cancelled() and waiter.exception():
            logger.warning("%s: %s never appeared: %s", page.url, selector, waiter.exception())

    return wait


def skipped(pw_request) -> bool:
    return (pw_request.resource_type in SKIPPED_RESOURCE_TYPES
            or urlsplit(pw_request.url).path.lower().endswith(SKIPPED_EXTENSIONS))


class PageSession:
    """One rendered page: routes its requests (replay) or records its responses (live)."""

    def __init__(self, handler: "ArchivingPlaywrightHandler", request: scrapy.Request):
        self.handler = handler
        self.stats = handler.crawler.stats
        self.request = request
        self.captures: dict[str, dict] = {}        # url -> CaptureRef.as_meta(), last one wins
        self.document: dict | None = None           # the navigation's record
        self.exchanges: list[asyncio.Task] = []     # live: bodies being read
        self.skipped: set[str] = set()
        # Set when the page cannot complete: its document is an error, or a request it made
        # failed (replay: was not archived). Its own sub-request errors are left to its script.
        self.incomplete = asyncio.Event()
        self.attached = False
        self.rendered: dict | None = None           # live: the conversion record of the rendered DOM
        self.cut: str | None = None                 # why the document as received is cut off

    async def attach(self, page, request) -> None:
        """playwright_page_init_callback: runs after scrapy-playwright routed the page, so this
        route takes precedence (Playwright runs the last registered route first)."""
        _sessions[page] = self
        await page.route("**/*", self.route)
        if not self.handler.replay:
            page.on("response", self.live_response)
            page.on("requestfailed", self.live_failure)
        self.attached = True

    async def route(self, route, pw_request) -> None:
        if skipped(pw_request):
            self.skipped.add(pw_request.url)
            await route.abort("blockedbyclient")
            return
        if not self.handler.replay:
            await route.fallback()  # scrapy-playwright's handler: our headers, then the network
            return
        archived = self.handler.index.next_response(pw_request.url)
        if archived is None:
            self.missing(pw_request)
            if pw_request.is_navigation_request():
                await route.fulfill(status=404, headers={"X-Pricewatch-Replay": "not in archive"}, body=b"")
            else:
                await route.abort("internetdisconnected")
            return
        self.record(archived.url, archived.ref.as_meta(), archived.status, pw_request)
        if _is_document(pw_request) and 200 <= archived.status < 300:
            self.cut = body_cut_off(archived.body, archived.headers)
        headers: dict[str, str] = {}
        for k, v in archived.headers:
            if k.lower() not in _WIRE_HEADERS:
                headers[k] = f"{headers[k]}, {v}" if k in headers else v
        try:
            body = _decoded(archived.body, archived.headers)
        except (OSError, EOFError, zlib.error):   # a cut compressed stream: self.cut says so
            body = b""
        await route.fulfill(status=archived.status, headers=headers, body=body)

    def record(self, url: str, capture: dict, status: int, pw_request) -> None:
        self.captures[url] = capture
        if _is_document(pw_request):
            self.document = capture
            if status >= 400:
                self.incomplete.set()
        else:  # the document itself is counted by Scrapy as the page's response
            self.stats.inc_value(f"downloader/response_status_count/{status}")

    def missing(self, pw_request) -> None:
        what = f"{pw_request.url} (not in the replay archive; {pw_request.resource_type} requested by the page)"
        logger.error("replay: %s", what)
        self.stats.inc_value("pricewatch/replay_missing")
        self.incomplete.set()
        if not pw_request.is_navigation_request():  # a missing page is a 404, reported by Scrapy
            self._failed(what)

    def live_response(self, response) -> None:
        self.exchanges.append(asyncio.ensure_future(self.read(response)))
        if _is_document(response.request) and response.status >= 400:
            self.incomplete.set()

    def live_failure(self, pw_request) -> None:
        if pw_request.url in self.skipped or pw_request.is_navigation_request():
            return
        self._failed(f"{pw_request.url} ({pw_request.resource_type} requested by the page: {pw_request.failure})")

    def _failed(self, what: str) -> None:
        failed = self.stats.get_value("pricewatch/failed_urls", [])
        self.stats.set_value("pricewatch/failed_urls", failed + [what])
        self.incomplete.set()

    async def read(self, response) -> tuple:
        """Live: the response as the browser received it, read while the page is still open."""
        try:
            body = await response.body()
        except PlaywrightError:  # redirects and aborted loads have no body
            body = b""
        return (response, body, await response.all_headers(), await response.request.all_headers(),
                datetime.now(timezone.utc))

    async def archive(self, rendered=None) -> None:
        """Live: writes what the page fetched to the crawl's WARC file, in arrival order, then
        the DOM the browser rendered from it (``rendered``: the response handed to the spider)
        as a conversion of the page's response."""
        writer = crawl_archive(self.handler.crawler)
        for read in await asyncio.gather(*self.exchanges, return_exceptions=True):
            if isinstance(read, BaseException):
                logger.warning("%s: a browser response could not be read for the archive: %r", self.request.url, read)
                continue
            response, body, headers, req_headers, at = read
            ref = writer.write(
                response.url, response.status, response.status_text,
                [(k, v) for k, v in headers.items() if k.lower() not in _WIRE_HEADERS], body,
                captured_at=at, request_method=response.request.method,
                request_headers=[(k, v) for k, v in req_headers.items() if not k.startswith(":")],
                request_body=response.request.post_data_buffer or b"",
            )
            self.record(response.url, ref.as_meta(), response.status, response.request)
            if _is_document(response.request) and 200 <= response.status < 300:
                # Playwright hands the body decoded: judged without its Content-Encoding.
                self.cut = body_cut_off(body, [(k, v) for k, v in headers.items()
                                               if k.lower() != "content-encoding"])
        if rendered is not None and self.document:
            ref = writer.write_conversion(rendered.url, self.document["warc_record_id"], rendered.body,
                                          f"text/html; charset={getattr(rendered, 'encoding', 'utf-8')}")
            self.rendered = ref.as_meta()


class ArchivingPlaywrightHandler(ScrapyPlaywrightDownloadHandler):
    """scrapy-playwright's handler, with every browser request archived (live) or served from
    the archive (replay). Requests without ``meta["playwright"]`` (robots.txt) go the usual way:
    the network live, the archive in a replay."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self.crawler = crawler
        self.replay = crawler.settings.get("PRICEWATCH_REPLAY")
        if self.replay:
            self.plain = WarcReplayDownloadHandler(crawler)
            self.index = self.plain.index
            # Fail closed: a request that got past our route to scrapy-playwright's (which
            # would continue it to the network) is aborted, and whatever the browser might
            # still send on its own meets a proxy that is not there.
            self.abort_request = lambda pw_request: True
            self.config.launch_options = {**self.config.launch_options, "proxy": {"server": NO_PROXY}}

    async def download_request(self, request):
        if not request.meta.get("playwright"):
            if self.replay:
                return await self.plain.download_request(request)
            return await super().download_request(request)
        session = PageSession(self, request)
        own_init = request.meta.get("playwright_page_init_callback")
        own_init = getattr(own_init, "spider_callback", own_init)  # a retry carries our previous one

        async def init(page, req):
            await session.attach(page, req)
            if own_init:
                await load_object(own_init)(page, req)

        init.spider_callback = own_init

        keep_page = request.meta.get("playwright_include_page", False)
        request.meta["playwright_page_init_callback"] = init
        request.meta["playwright_include_page"] = True  # we close it once its bodies are read
        response = None
        try:
            response = await super().download_request(request)
            if not session.attached:
                raise RuntimeError(f"{request.url}: browser routing was not installed (see log)")
        finally:
            if not self.replay:  # also when the page failed: what it did receive is evidence
                await session.archive(response)
            page = request.meta.get("playwright_page")
            if not keep_page:
                request.meta.pop("playwright_page", None)
                request.meta["playwright_include_page"] = False
                if page is not None and not page.is_closed():
                    await page.close()
        if session.cut and response is not None:
            why = session.cut
            flag_cut(response, why[:-1] + ", as the browser got it)" if why.endswith(")") else why)
        request.meta["browser_captures"] = dict(session.captures)
        if session.document:
            request.meta["capture"] = session.document
        if session.rendered:
            request.meta["rendered_capture"] = session.rendered
        return response


def _is_document(pw_request) -> bool:
    try:
        return pw_request.is_navigation_request() and pw_request.frame.parent_frame is None
    except PlaywrightError:  # service-worker requests have no frame
        return False


def _decoded(body: bytes, headers: list[tuple[str, str]]) -> bytes:
    """Bodies archived by the plain middleware keep their Content-Encoding; the browser gets
    them decoded since we drop that header."""
    encoding = next((v.lower() for k, v in headers if k.lower() == "content-encoding"), "")
    if "gzip" in encoding:
        return gzip.decompress(body)
    if "deflate" in encoding:
        return zlib.decompress(body)
    return body

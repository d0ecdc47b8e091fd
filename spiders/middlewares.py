"""Evidence: archive every live response to WARC, and tag every item with the record it came from."""

from __future__ import annotations

import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import NotConfigured

from pricewatch.evidence.archive import ArchiveError, WarcArchiveWriter

logger = logging.getLogger(__name__)

_crawl_writers: WeakKeyDictionary = WeakKeyDictionary()


def crawl_archive(crawler) -> WarcArchiveWriter:
    """The crawl's one dated WARC file, opened on first use. Shared with the browser download
    handler (spiders/playwright_replay.py), which archives what the browser itself fetched."""
    writer = _crawl_writers.get(crawler)
    if writer is None:
        now = datetime.now(timezone.utc)
        root = Path(crawler.settings.get("PRICEWATCH_ARCHIVE_DIR"))
        name = f"{crawler.spider.name}-{now:%Y%m%dT%H%M%SZ}-{os.getpid()}.warc.gz"
        writer = _crawl_writers[crawler] = WarcArchiveWriter(root / f"{now:%Y-%m-%d}" / name)
        files = crawler.stats.get_value("pricewatch/warc_files", [])
        crawler.stats.set_value("pricewatch/warc_files", files + [str(writer.path)])
    return writer


def package_crawl_archive(crawler) -> None:
    """When the crawl has finished: its WARC file is closed and packaged as a WACZ beside it
    (pricewatch/evidence/wacz.py), unless PRICEWATCH_WACZ is off. A crawl that received nothing has no
    WARC and gets no WACZ. The WACZ is derived from the WARC (the evidence offers point to):
    a packaging failure is logged and counted, it does not fail the crawl."""
    writer = _crawl_writers.pop(crawler, None)
    if writer is None:
        return
    writer.close()
    if not writer.path.exists() or not crawler.settings.getbool("PRICEWATCH_WACZ", True):
        return
    from pricewatch.evidence import wacz
    try:
        out = wacz.package([writer.path], wacz.wacz_path(writer.path),
                           title=f"pricewatch {crawler.spider.name} crawl {writer.path.parent.name}",
                           description=f"every response the {crawler.spider.name} crawl received, with its request")
    except (ArchiveError, ValueError, OSError) as exc:
        logger.error("WACZ of %s not written: %s", writer.path, exc)
        crawler.stats.inc_value("pricewatch/wacz_errors")
        return
    crawler.stats.set_value("pricewatch/wacz_files", crawler.stats.get_value("pricewatch/wacz_files", []) + [str(out)])


class WarcArchiveMiddleware:
    """Writes each response (any status) with its request to a dated WARC file, one file per
    crawl, and records the reference in ``request.meta['capture']``; when the crawl closes,
    packages that file as a WACZ beside it. Off during a replay: the replayed archive already
    is the evidence. A streamed response (its body in a temp file, spiders/streaming.py) is
    written from that file with the headers as received: the same record, never in memory."""

    def __init__(self, crawler):
        if crawler.settings.get("PRICEWATCH_REPLAY"):
            raise NotConfigured("replaying an archive")
        self.crawler = crawler
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def spider_closed(self, spider, reason) -> None:
        # A crawl stopped early (SIGTERM: "shutdown") keeps its WARC file as it is and gets no
        # WACZ: a stop must be quick, and the WACZ would describe an interrupted crawl.
        if reason == "finished":
            package_crawl_archive(self.crawler)
        elif (writer := _crawl_writers.pop(self.crawler, None)) is not None:
            writer.close()

    def _writer(self) -> WarcArchiveWriter:
        return crawl_archive(self.crawler)

    def process_response(self, request, response):
        if "browser_captures" in request.meta:
            # A browser page: its handler archived what came off the wire (the page, its
            # scripts, their requests); this response is the rendered DOM, derived, not evidence.
            return response
        req_headers = [(k.decode("latin-1"), v.decode("latin-1"))
                       for k, vs in request.headers.items() for v in vs]
        streamed = getattr(response, "streamed", None)
        if streamed is not None:
            # A body spooled to a temp file (spiders/streaming.py): the record is written from
            # the file with the headers as received, never read into memory.
            ref = self._writer().write_streamed(
                response.url, response.status, "", streamed.headers, streamed,
                request_method=request.method, request_headers=req_headers, request_body=request.body,
            )
            request.meta["capture"] = ref.as_meta()
            return response
        headers = [(k.decode("latin-1"), v.decode("latin-1"))
                   for k, vs in response.headers.items() for v in vs]
        ref = self._writer().write(
            response.url, response.status, "", headers, response.body,
            request_method=request.method, request_headers=req_headers, request_body=request.body,
        )
        request.meta["capture"] = ref.as_meta()
        return response


class CaptureRefMiddleware:
    """Every item points to the archived response it was parsed from, unless the spider set
    a more precise one (e.g. the price document of a two-document join)."""

    async def process_spider_output(self, response, result):
        capture = response.meta.get("capture")
        async for item in result:
            if capture and hasattr(item, "fields") and "capture" in item.fields and not item.get("capture"):
                item["capture"] = capture
            yield item

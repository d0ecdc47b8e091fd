"""Evidence: archive every live response to WARC, and tag every item with the record it came from."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from scrapy.exceptions import NotConfigured

from pricewatch.archive import WarcArchiveWriter


class WarcArchiveMiddleware:
    """Writes each response (any status) with its request to a dated WARC file, one file per
    crawl, and records the reference in ``request.meta['capture']``. Off during a replay:
    the replayed archive already is the evidence."""

    def __init__(self, crawler):
        settings = crawler.settings
        if settings.get("PRICEWATCH_REPLAY"):
            raise NotConfigured("replaying an archive")
        self.crawler = crawler
        self.root = Path(settings.get("PRICEWATCH_ARCHIVE_DIR"))
        self.writer: WarcArchiveWriter | None = None

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _writer(self) -> WarcArchiveWriter:
        if self.writer is None:
            now = datetime.now(timezone.utc)
            name = f"{self.crawler.spider.name}-{now:%Y%m%dT%H%M%SZ}-{os.getpid()}.warc.gz"
            self.writer = WarcArchiveWriter(self.root / f"{now:%Y-%m-%d}" / name)
            files = self.crawler.stats.get_value("pricewatch/warc_files", [])
            self.crawler.stats.set_value("pricewatch/warc_files", files + [str(self.writer.path)])
        return self.writer

    def process_response(self, request, response):
        headers = [(k.decode("latin-1"), v.decode("latin-1"))
                   for k, vs in response.headers.items() for v in vs]
        req_headers = [(k.decode("latin-1"), v.decode("latin-1"))
                       for k, vs in request.headers.items() for v in vs]
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

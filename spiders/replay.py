"""Download handler that answers requests from a WARC archive instead of the network.

Set as the http/https handler when PRICEWATCH_REPLAY is set, so a replay goes through the
same engine, downloader middlewares (retry, robots.txt, compression), spider and pipelines
as a live crawl; only the socket is replaced. A URL missing from the archive is a 404.

A request flagged ``pricewatch_stream`` (a body of hundreds of MB, spiders/streaming.py) is
answered with its payload copied to a temp file in chunks (``spooled_replay``), never held
whole; a record too big to index held (pricewatch/evidence/warc_read.py ``StoredPayload``) is read
from the WARC file when served (into memory only for a request that is not flagged).

A bad WARC file is never served (pricewatch/evidence/archive.py): in a folder it is skipped with one
warning line; a single bad file leaves nothing to serve, and the crawl fails with that line
(in ``pricewatch/failed_urls``) instead of a traceback.
"""

from __future__ import annotations

import logging
from pathlib import Path

from scrapy.core.downloader.handlers.base import BaseDownloadHandler
from scrapy.http import Headers
from scrapy.responsetypes import responsetypes

from pricewatch.evidence.archive import ArchiveError, ReplayIndex
from spiders.faults import DownloadFailed
from spiders.streaming import STREAM_META, CrawlSpool, spooled_replay

logger = logging.getLogger(__name__)


class WarcReplayDownloadHandler(BaseDownloadHandler):
    lazy = False
    _indexes: dict[str, ReplayIndex] = {}

    def __init__(self, crawler):
        super().__init__(crawler)
        path = crawler.settings.get("PRICEWATCH_REPLAY")
        # One index per archive per process: http and https handlers share served-counters.
        if path not in self._indexes:
            try:
                self._indexes[path] = ReplayIndex.load(path)
            except (ArchiveError, OSError) as exc:
                logger.error("replay archive unreadable: %s", exc)
                # The crawl report cuts long lines: the file's name and what is wrong come
                # first (the crawl log above has the full path).
                short = f"{Path(exc.file).name}: {exc.reason}" if isinstance(exc, ArchiveError) else str(exc)
                self._indexes[path] = ReplayIndex(problems=[short], unreadable=True)
        self.index = self._indexes[path]
        self.spool = CrawlSpool(crawler.settings)
        if self.index.unreadable:
            failed = crawler.stats.get_value("pricewatch/failed_urls", [])
            line = f"replay archive unreadable: {self.index.problems[0]}"
            if line not in failed:
                crawler.stats.set_value("pricewatch/failed_urls", failed + [line])

    async def download_request(self, request):
        stream = bool(request.meta.get(STREAM_META))
        try:
            archived = self.index.next_response(request.url, held=not stream)
        except ArchiveError as exc:   # a payload too big to index held, damaged since
            raise DownloadFailed(f"archived record unusable: {exc.reason}", "replay-digest") from None
        if archived is None:
            if not request.url.endswith("/robots.txt"):
                self.crawler.stats.inc_value("pricewatch/replay_missing")
            return responsetypes.from_args(url=request.url)(
                url=request.url, status=404, body=b"", request=request,
                headers=Headers({"X-Pricewatch-Replay": "not in archive"}))
        if stream:
            response = spooled_replay(self.spool, archived, request)
            request.meta["capture"] = archived.ref.as_meta()
            return response
        body = archived.body
        headers = Headers()
        for k, v in archived.headers:
            headers.appendlist(k, v)
        cls = responsetypes.from_args(headers=headers, url=request.url, body=body)
        request.meta["capture"] = archived.ref.as_meta()
        return cls(url=request.url, status=archived.status, headers=headers, body=body,
                   request=request)

    async def close(self) -> None:
        self.spool.close()

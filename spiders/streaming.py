"""Bodies of hundreds of MB, streamed: network -> temp file -> WARC record -> parser, never held
whole in memory.

A request with ``meta["pricewatch_stream"] = True`` (the AWS offer files, spiders/aws.py) is
answered with a :class:`StreamedResponse`: ``body`` is empty and ``streamed`` is the spooled
body (pricewatch/evidence/streamed_body.py ``StreamedBody``: the temp file, its size and sha256, the
headers as received; ``open()`` reads it decoded). Every other request takes Scrapy's own path
unchanged.

- Live: :class:`StreamingDownloadHandler` is Scrapy's HTTP/1.1 handler (chosen by the spider:
  ``update_settings`` calls :func:`use_streaming_handler`) whose body buffer, for a flagged request, is a ``Spool`` writing to
  the temp file: Scrapy's own size limits (``download_maxsize``), data-loss check
  (``Content-Length``), timeout, TLS and proxies all still apply. (The ``bytes_received``
  signal cannot do this: Scrapy has already appended the chunk to its in-memory buffer.)
- Replay: spiders/replay.py copies the archived payload to a temp file in chunks, its sha256
  checked against the index (:func:`spooled_replay`).
- Archive: spiders/middlewares.py writes the record from the file (``write_streamed``).
- Faults, each one line naming the URL (``DownloadFailed``), never a short body parsed: a body
  over ``download_maxsize`` ("body larger than ..."), a cut download ("body cut off before its
  Content-Length", retried), a temp file that cannot be written (a full disk: "cannot write
  the body to disk (No space left on device) after N bytes"), a payload whose digest no longer
  matches on replay.
- Temp files: removed by the spider after its parse (also when it fails), when a dropped
  response is collected, and with the crawl's spool folder when the handler closes
  (``PRICEWATCH_SPOOL_DIR``: where that folder goes; default the system temp folder).
"""

from __future__ import annotations

import logging

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler, _ScrapyAgent
from scrapy.exceptions import DownloadCancelledError
from scrapy.http import Headers, Response
from scrapy.utils._download_handlers import wrap_twisted_exceptions
from scrapy.utils.defer import maybe_deferred_to_future

from pricewatch.evidence.streamed_body import (
    Spool,
    SpoolError,
    StreamedBody,
    remove_body_temp_dir,
    body_temp_dir,
)
from pricewatch.evidence.warc_common import ArchiveError
from spiders.faults import DownloadFailed

logger = logging.getLogger(__name__)

STREAM_META = "pricewatch_stream"


HANDLER = "spiders.streaming.StreamingDownloadHandler"


def use_streaming_handler(settings) -> None:
    """A spider's ``update_settings``: its live http(s) downloads by :class:`StreamingDownloadHandler`.
    Not in a replay (the replay handler streams flagged requests from the archive, and the
    replay add-on must stay the one to choose the handler)."""
    if settings.get("PRICEWATCH_REPLAY"):
        return
    handlers = dict(settings.getdict("DOWNLOAD_HANDLERS"))
    handlers.update({"http": HANDLER, "https": HANDLER})
    settings.set("DOWNLOAD_HANDLERS", handlers, priority="spider")


class StreamedResponse(Response):
    """A response whose body is a temp file (``streamed``); ``body`` is empty. Its headers
    lack ``Content-Encoding``: ``streamed.open()`` decodes, and ``streamed.headers`` keeps
    them as received (what the WARC record stores)."""

    attributes: tuple[str, ...] = (*Response.attributes, "streamed")

    def __init__(self, *args, streamed: StreamedBody | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.streamed = streamed


def header_list(headers: Headers) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, vs in headers.items() for v in vs]


def streamed_response(url: str, status: int, received: list[tuple[str, str]], body: StreamedBody, request,
                      **kwargs) -> StreamedResponse:
    headers = Headers()
    for k, v in received:
        if k.lower() != "content-encoding":
            headers.appendlist(k, v)
    return StreamedResponse(url=url, status=status, headers=headers, body=b"", request=request,
                            streamed=body, **kwargs)


class CrawlSpool:
    """The crawl's folder of temp bodies, made on first use, removed when the handler closes."""

    def __init__(self, settings):
        self.parent = settings.get("PRICEWATCH_SPOOL_DIR") or None
        self.path = None

    def new(self, url: str) -> Spool:
        try:
            if self.path is None:
                self.path = body_temp_dir(self.parent)
            return Spool(self.path)
        except (SpoolError, OSError) as exc:
            raise DownloadFailed(f"cannot spool the body to a temp file: {exc}", "spool") from None

    def close(self) -> None:
        remove_body_temp_dir(self.path)
        self.path = None


class _SpoolingAgent(_ScrapyAgent):
    """Scrapy's agent, its response reader writing the body to ``spool`` instead of memory."""

    def __init__(self, spool: Spool, **kwargs):
        super().__init__(**kwargs)
        self._spool = spool

    def _cb_bodyready(self, txresponse, request):
        deliver, spool = txresponse.deliverBody, self._spool

        def into_spool(protocol):
            protocol._bodybuf = spool                 # Scrapy's _ResponseReader buffer
            spool.on_error = protocol._finished.cancel  # a failed write aborts the download
            deliver(protocol)

        txresponse.deliverBody = into_spool
        return super()._cb_bodyready(txresponse, request)


class StreamingDownloadHandler(HTTP11DownloadHandler):
    """Scrapy's HTTP/1.1 handler; a ``pricewatch_stream`` request's body goes to a temp file."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self.spool = CrawlSpool(crawler.settings)

    async def download_request(self, request):
        if not request.meta.get(STREAM_META):
            return await super().download_request(request)
        spool = self.spool.new(request.url)
        agent = _SpoolingAgent(
            spool, contextFactory=self._contextFactory, bindAddress=self._bind_address, pool=self._pool,
            maxsize=self._default_maxsize, warnsize=self._default_warnsize,
            fail_on_dataloss=self._fail_on_dataloss, crawler=self._crawler,
            tls_verbose_logging=self._tls_verbose_logging)
        try:
            with wrap_twisted_exceptions():
                response = await maybe_deferred_to_future(agent.download_request(request))
        except BaseException as exc:
            spool.discard()
            if spool.error:
                raise DownloadFailed(spool.error, "spool") from None
            limit = request.meta.get("download_maxsize", self._default_maxsize)
            if isinstance(exc, DownloadCancelledError) and ("max size" in str(exc) or (limit and spool.received > limit)):
                raise DownloadFailed(f"body larger than its download_maxsize ({limit:,} bytes): refused, "
                                     f"not parsed in part", "too-large") from None
            raise
        if "dataloss" in response.flags:
            spool.discard()
            raise DownloadFailed("body cut off before its Content-Length (connection closed early)", "dataloss")
        if response.body and not spool.size:
            # Scrapy's reader did not take the spool (its internals changed): still whole and
            # correct, only held once in memory; said, so the streaming is fixed.
            logger.warning("%s: the body was downloaded into memory, not streamed (Scrapy's HTTP reader "
                           "changed?)", request.url)
            spool.write(response.body)
        try:
            body = spool.finish(header_list(response.headers))
        except SpoolError as exc:
            raise DownloadFailed(str(exc), "spool") from None
        self.crawler.stats.inc_value("pricewatch/streamed_bodies")
        self.crawler.stats.inc_value("pricewatch/streamed_bytes", body.size)
        return streamed_response(response.url, response.status, body.headers, body, request,
                                 flags=response.flags, certificate=response.certificate,
                                 ip_address=response.ip_address, protocol=response.protocol)

    async def close(self) -> None:
        await super().close()
        self.spool.close()


def spooled_replay(spool_of: CrawlSpool, archived, request) -> StreamedResponse:
    """An archived response served as a streamed one: its payload copied to a temp file in
    chunks (from the record, for a payload too big to index held), its sha256 checked against
    the one the index (and the offers) hold. A mismatch, or a temp file that cannot be written,
    raises ``DownloadFailed``: the provider fails, nothing is parsed."""
    spool = spool_of.new(request.url)
    try:
        if archived.payload is not None:
            archived.payload.copy_to(spool)
        else:
            spool.write(archived.body)
        body = spool.finish(list(archived.headers))
    except ArchiveError as exc:
        spool.discard()
        raise DownloadFailed(f"archived record unusable: {exc.reason}", "replay-digest") from None
    except SpoolError as exc:
        spool.discard()
        raise DownloadFailed(str(exc), "spool") from None
    if body.sha256 != archived.ref.body_sha256:
        body.remove()
        raise DownloadFailed(f"archived record {archived.ref.record_id} does not match its indexed sha256 "
                             f"(damaged since it was read)", "replay-digest")
    return streamed_response(request.url, archived.status, body.headers, body, request)

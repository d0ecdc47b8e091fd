"""Writing WARC evidence: a live crawl's responses (``WarcArchiveWriter``, one gzipped file per
crawl) and the shipped captures built from recorded exchanges (``write_exchanges``)."""

from __future__ import annotations

import io
import os
import uuid
import zlib
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import GzippingWrapper, WARCWriter

from pricewatch.evidence.warc_common import (
    PROVIDER_FIELD,
    WARC_CONFORMS_TO,
    WARC_FORMAT,
    WARC_VERSION,
    CaptureRef,
    archive_relpath,
    parse_warc_date,
    provider_from_name,
    sha256_hex,
    warc_date,
)

# Hop-by-hop / transport headers that describe the wire, not the body we store.
_DROP_HEADERS = {"transfer-encoding", "connection", "keep-alive"}
#: gzip level of a streamed (spooled) body's record. warcio compresses at 9: 35 s for a 400 MB
#: offer file, where 3 takes 0.9 s for a file 20% bigger (13 vs 11 MiB; benchmarks/
#: bench_hyperscaler_stream.py). Ordinary records keep warcio's 9 (the shipped captures' bytes).
STREAM_GZIP_LEVEL = 3


class _GzipMember(GzippingWrapper):
    """warcio's one-gzip-member-per-record wrapper, at a chosen level (warcio fixes 9)."""

    def __init__(self, out, level: int):
        super().__init__(out)
        self.compressor = zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS + 16)


def _software() -> str:
    try:
        from importlib.metadata import version
        return f"pricewatch {version('pricewatch')}"
    except Exception:  # not installed as a distribution (a bare checkout)
        return "pricewatch"


class WarcArchiveWriter:
    """Appends request/response pairs to one gzipped WARC file (one file per crawl).

    The file is created on the first record, so a crawl that received nothing leaves no
    0-byte WARC behind; its first record is a ``warcinfo`` saying what wrote it (software,
    format, the crawl's provider when known)."""

    def __init__(self, path: Path, provider: str | None = None, info: dict | None = None,
                 warcinfo_id: str | None = None, filename: str | None = None):
        self.path = Path(path)
        self.provider = provider or provider_from_name(self.path)
        self.info = info
        self.warcinfo_id = warcinfo_id
        self.filename = filename or self.path.name
        self.records = 0
        self._fh = None
        self._writer = None

    def _open(self, first_date: datetime) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab")
        self._writer = WARCWriter(self._fh, gzip=True, warc_version=WARC_VERSION)
        info = self.info if self.info is not None else {
            "software": _software(),
            "description": "pricewatch live crawl: every response received, with its request",
        }
        info = {**info, "format": WARC_FORMAT, "conformsTo": WARC_CONFORMS_TO}
        if self.provider:
            info[PROVIDER_FIELD] = self.provider
        record = self._writer.create_warcinfo_record(self.filename, info)
        record.rec_headers.replace_header("WARC-Date", warc_date(first_date))
        if self.warcinfo_id:
            record.rec_headers.replace_header("WARC-Record-ID", self.warcinfo_id)
        self._writer.write_record(record)

    def write(
        self,
        url: str,
        status: int,
        reason: str,
        headers: list[tuple[str, str]],
        body: bytes,
        captured_at: datetime | None = None,
        request_method: str = "GET",
        request_headers: list[tuple[str, str]] | None = None,
        request_body: bytes = b"",
        record_id: str | None = None,
    ) -> CaptureRef:
        return self._write_pair(url, status, reason, headers, io.BytesIO(body), None, sha256_hex(body), captured_at,
                                request_method, request_headers, request_body, record_id)

    def write_streamed(
        self,
        url: str,
        status: int,
        reason: str,
        headers: list[tuple[str, str]],
        body,
        captured_at: datetime | None = None,
        request_method: str = "GET",
        request_headers: list[tuple[str, str]] | None = None,
        request_body: bytes = b"",
        record_id: str | None = None,
    ) -> CaptureRef:
        """The same record as :meth:`write` (same headers, payload and digests), its payload
        read from a spooled body (pricewatch/evidence/streamed_body.py ``StreamedBody``: ``open_raw()``,
        ``size``, ``sha256``) in chunks, never held whole, gzipped at ``STREAM_GZIP_LEVEL``."""
        with body.open_raw() as payload:
            return self._write_pair(url, status, reason, headers, payload, body.size, body.sha256, captured_at,
                                    request_method, request_headers, request_body, record_id)

    def _write_pair(self, url, status, reason, headers, payload, length, body_sha256, captured_at,
                    request_method, request_headers, request_body, record_id) -> CaptureRef:
        captured_at = captured_at or datetime.now(timezone.utc)
        if self._writer is None:
            self._open(captured_at)
        date = warc_date(captured_at)
        kept = [(k, v) for k, v in headers if k.lower() not in _DROP_HEADERS]
        http_headers = StatusAndHeaders(f"{status} {reason or 'OK'}", kept, protocol="HTTP/1.1")
        record_id = record_id or f"<urn:uuid:{uuid.uuid4()}>"
        response = self._writer.create_warc_record(
            url,
            "response",
            payload=payload,
            length=length,
            http_headers=http_headers,
            warc_headers_dict={"WARC-Date": date, "WARC-Record-ID": record_id},
        )
        if length is None:
            self._writer.write_record(response)
        else:   # a streamed body: its own gzip member at a level that does not cost half a minute
            WARCWriter(_GzipMember(self._fh, STREAM_GZIP_LEVEL), gzip=False,
                       warc_version=WARC_VERSION).write_record(response)
        path = urlsplit(url)
        target = path.path + (f"?{path.query}" if path.query else "")
        req_headers = StatusAndHeaders(
            f"{request_method} {target or '/'} HTTP/1.1",
            [("Host", path.netloc)] + list(request_headers or []),
            is_http_request=True,
        )
        request = self._writer.create_warc_record(
            url,
            "request",
            payload=io.BytesIO(request_body),
            http_headers=req_headers,
            warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": record_id,
                               "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, record_id + '/request')}>"},
        )
        self._writer.write_record(request)
        self._fh.flush()
        self.records += 1
        return CaptureRef(self.stored_path, record_id, body_sha256, captured_at, url)

    @property
    def stored_path(self) -> str:
        """What an offer stores for this file: its path relative to the archive root."""
        return archive_relpath(self.path.parent / self.filename)

    def write_conversion(self, url: str, refers_to: str, body: bytes, content_type: str,
                         captured_at: datetime | None = None, record_id: str | None = None) -> CaptureRef:
        """A document derived from an archived response, such as the DOM a browser rendered
        from a page and its scripts: a ``conversion`` record (WARC 1.1 §6.8) whose
        ``WARC-Refers-To`` is the response it was derived from. It is never a ``response``:
        no server sent these bytes, and a replay never serves them."""
        captured_at = captured_at or datetime.now(timezone.utc)
        if self._writer is None:
            self._open(captured_at)
        record_id = record_id or f"<urn:uuid:{uuid.uuid4()}>"
        record = self._writer.create_warc_record(
            url, "conversion", payload=io.BytesIO(body), warc_content_type=content_type,
            warc_headers_dict={"WARC-Date": warc_date(captured_at), "WARC-Record-ID": record_id,
                               "WARC-Refers-To": refers_to})
        self._writer.write_record(record)
        self._fh.flush()
        return CaptureRef(self.stored_path, record_id, sha256_hex(body), captured_at, url)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None



def write_exchanges(out: Path, exchanges: list[dict], provider: str | None = None) -> Path:
    """Writes a WARC from a list of recorded exchanges (used to build the shipped captures
    from their readable sources, and by tests to build variants such as a 503).

    Deterministic: the same exchanges give the same bytes (record ids from the content, the
    warcinfo dated at the first exchange). The file is written beside ``out`` and moved into
    place, so a reader never sees half a WARC; no exchanges, no file. ``provider``: named in
    the warcinfo record (default: from ``<date>/<provider>.warc.gz``)."""
    out = Path(out)
    rows = []
    for n, ex in enumerate(exchanges):
        captured = ex["captured_at"]
        if isinstance(captured, str):
            captured = parse_warc_date(captured)
        body = ex["body"] if isinstance(ex["body"], bytes) else ex["body"].encode("utf-8")
        # Deterministic ids: rebuilding a capture from its sources gives the same evidence refs.
        seed = f"{ex['url']}|{warc_date(captured)}|{int(ex.get('status', 200))}|{sha256_hex(body)}|{n}"
        rows.append((ex, captured, body, seed))
    if not rows:
        out.unlink(missing_ok=True)
        return out
    tmp = out.parent / f".{out.name}.{os.getpid()}.part"
    tmp.unlink(missing_ok=True)
    info_id = f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, 'warcinfo|' + out.name + '|' + '|'.join(r[3] for r in rows))}>"
    writer = WarcArchiveWriter(
        tmp, provider=provider or provider_from_name(out), filename=out.name, warcinfo_id=info_id,
        info={"software": "pricewatch",
              "description": "pricewatch capture: recorded exchanges written as WARC evidence"})
    try:
        for ex, captured, body, seed in rows:
            writer.write(
                ex["url"],
                int(ex.get("status", 200)),
                ex.get("reason", "OK"),
                list(ex.get("headers", {}).items()),
                body,
                captured_at=captured,
                request_method=ex.get("method", "GET"),
                request_body=ex.get("request_body", b"") if isinstance(ex.get("request_body", b""), bytes)
                else ex["request_body"].encode("utf-8"),
                record_id=f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, seed)}>",
            )
        writer.close()
        os.replace(tmp, out)
    finally:
        writer.close()
        tmp.unlink(missing_ok=True)
    return out

"""WARC evidence archive: every response a crawl sees is written here, and replays read it back.

A record reference (``CaptureRef``) is what a stored offer points to: the WARC file, the
WARC-Record-ID of the response record, and the sha256 of the response body.
"""

from __future__ import annotations

import hashlib
import io
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

# Hop-by-hop / transport headers that describe the wire, not the body we store.
_DROP_HEADERS = {"transfer-encoding", "connection", "keep-alive"}


def sha256_hex(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def warc_date(ts: datetime) -> str:
    return ts.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_warc_date(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)


@dataclass(frozen=True)
class CaptureRef:
    warc_file: str
    record_id: str
    body_sha256: str
    captured_at: datetime
    url: str

    def as_meta(self) -> dict:
        return {
            "warc_file": self.warc_file,
            "warc_record_id": self.record_id,
            "body_sha256": self.body_sha256,
            "captured_at": self.captured_at.isoformat(),
            "source_url": self.url,
        }


@dataclass
class ArchivedResponse:
    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    ref: CaptureRef


class WarcArchiveWriter:
    """Appends request/response pairs to one gzipped WARC file (one file per crawl)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab")
        self._writer = WARCWriter(self._fh, gzip=True)

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
        captured_at = captured_at or datetime.now(timezone.utc)
        date = warc_date(captured_at)
        kept = [(k, v) for k, v in headers if k.lower() not in _DROP_HEADERS]
        http_headers = StatusAndHeaders(f"{status} {reason or 'OK'}", kept, protocol="HTTP/1.1")
        record_id = record_id or f"<urn:uuid:{uuid.uuid4()}>"
        response = self._writer.create_warc_record(
            url,
            "response",
            payload=io.BytesIO(body),
            http_headers=http_headers,
            warc_headers_dict={"WARC-Date": date, "WARC-Record-ID": record_id},
        )
        self._writer.write_record(response)
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
        return CaptureRef(str(self.path), record_id, sha256_hex(body), captured_at, url)

    def close(self) -> None:
        self._fh.close()


def warc_files(path: Path) -> list[Path]:
    """A WARC file, or every WARC file under a folder, in name order (names start with dates)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.exists():
        raise FileNotFoundError(f"replay archive not found: {path}")
    return sorted(p for p in path.rglob("*") if p.name.endswith((".warc", ".warc.gz")))


def read_archive(path: Path) -> list[ArchivedResponse]:
    """All response records of a WARC file or folder, in archive order."""
    out: list[ArchivedResponse] = []
    for file in warc_files(path):
        with open(file, "rb") as fh:
            for record in ArchiveIterator(fh):
                if record.rec_type != "response":
                    continue
                url = record.rec_headers.get_header("WARC-Target-URI")
                # raw_stream: the body exactly as archived (no content decoding), so a replay
                # hands Scrapy the same bytes and headers the live crawl received.
                body = record.raw_stream.read()
                status = int(record.http_headers.get_statuscode())
                ref = CaptureRef(
                    str(file),
                    record.rec_headers.get_header("WARC-Record-ID"),
                    sha256_hex(body),
                    parse_warc_date(record.rec_headers.get_header("WARC-Date")),
                    url,
                )
                out.append(ArchivedResponse(url, status, list(record.http_headers.headers), body, ref))
    return out


@dataclass
class ReplayIndex:
    """Serves archived responses by URL. Several records for one URL are served in order
    (e.g. a 503 then a 200), the last one repeating, as a flaky server would behave."""

    responses: dict[str, list[ArchivedResponse]] = field(default_factory=dict)
    _served: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> "ReplayIndex":
        index = cls()
        for r in read_archive(path):
            index.responses.setdefault(normalize_url(r.url), []).append(r)
        return index

    def hosts(self) -> set[str]:
        return {urlsplit(u).hostname or "" for u in self.responses}

    def next_response(self, url: str) -> ArchivedResponse | None:
        key = normalize_url(url)
        records = self.responses.get(key)
        if not records:
            return None
        i = self._served.get(key, 0)
        self._served[key] = i + 1
        return records[min(i, len(records) - 1)]


def normalize_url(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path or "/"
    return f"{parts.scheme}://{parts.netloc.lower()}{path}" + (f"?{parts.query}" if parts.query else "")


def write_exchanges(out: Path, exchanges: list[dict]) -> Path:
    """Writes a WARC from a list of recorded exchanges (used to build the shipped captures
    from their readable sources, and by tests to build variants such as a 503)."""
    out = Path(out)
    if out.exists():
        out.unlink()
    writer = WarcArchiveWriter(out)
    try:
        for n, ex in enumerate(exchanges):
            captured = ex["captured_at"]
            if isinstance(captured, str):
                captured = parse_warc_date(captured)
            body = ex["body"] if isinstance(ex["body"], bytes) else ex["body"].encode("utf-8")
            # Deterministic ids: rebuilding a capture from its sources gives the same evidence refs.
            seed = f"{ex['url']}|{warc_date(captured)}|{int(ex.get('status', 200))}|{sha256_hex(body)}|{n}"
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
    finally:
        writer.close()
    return out

"""WARC evidence archive: every response a crawl sees is written here, and replays read it back.

A record reference (``CaptureRef``) is what a stored offer points to: the WARC file, the
WARC-Record-ID of the response record, and the sha256 of the response body.

Reading is strict: a file that is not gzip/WARC, is empty, is cut off (an incomplete gzip
member, a record shorter than its WARC ``Content-Length``) or whose record does not match its
``WARC-Payload-Digest`` / ``WARC-Block-Digest`` is bad as a whole and never served. A single
file that is bad raises ``ArchiveError`` (one line: the file and what is wrong); in a folder
the bad file is skipped with one warning line and listed in ``problems``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

logger = logging.getLogger(__name__)

# Hop-by-hop / transport headers that describe the wire, not the body we store.
_DROP_HEADERS = {"transfer-encoding", "connection", "keep-alive"}

WARC_VERSION = "WARC/1.1"
WARC_FORMAT = "WARC File Format 1.1"
WARC_CONFORMS_TO = "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"
PROVIDER_FIELD = "pricewatch-provider"

_GZIP_MAGIC = b"\x1f\x8b"


def sha256_hex(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def warc_date(ts: datetime) -> str:
    return ts.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_warc_date(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)


class ArchiveError(ValueError):
    """A WARC file that cannot be replayed: ``str(err)`` is one line, "<file>: <what is wrong>".

    ``hosts`` and ``providers`` say whose evidence the file held, as far as it could be read
    (hosts of the records before the fault, the provider its warcinfo record names), so a
    caller can report those providers as failed instead of silently absent."""

    def __init__(self, file, reason: str, hosts: set[str] | None = None, providers: set[str] | None = None):
        self.file = str(file)
        self.reason = reason
        self.hosts = set(hosts or ())
        self.providers = set(providers or ())
        super().__init__(f"{self.file}: {reason}")


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


# ---------------------------------------------------------------------------------- writing

# A live crawl's file: <provider>-<YYYYmmddTHHMMSSZ>-<pid>.warc.gz (spiders/middlewares.py).
_LIVE_NAME = re.compile(r"^([a-z0-9_]+)-\d{8}T\d{6}Z-\d+\.warc(\.gz)?$")
# A shipped capture: captures/<YYYY-MM-DD>/<provider>.warc.gz.
_CAPTURE_NAME = re.compile(r"^([a-z0-9_]+)\.warc(\.gz)?$")
_DATE_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{4,6}Z?)?$")


def provider_from_name(path: Path) -> str | None:
    """The provider a WARC file's name says it holds, by our own naming: a live crawl's
    ``<provider>-<time>-<pid>.warc.gz`` or a capture's ``<date>/<provider>.warc.gz``."""
    path = Path(path)
    m = _LIVE_NAME.match(path.name)
    if m:
        return m.group(1)
    m = _CAPTURE_NAME.match(path.name)
    if m and _DATE_FOLDER.match(path.parent.name):
        return m.group(1)
    return None


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
        self.records += 1
        return CaptureRef(str(self.path), record_id, sha256_hex(body), captured_at, url)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


# ---------------------------------------------------------------------------------- reading

def warc_files(path: Path) -> list[Path]:
    """A WARC file, or every WARC file under a folder, in name order (names start with dates)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.exists():
        raise FileNotFoundError(f"replay archive not found: {path}")
    try:
        return sorted(p for p in path.rglob("*") if p.name.endswith((".warc", ".warc.gz")) and p.is_file())
    except OSError as exc:
        raise ArchiveError(path, f"cannot be listed ({exc.strerror or exc})") from None


def _printable(text: str, limit: int = 120) -> str:
    text = " ".join("".join(c if c.isprintable() else "?" for c in str(text)).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _members(file: Path, data: bytes, hosts: set[str]):
    """The decompressed bytes of each gzip member, in order. An incomplete or corrupt member,
    or bytes after the last member that are not one, make the file bad."""
    view, n, pos = memoryview(data), len(data), 0
    while pos < n:
        if data[pos:pos + 2] != _GZIP_MAGIC:
            raise ArchiveError(file, f"bytes at offset {pos} are not a gzip member (corrupt or appended data)")
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out, p = [], pos
        try:
            while not d.eof and p < n:
                chunk = view[p:p + 65536]
                out.append(d.decompress(chunk))
                p += len(chunk)
        except zlib.error:
            raise ArchiveError(file, f"corrupt gzip data: the member at offset {pos} does not decompress") from None
        if not d.eof:
            # What the cut member still shows says whose it was.
            m = re.search(rb"WARC-Target-URI: *(\S+)", b"".join(out))
            with contextlib.suppress(ValueError):
                hosts.add(urlsplit(m.group(1).decode("latin-1")).hostname or "" if m else "")
            raise ArchiveError(file, f"cut off: the gzip member at offset {pos} is incomplete "
                                     f"(the file ends at {n} bytes)")
        yield b"".join(out)
        pos = p - len(d.unused_data)


def _read_file(file: Path, data: bytes, hosts: set[str], providers: set[str]) -> list[ArchivedResponse]:
    if not data:
        raise ArchiveError(file, "empty file (0 bytes)")
    if data[:2] == _GZIP_MAGIC:
        chunks = _members(file, data, hosts)
    elif data.startswith(b"WARC/"):
        chunks = iter([data])
    else:
        raise ArchiveError(file, "not a WARC file (neither gzip nor a WARC record header)")
    out: list[ArchivedResponse] = []
    n = 0
    stray = io.StringIO()  # warcio prints a stray line for a record longer than it declares
    with contextlib.redirect_stderr(stray):
        for chunk in chunks:
            it = ArchiveIterator(io.BytesIO(chunk), check_digests=True)
            end = 0
            try:
                for record in it:
                    n += 1
                    try:
                        out.extend(_read_record(file, n, record, hosts, providers))
                    except ArchiveError:
                        raise
                    except Exception as exc:  # e.g. a target URI that is not a URL
                        raise ArchiveError(file, f"record {n} is not a readable WARC record "
                                                 f"({_printable(exc, 80)})") from None
                    end = it.get_record_offset() + it.get_record_length()
                    if it.err_count:
                        raise ArchiveError(file, f"{_where(n, record)} is longer than its WARC Content-Length")
            except ArchiveError:
                raise
            except Exception as exc:  # warcio's parse errors: the bytes are not a record
                raise ArchiveError(file, f"record {n + 1} is not a readable WARC record "
                                         f"({_printable(exc, 80)})") from None
            # warcio ends quietly at a record whose header block is cut off: what is left after
            # the last whole record must be blank.
            if chunk[end:].strip():
                raise ArchiveError(file, f"cut off: {len(chunk) - end} bytes after record {n} "
                                         f"are not a whole WARC record")
    if n == 0:
        raise ArchiveError(file, "holds no WARC record")
    return out


def _where(n: int, record) -> str:
    url = record.rec_headers.get_header("WARC-Target-URI")
    return f"record {n}" + (f" ({_printable(url, 80)})" if url else f" ({record.rec_type})")


def _read_record(file: Path, n: int, record, hosts: set[str], providers: set[str]) -> list[ArchivedResponse]:
    url = record.rec_headers.get_header("WARC-Target-URI")
    where = _where(n, record)
    if url:
        hosts.add(urlsplit(url).hostname or "")
    try:
        declared = int(record.rec_headers.get_header("Content-Length"))
    except (TypeError, ValueError):
        raise ArchiveError(file, f"{where} has no valid WARC Content-Length") from None
    stream = record.raw_stream
    payload = stream.read()
    missing = getattr(stream, "limit", 0)
    if missing:
        raise ArchiveError(file, f"{where} is cut off: {declared - missing} of the {declared} bytes "
                                 f"its WARC Content-Length declares")
    failed = [kind for kind in ("WARC-Payload-Digest", "WARC-Block-Digest")
              if any(kind.split("-")[1].lower() in p for p in record.digest_checker.problems)]
    if failed or record.digest_checker.problems:
        raise ArchiveError(file, f"{where} does not match its {' and '.join(failed) or 'digest'} (damaged content)")
    if record.rec_type == "warcinfo":
        m = re.search(rb"(?m)^" + PROVIDER_FIELD.encode() + rb": *([a-z0-9_]+)", payload)
        if m:
            providers.add(m.group(1).decode())
        return []
    if record.rec_type != "response":
        return []
    if not url:
        raise ArchiveError(file, f"{where}: response without a WARC-Target-URI")
    try:
        captured = parse_warc_date(record.rec_headers.get_header("WARC-Date") or "")
    except ValueError:
        raise ArchiveError(file, f"{where} has no valid WARC-Date") from None
    try:
        status = int(record.http_headers.get_statuscode())
    except (AttributeError, TypeError, ValueError):
        raise ArchiveError(file, f"{where} has no HTTP status line") from None
    record_id = record.rec_headers.get_header("WARC-Record-ID")
    if not record_id:
        raise ArchiveError(file, f"{where} has no WARC-Record-ID")
    # raw_stream: the body exactly as archived (no content decoding), so a replay hands
    # Scrapy the same bytes and headers the live crawl received.
    ref = CaptureRef(str(file), record_id, sha256_hex(payload), captured, url)
    return [ArchivedResponse(url, status, list(record.http_headers.headers), payload, ref)]


# Parsed files by (path, sha256 of the bytes): the flow and a crawl read the same archive
# several times; a bad file is warned about once per process.
_CACHE: dict[tuple[str, bytes], list[ArchivedResponse] | ArchiveError] = {}
_WARNED: set[str] = set()


def read_file(file: Path) -> list[ArchivedResponse]:
    """The response records of one WARC file; ``ArchiveError`` if the file is bad."""
    file = Path(file)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ArchiveError(file, f"cannot be read ({exc.strerror or exc})") from None
    key = (str(file), hashlib.sha256(data).digest())
    if key not in _CACHE:
        hosts: set[str] = set()
        providers: set[str] = set()
        try:
            _CACHE[key] = _read_file(file, data, hosts, providers)
        except ArchiveError as exc:
            exc.hosts |= hosts - {""}
            exc.providers |= providers
            _CACHE[key] = exc
        if len(_CACHE) > 256:
            _CACHE.pop(next(iter(_CACHE)))
    result = _CACHE.get(key)
    if isinstance(result, ArchiveError):
        raise result
    return list(result or [])


@dataclass
class ArchiveContents:
    """What a WARC file or folder holds: the responses of its good files, and one
    ``ArchiveError`` per bad file (skipped)."""

    path: Path
    files: list[Path] = field(default_factory=list)
    responses: list[ArchivedResponse] = field(default_factory=list)
    errors: list[ArchiveError] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [str(e) for e in self.errors]


def load_archive(path: Path) -> ArchiveContents:
    """Every file of a WARC file or folder, never raising for a bad file (see ``errors``)."""
    path = Path(path)
    contents = ArchiveContents(path, warc_files(path))
    for file in contents.files:
        try:
            contents.responses.extend(read_file(file))
        except ArchiveError as exc:
            contents.errors.append(exc)
            if path.is_dir() and str(exc) not in _WARNED:
                # One line per bad file and process (the flow and a crawl read an archive twice).
                _WARNED.add(str(exc))
                logger.warning("skipped %s", exc)
    return contents


def read_archive(path: Path, problems: list[str] | None = None) -> list[ArchivedResponse]:
    """All response records of a WARC file or folder, in archive order. A single file that is
    bad raises ``ArchiveError``; in a folder a bad file is skipped (one warning line) and its
    message appended to ``problems`` when given."""
    contents = load_archive(path)
    if contents.errors and Path(path).is_file():
        raise contents.errors[0]
    if problems is not None:
        problems.extend(contents.problems)
    return contents.responses


@dataclass
class ReplayIndex:
    """Serves archived responses by URL. Several records for one URL are served in order
    (e.g. a 503 then a 200), the last one repeating, as a flaky server would behave.
    ``problems``: one line per bad WARC file that was skipped."""

    responses: dict[str, list[ArchivedResponse]] = field(default_factory=dict)
    _served: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    unreadable: bool = False  # set by a caller that could not load the archive at all

    @classmethod
    def load(cls, path: Path) -> "ReplayIndex":
        index = cls()
        for r in read_archive(path, index.problems):
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

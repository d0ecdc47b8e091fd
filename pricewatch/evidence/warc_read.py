"""Reading WARC evidence strictly: a file that is not gzip/WARC, is empty, is cut off or whose
record does not match its digests is bad as a whole and never served (see pricewatch/evidence/archive.py).
``read_file`` raises ``ArchiveError`` for a bad file; ``load_archive`` / ``read_archive`` skip a
bad file of a folder with one warning line."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator

from pricewatch.evidence.warc_common import (
    PROVIDER_FIELD,
    ArchivedResponse,
    ArchiveError,
    CaptureRef,
    archive_relpath,
    parse_warc_date,
    sha256_hex,
)
from pricewatch.evidence.warc_members import (
    BLOCK,
    GZIP_MAGIC,
    HOLD_BYTES,
    MemberStream,
    StoredPayload,
    member_streams,
    printable,
)

# The archive's logger (the CLI collects its warnings by this name).
logger = logging.getLogger("pricewatch.evidence.archive")



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


def _read_file(file: Path, fh, size: int, hosts: set[str], providers: set[str],
               hold_bytes: int = HOLD_BYTES) -> list[ArchivedResponse]:
    if not size:
        raise ArchiveError(file, "empty file (0 bytes)")
    head = fh.read(5)
    if not (head[:2] == GZIP_MAGIC or head.startswith(b"WARC/")):
        raise ArchiveError(file, "not a WARC file (neither gzip nor a WARC record header)")
    fh.seek(0)
    out: list[ArchivedResponse] = []
    n = 0
    stray = io.StringIO()  # warcio prints a stray line for a record longer than it declares
    with contextlib.redirect_stderr(stray):
        for chunk in member_streams(file, fh, size, hosts):
            it = ArchiveIterator(chunk, check_digests=True)
            end = 0
            try:
                for record in it:
                    n += 1
                    try:
                        out.extend(_read_record(file, n, record, hosts, providers, hold_bytes,
                                                (chunk, it.offset)))
                    except ArchiveError:
                        raise
                    except Exception as exc:  # e.g. a target URI that is not a URL
                        raise ArchiveError(file, f"record {n} is not a readable WARC record "
                                                 f"({printable(exc, 80)})") from None
                    end = it.get_record_offset() + it.get_record_length()
                    if it.err_count:
                        raise ArchiveError(file, f"{_where(n, record)} is longer than its WARC Content-Length")
            except ArchiveError:
                raise
            except Exception as exc:  # warcio's parse errors: the bytes are not a record
                raise ArchiveError(file, f"record {n + 1} is not a readable WARC record "
                                         f"({printable(exc, 80)})") from None
            # warcio ends quietly at a record whose header block is cut off: what is left after
            # the last whole record must be blank.
            chunk.drain()
            left = chunk.produced - end
            if left > 0 and (left > len(chunk.tail) or bytes(chunk.tail[-left:]).strip()):
                raise ArchiveError(file, f"cut off: {left} bytes after record {n} "
                                         f"are not a whole WARC record")
    if n == 0:
        raise ArchiveError(file, "holds no WARC record")
    return out


def _where(n: int, record) -> str:
    url = record.rec_headers.get_header("WARC-Target-URI")
    return f"record {n}" + (f" ({printable(url, 80)})" if url else f" ({record.rec_type})")


def _read_record(file: Path, n: int, record, hosts: set[str], providers: set[str],
                 hold_bytes: int = HOLD_BYTES, at: tuple | None = None) -> list[ArchivedResponse]:
    url = record.rec_headers.get_header("WARC-Target-URI")
    where = _where(n, record)
    if url:
        hosts.add(urlsplit(url).hostname or "")
    try:
        declared = int(record.rec_headers.get_header("Content-Length"))
    except (TypeError, ValueError):
        raise ArchiveError(file, f"{where} has no valid WARC Content-Length") from None
    stream = record.raw_stream
    held = record.rec_type != "response" or declared <= hold_bytes
    if held:
        payload = stream.read()
        digest, size = None, len(payload)
    else:   # too big to hold: hashed on the way, copied out when served (StoredPayload)
        payload, sha, size = b"", hashlib.sha256(), 0
        while chunk := stream.read(BLOCK):
            sha.update(chunk)
            size += len(chunk)
        digest = sha.hexdigest()
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
    if held:
        ref = CaptureRef(archive_relpath(file), record_id, sha256_hex(payload), captured, url)
        return [ArchivedResponse(url, status, list(record.http_headers.headers), payload, ref)]
    chunk, offset = at
    stored = StoredPayload(Path(file), chunk.start, offset, isinstance(chunk, MemberStream), size, digest)
    ref = CaptureRef(archive_relpath(file), record_id, digest, captured, url)
    return [ArchivedResponse(url, status, list(record.http_headers.headers), b"", ref, payload=stored)]


# Parsed files by (path, sha256 of the bytes): the flow and a crawl read the same archive
# several times; a bad file is warned about once per process.
_CACHE: dict[tuple[str, bytes], list[ArchivedResponse] | ArchiveError] = {}
_WARNED: set[str] = set()


def read_file(file: Path, hold_bytes: int = HOLD_BYTES) -> list[ArchivedResponse]:
    """The response records of one WARC file; ``ArchiveError`` if the file is bad. Read as a
    stream (a gzip member at a time); a response payload above ``hold_bytes`` is not held but
    indexed where it is (``ArchivedResponse.payload``, a ``StoredPayload``; ``body`` is empty)."""
    file = Path(file)
    try:
        with open(file, "rb") as fh:
            key = (str(file), hashlib.file_digest(fh, "sha256").digest(), hold_bytes)
            size = fh.tell()
            if key not in _CACHE:
                hosts: set[str] = set()
                providers: set[str] = set()
                fh.seek(0)
                try:
                    _CACHE[key] = _read_file(file, fh, size, hosts, providers, hold_bytes)
                except ArchiveError as exc:
                    exc.hosts |= hosts - {""}
                    exc.providers |= providers
                    _CACHE[key] = exc
                if len(_CACHE) > 256:
                    _CACHE.pop(next(iter(_CACHE)))
    except OSError as exc:
        raise ArchiveError(file, f"cannot be read ({exc.strerror or exc})") from None
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
class Exchange:
    """One archived response with what belongs to it: the request that asked for it
    (``WARC-Concurrent-To``), the records derived from it (``WARC-Refers-To``: e.g. the DOM a
    browser rendered from the page) and the file's warcinfo fields. ``body``: the payload
    exactly as archived (content encoding kept), the bytes its sha256 is of."""

    file: Path
    response: ArchivedResponse
    warc_headers: list[tuple[str, str]]
    status_line: str
    request_line: str | None = None
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    derived: list[tuple[str, str, str, bytes]] = field(default_factory=list)  # (type, record id, content type, body)
    # The file's other conversion records (type, record id, content type, body): e.g. the DOM
    # rendered from the page whose script loaded this response.
    others: list[tuple[str, str, str, bytes]] = field(default_factory=list)
    warcinfo: dict[str, str] = field(default_factory=dict)


def read_exchange(file: Path, record_id: str) -> Exchange | None:
    """The response record ``record_id`` of a WARC file with its request and derived records;
    None when the file holds no such response. The file is read strictly first
    (``read_file``: a bad file raises ``ArchiveError``, it is never shown as evidence)."""
    file = Path(file)
    response = next((r for r in read_file(file) if r.ref.record_id == record_id), None)
    if response is None:
        return None
    if response.payload is not None:   # a payload too big to index held: read for this one exchange
        response = dataclasses.replace(response, body=response.payload.read())
    ex = Exchange(file, response, [], "")
    with open(file, "rb") as fh:
        for record in ArchiveIterator(fh):
            h = record.rec_headers
            if record.rec_type == "warcinfo":
                for line in record.content_stream().read().decode("utf-8", "replace").splitlines():
                    key, sep, value = line.partition(":")
                    if sep:
                        ex.warcinfo[key.strip()] = value.strip()
            elif record.rec_type == "response" and h.get_header("WARC-Record-ID") == record_id:
                ex.warc_headers = list(h.headers)
                ex.status_line = record.http_headers.statusline
            elif record.rec_type == "request" and h.get_header("WARC-Concurrent-To") == record_id:
                # warcio splits a request line into protocol ("GET") and statusline ("/pricing HTTP/1.1").
                ex.request_line = " ".join(p for p in (record.http_headers.protocol, record.http_headers.statusline) if p)
                ex.request_headers = list(record.http_headers.headers)
            elif record.rec_type in ("conversion", "resource", "metadata") and h.get_header("WARC-Refers-To"):
                kept = ex.derived if h.get_header("WARC-Refers-To") == record_id else ex.others
                kept.append((record.rec_type, h.get_header("WARC-Record-ID") or "",
                             h.get_header("Content-Type") or "", record.content_stream().read()))
    return ex

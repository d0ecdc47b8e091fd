"""Reading a WARC file as a stream, a gzip member at a time, never a member whole: the
strict reader (pricewatch/evidence/warc_read.py) checks each record as it goes, and a response payload
too big to hold (``HOLD_BYTES``) is indexed where it is (``StoredPayload``) and copied out, in
chunks and checked against its sha256 and digests, when it is served (spiders/replay.py)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator

from pricewatch.evidence.warc_common import ArchiveError

GZIP_MAGIC = b"\x1f\x8b"


def printable(text: str, limit: int = 120) -> str:
    text = " ".join("".join(c if c.isprintable() else "?" for c in str(text)).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class MemberStream(io.RawIOBase):
    """The decompressed bytes of one gzip member of ``fh`` from offset ``start``, produced as
    they are read (never the member whole). An incomplete or corrupt member raises
    ``ArchiveError``. ``end``: the offset in the file where the member ends (once read through).
    ``tail``: the last bytes produced (at most ``_TAIL``), for the check that whatever follows a
    member's last record is blank."""

    def __init__(self, file: Path, fh, start: int, hosts: set[str]):
        self.file, self.fh, self.start, self.hosts = file, fh, start, hosts
        fh.seek(start)
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._read = start            # compressed bytes consumed up to here
        self._buf, self._pos = b"", 0
        self._head = b""              # the first bytes produced (whose record it is, if it is cut)
        self.produced = 0
        self.tail = bytearray()
        self.end: int | None = None

    def readable(self) -> bool:
        return True

    def _more(self) -> None:
        chunk = self.fh.read(BLOCK)
        if not chunk:
            m = re.search(rb"WARC-Target-URI: *(\S+)", self._head)
            with contextlib.suppress(ValueError):
                self.hosts.add(urlsplit(m.group(1).decode("latin-1")).hostname or "" if m else "")
            raise ArchiveError(self.file, f"cut off: the gzip member at offset {self.start} is incomplete "
                                          f"(the file ends at {self._read} bytes)")
        try:
            out = self._d.decompress(chunk)
        except zlib.error:
            raise ArchiveError(self.file, f"corrupt gzip data: the member at offset {self.start} "
                                          f"does not decompress") from None
        self._read += len(chunk)
        if self._d.eof:
            self.end = self._read - len(self._d.unused_data)
        self._buf, self._pos = out, 0
        if len(self._head) < 4096:
            self._head += out[:4096]
        self.produced += len(out)
        self.tail += out
        if len(self.tail) > 2 * _TAIL:
            del self.tail[:-_TAIL]

    def readinto(self, b) -> int:
        while self._pos >= len(self._buf):
            if self.end is not None:
                return 0
            self._more()
        n = min(len(b), len(self._buf) - self._pos)
        b[:n] = memoryview(self._buf)[self._pos:self._pos + n]
        self._pos += n
        return n

    def tell(self) -> int:   # warcio computes record offsets from it
        return self.produced - (len(self._buf) - self._pos)

    def drain(self) -> None:
        while self.read(BLOCK):
            pass


class PlainStream(io.RawIOBase):
    """An uncompressed WARC file as one stream (with the same ``tail`` / ``produced`` / ``end``)."""

    def __init__(self, fh, size: int):
        self.fh, self.start, self.end, self.produced, self.tail = fh, 0, size, 0, bytearray()
        fh.seek(0)

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self.fh.readinto(b)
        self.produced += n
        self.tail += memoryview(b)[:n]
        if len(self.tail) > 2 * _TAIL:
            del self.tail[:-_TAIL]
        return n

    def tell(self) -> int:
        return self.produced

    def drain(self) -> None:
        while self.read(BLOCK):
            pass


BLOCK = 1 << 16
_TAIL = 1 << 20
#: A response payload above this is not held in memory: the record is indexed with where it is
#: (``StoredPayload``), its sha256 computed on the way, and it is copied out when served.
#: ``PRICEWATCH_REPLAY_HOLD_BYTES`` sets it (0: no response payload held; the tests use it).
HOLD_BYTES = int(os.environ.get("PRICEWATCH_REPLAY_HOLD_BYTES") or 16 * 1024 * 1024)


def member_streams(file: Path, fh, size: int, hosts: set[str]):
    """One stream per gzip member, in order (a plain WARC file: one stream of the file). Bytes
    after the last member that are not one make the file bad."""
    magic = fh.read(2)
    if magic != GZIP_MAGIC:
        yield PlainStream(fh, size)
        return
    pos = 0
    while pos < size:
        fh.seek(pos)
        if fh.read(2) != GZIP_MAGIC:
            raise ArchiveError(file, f"bytes at offset {pos} are not a gzip member (corrupt or appended data)")
        member = MemberStream(file, fh, pos, hosts)
        yield member
        member.drain()
        pos = member.end


@dataclass(frozen=True)
class StoredPayload:
    """Where a response payload too big to hold is: its WARC file, the offset of the stream
    (gzip member, or 0 for a plain file) and of the record in it, its size and sha256."""

    file: Path
    stream_offset: int
    record_offset: int
    gzipped: bool
    size: int
    sha256: str

    def copy_to(self, out) -> None:
        """Writes the payload to ``out`` (``write(bytes)``) in chunks; ``ArchiveError`` if the
        file no longer holds this record whole with this size and sha256 (a record is never
        served in part: the caller discards what it wrote)."""
        where = f"the record at offset {self.stream_offset + self.record_offset}"
        digest, n = hashlib.sha256(), 0
        try:
            with open(self.file, "rb") as fh:
                if self.gzipped:
                    stream = MemberStream(self.file, fh, self.stream_offset, set())
                    _skip(stream, self.record_offset)
                else:
                    fh.seek(self.record_offset)
                    stream = fh
                # The sha256 below is checked against the index's, which checked the record's
                # WARC digests when it was read: not computed a second time.
                record = next(iter(ArchiveIterator(stream)))
                with contextlib.redirect_stderr(io.StringIO()):
                    while chunk := record.raw_stream.read(BLOCK):
                        digest.update(chunk)
                        n += len(chunk)
                        out.write(chunk)
        except ArchiveError:
            raise
        except (OSError, StopIteration, ValueError) as exc:
            raise ArchiveError(self.file, f"{where} cannot be read back ({printable(exc, 80)})") from None
        if n != self.size or digest.hexdigest() != self.sha256:
            raise ArchiveError(self.file, f"{where} no longer matches its digest (damaged since it was indexed): "
                                          f"{n:,} bytes, sha256 {digest.hexdigest()[:12]}…, "
                                          f"expected {self.size:,} bytes, {self.sha256[:12]}…")

    def read(self) -> bytes:
        """The whole payload in memory (evidence of one offer; never the replay's path)."""
        out = io.BytesIO()
        self.copy_to(out)
        return out.getvalue()


def _skip(stream, n: int) -> None:
    while n > 0:
        got = stream.read(min(n, BLOCK))
        if not got:
            return
        n -= len(got)



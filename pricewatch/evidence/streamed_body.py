"""A response body too big to hold in memory: spooled to a temp file in chunks as it arrives
(a live download, spiders/streaming.py) or as it is copied out of the archive (a replay,
spiders/replay.py), hashed on the way, and read back as a stream by the parser.

:class:`Spool` writes the chunks (sha256 and size as it goes; a write that fails, e.g. a full
disk, is kept as ``error`` and the partial file removed: never a short body passed on);
:meth:`Spool.finish` gives the :class:`StreamedBody`: the file, its size and sha256 (of the
bytes as received, content encoding kept: the digest the WARC record and the offer store), the
headers as received. :meth:`StreamedBody.open` reads it decoded (gzip / deflate / br, as its
``Content-Encoding`` says), so the parser sees the document and the archive the wire bytes.

The file is removed by :meth:`StreamedBody.remove` (the spider, after its parse, also on
failure), when the object is garbage-collected (a response dropped by a retry), and with its
folder when the crawl's download handler closes (:func:`body_temp_dir` / :func:`remove_body_temp_dir`).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import weakref
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

CHUNK = 1 << 20


class SpoolError(OSError):
    """The body could not be written to (or read back from) its temp file; one line."""


@dataclass(eq=False)
class StreamedBody:
    path: Path
    size: int
    sha256: str
    headers: list[tuple[str, str]] = field(default_factory=list)   # as received (Content-Encoding kept)

    def __post_init__(self):
        self._finalizer = weakref.finalize(self, _unlink, str(self.path))

    @property
    def content_encoding(self) -> list[str]:
        return [e.strip().lower() for k, v in self.headers if k.lower() == "content-encoding"
                for e in v.split(",") if e.strip() and e.strip().lower() != "identity"]

    def open_raw(self) -> BinaryIO:
        """The bytes as received (what the WARC record holds and ``sha256`` is of)."""
        return open(self.path, "rb")

    def open(self) -> BinaryIO:
        """The document: the bytes decoded as their ``Content-Encoding`` says, as a stream."""
        stream: BinaryIO = self.open_raw()
        for encoding in reversed(self.content_encoding):
            stream = _Decoding(stream, encoding)
        return stream

    def read_all(self) -> bytes:
        """The whole document in memory (small bodies and tests only)."""
        with self.open() as fh:
            return fh.read()

    def remove(self) -> None:
        self._finalizer()


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


class _Decoding(io.RawIOBase):
    """A read-only stream decoding gzip / deflate / br on the fly, at most ``CHUNK`` at a time."""

    def __init__(self, raw: BinaryIO, encoding: str):
        self.raw, self.encoding = raw, encoding
        self._buf, self._pos, self._tail, self._eof = b"", 0, b"", False
        if encoding in ("gzip", "x-gzip"):
            self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._d = None   # zlib-wrapped or raw deflate: decided on the first bytes
        elif encoding == "br":
            import brotli
            self._d = brotli.Decompressor()
        else:
            raise SpoolError(f"cannot decode a body with Content-Encoding {encoding!r}")

    def readable(self) -> bool:
        return True

    def _more(self) -> None:
        data = self._tail or self.raw.read(CHUNK)
        self._tail = b""
        if not data:
            if self.encoding != "br" and self._d is not None and not self._d.eof:
                raise SpoolError(f"the {self.encoding} body is cut off (its compressed stream does not end)")
            self._eof = True
            return
        if self._d is None:   # deflate: an RFC 1950 zlib stream, or the raw deflate some servers send
            self._d = zlib.decompressobj(zlib.MAX_WBITS if (data[0] & 0x0F) == 8 else -zlib.MAX_WBITS)
        try:
            if self.encoding == "br":
                self._buf = self._d.process(data)
            else:
                if self._d.eof:   # a second gzip member follows the first
                    self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                self._buf = self._d.decompress(data, CHUNK)
                self._tail = self._d.unconsumed_tail or self._d.unused_data
        except Exception as exc:   # zlib.error, brotli.error
            raise SpoolError(f"the {self.encoding} body does not decode ({exc})") from None
        self._pos = 0

    def readinto(self, b) -> int:
        while self._pos >= len(self._buf) and not self._eof:
            self._more()
        n = min(len(b), len(self._buf) - self._pos)
        b[:n] = memoryview(self._buf)[self._pos:self._pos + n]
        self._pos += n
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


class Spool:
    """Writes one body to a temp file in ``directory``, hashing it as it goes.

    Scrapy's HTTP reader sees it as its body buffer (``write``, ``truncate``, ``getvalue``),
    so a download is written here instead of into memory (spiders/streaming.py). A write that
    fails sets ``error`` (one line), removes the file and calls ``on_error`` (which aborts the
    download): a body is whole or it is nothing."""

    def __init__(self, directory: Path | str, prefix: str = "body-", file: BinaryIO | None = None):
        self.error: str | None = None
        self.on_error = None
        self.size = 0
        self.received = 0   # every byte ever written, also those a truncate() dropped
        self._sha = hashlib.sha256()
        if file is not None:   # an already open target (e.g. /dev/full in the fault tests): never unlinked
            self.path, self._fh, self._owned = Path(getattr(file, "name", "<file>")), file, False
            return
        try:
            fd, name = tempfile.mkstemp(dir=str(directory), prefix=prefix, suffix=".body")
        except OSError as exc:
            raise SpoolError(f"cannot create a temp file for the body in {directory}: {exc.strerror or exc}") from None
        self.path, self._fh, self._owned = Path(name), os.fdopen(fd, "wb"), True

    # -- Scrapy's body-buffer interface ------------------------------------------------------
    def write(self, data: bytes) -> int:
        if self.error:
            return 0
        try:
            self._fh.write(data)
        except OSError as exc:
            self._fail(exc)
            return 0
        self._sha.update(data)
        self.size += len(data)
        self.received += len(data)
        return len(data)

    def truncate(self, size: int = 0) -> int:
        """Scrapy empties its buffer before cancelling a body over DOWNLOAD_MAXSIZE."""
        if not self.error:
            self._fh.seek(size)
            self._fh.truncate(size)
        self.size, self._sha = 0, hashlib.sha256()
        return 0

    def getvalue(self) -> bytes:
        return b""   # nothing is held: the body is in the file

    # -----------------------------------------------------------------------------------------
    def _fail(self, exc: OSError) -> None:
        self.error = f"cannot write the body to disk ({exc.strerror or exc}) after {self.size:,} bytes"
        self.discard()
        if self.on_error is not None:
            self.on_error()

    def copy_from(self, stream: BinaryIO) -> None:
        while not self.error and (chunk := stream.read(CHUNK)):
            self.write(chunk)

    def finish(self, headers: list[tuple[str, str]] | None = None) -> StreamedBody:
        """The body, once every byte is in the file; ``SpoolError`` if a write failed."""
        if not self.error:
            try:
                self._fh.flush()
                self._fh.close()
            except OSError as exc:   # a full disk can show only when the buffer is flushed
                self._fail(exc)
        if self.error:
            raise SpoolError(self.error)
        return StreamedBody(self.path, self.size, self._sha.hexdigest(), list(headers or []))

    def discard(self) -> None:
        try:
            self._fh.close()
        except OSError:
            pass
        if self._owned:
            _unlink(str(self.path))


def body_temp_dir(parent: str | Path | None = None) -> Path:
    """A fresh folder for one crawl's spooled bodies (under ``parent`` or the system temp)."""
    if parent:
        Path(parent).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="pricewatch-bodies-", dir=str(parent) if parent else None))


def remove_body_temp_dir(path: Path | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)

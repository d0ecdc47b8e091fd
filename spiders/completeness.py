"""Is a body whole? A response whose connection closed before its document ended is never read
as the whole document.

A body with a Content-Length (or chunked) that came short is Scrapy's dataloss
(``DOWNLOAD_FAIL_ON_DATALOSS``). A body with neither ends when the server closes the
connection (Scrapy's ``partial`` flag), so a cut there looks like an end: only the document
itself can tell. Each rule judges what a cut leaves behind and never what an excerpt or a
look-alike leaves behind, so every shipped capture passes (tests/test_cut_bodies.py checks
each recorded body):

=====================  ========================================================================
the body               is cut off when
=====================  ========================================================================
HTML (text/html, or    it starts as a whole page (``<!DOCTYPE html``/``<html``, after a BOM,
no Content-Type)       whitespace, comments or an XML declaration) and has neither ``</html>``
                       nor ``</body>`` in its last 64 KiB. Fragments and excerpts (no page
                       start) are not judged. A Next.js page's flight data running off the end
                       is named in the line.
JSON (``*json*``)      it does not parse, and the reason is the end: inside a string or with
                       objects/arrays still open (a bracket scan, only after ``json.loads``
                       failed). A JSON that is closed but malformed is the spider's to report
                       (a layout error); a JSON blob embedded in a page is the spider's too
                       (only the response's own Content-Type makes a JSON here).
NDJSON / JSON lines    its last line neither ends with a newline nor parses.
RSC stream             (``text/x-component``) its last row is incomplete: no end of line, or a
                       text row (``T<len>,``) shorter than its length (spiders/nextjs.py).
gzip / deflate / br    (``Content-Encoding``, judged before Scrapy's decompression, which keeps
                       what it could decode and says nothing) the compressed stream does not
                       reach its end-of-stream marker, or does not decode.
a browser page         the document the browser received (not the DOM it rendered, which is
                       always closed) fails the rule of its type (spiders/playwright_replay.py).
=====================  ========================================================================

:func:`cut_off` is the verdict :class:`spiders.faults.NetworkFaultMiddleware` acts on (retried,
then one line naming the URL: "JSON document cut off at 1234 bytes (...) after 4 attempts"). A
check made where the body is still as received (compressed, or in the browser) is carried to
it as a response flag starting with :data:`CUT_FLAG`. A streamed body (spiders/streaming.py,
in a temp file) is not judged here: its parser streams it strictly and fails on a cut
(``ijson`` / the decoding reader's "gzip body is cut off").
"""

from __future__ import annotations

import json
import re
import zlib

from spiders.nextjs import flight_rows_cut, flight_strings

#: A response flag carrying a verdict made upstream: "cut off: <the line>".
CUT_FLAG = "cut off: "

HTML_END_WINDOW = 65536
_PAGE_START = re.compile(rb"(?:\s|<!--.*?-->|<\?xml[^>]*>)*<(?:!doctype\s+html|html[\s>])", re.I | re.S)
_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}"]', re.S)
_XSSI = re.compile(rb"^\s*\)\]\}'[^\n]*\n")
_LINES_TYPES = ("ndjson", "jsonl", "json-seq", "jsonlines", "x-json-stream")
_CHUNK = 1 << 20


def _text_header(headers, name: bytes) -> str:
    value = headers.get(name) if headers is not None else None
    if value is None:
        return ""
    return (value.decode("latin-1") if isinstance(value, bytes) else str(value)).strip().lower()


def _plain_headers(pairs) -> dict[bytes, bytes]:
    """``[(name, value)]`` or a mapping of str/bytes -> one lowercase-keyed dict of bytes."""
    items = pairs.items() if hasattr(pairs, "items") else pairs
    out: dict[bytes, bytes] = {}
    for k, v in items:
        key = (k if isinstance(k, bytes) else str(k).encode("latin-1")).lower()
        if isinstance(v, list):
            v = b", ".join(x if isinstance(x, bytes) else str(x).encode("latin-1") for x in v)
        out[key] = v if isinstance(v, bytes) else str(v).encode("latin-1")
    return out


# -- the rules, on bytes ---------------------------------------------------------------------

def html_cut_off(body: bytes, ctype: str = "") -> str | None:
    """Why an HTML body is an incomplete page, or None (not HTML, not a whole page, or whole)."""
    if ctype and "html" not in ctype:
        return None
    if not _PAGE_START.match(body[:4096].lstrip(b"\xef\xbb\xbf")):
        return None
    tail = body[-HTML_END_WINDOW:].lower()
    if b"</html" in tail or b"</body" in tail:
        return None
    why = "no </body> or </html>"
    if b"self.__next_f.push" in body:
        _, truncated, _ = flight_strings(body.decode("utf-8", "replace"))
        if truncated:
            why += ", ends in a Next.js flight string"
    return f"HTML document cut off at {len(body)} bytes ({why})"


def json_cut_off(body: bytes) -> str | None:
    """Why a JSON body ends mid-document, or None (it parses, is empty, or is closed but
    malformed: not a cut)."""
    data = _XSSI.sub(b"", body, count=1).lstrip(b"\xef\xbb\xbf")
    if not data.strip():
        return None
    try:
        json.loads(data)
        return None
    except (ValueError, UnicodeDecodeError):
        pass
    depth = 0
    for token in _JSON_TOKEN.finditer(data):
        t = token.group()
        if t == b'"':
            return f"JSON document cut off at {len(body)} bytes (ends inside a string)"
        if t[:1] == b'"':
            continue
        depth += 1 if t in (b"{", b"[") else -1
        if depth < 0:
            return None       # more closed than opened: malformed, not cut
    if depth > 0:
        return f"JSON document cut off at {len(body)} bytes ({depth} bracket(s) left open)"
    return None


def json_lines_cut_off(body: bytes) -> str | None:
    """NDJSON / JSON lines: a last line without its newline that does not parse is cut."""
    if not body.strip() or body.endswith(b"\n"):
        return None
    last = body.rsplit(b"\n", 1)[-1]
    try:
        json.loads(last)
        return None
    except (ValueError, UnicodeDecodeError):
        return f"JSON lines cut off at {len(body)} bytes (the last line is not whole)"


def rsc_cut_off(body: bytes) -> str | None:
    why = flight_rows_cut(body)
    return f"RSC stream cut off at {len(body)} bytes ({why})" if why else None


def content_cut_off(body: bytes, ctype: str) -> str | None:
    """The rule of the body's type (see the module's table), on a decoded body."""
    if not body:
        return None
    if "x-component" in ctype:
        return rsc_cut_off(body)
    if "json" in ctype:
        if any(t in ctype for t in _LINES_TYPES):
            return json_lines_cut_off(body)
        return json_cut_off(body)
    if not ctype and body.lstrip()[:1] in (b"{", b"["):
        return json_cut_off(body)
    return html_cut_off(body, ctype)


def compressed_cut_off(body: bytes, encoding: str) -> str | None:
    """Why a compressed body's stream does not end (or does not decode), or None. Only one
    layer of gzip / x-gzip / deflate / br is judged (what servers send)."""
    encodings = [e.strip() for e in encoding.split(",") if e.strip()]
    if len(encodings) != 1 or not body:
        return None
    kind = encodings[0]
    n = len(body)
    try:
        if kind in ("gzip", "x-gzip"):
            ended = _zlib_ends(body, 16 + zlib.MAX_WBITS, members=True)
        elif kind == "deflate":
            try:
                ended = _zlib_ends(body, zlib.MAX_WBITS)
            except zlib.error:   # the raw deflate some servers send
                ended = _zlib_ends(body, -zlib.MAX_WBITS)
        elif kind == "br":
            try:
                import brotli
            except ImportError:
                try:
                    import brotlicffi as brotli
                except ImportError:
                    return None
            d = brotli.Decompressor()
            d.process(body)
            ended = d.is_finished()
        else:
            return None
    except Exception as exc:   # zlib.error, brotli.error
        return f"{kind} stream broken in its {n} bytes ({str(exc)[:60]})"
    if not ended:
        return f"{kind} stream cut off at {n} bytes (no end-of-stream marker)"
    return None


def _zlib_ends(data: bytes, wbits: int, members: bool = False) -> bool:
    d = zlib.decompressobj(wbits)
    while True:
        d.decompress(data, _CHUNK)
        while d.unconsumed_tail and not d.eof:
            d.decompress(d.unconsumed_tail, _CHUNK)
        if not d.eof:
            return False
        rest = d.unused_data
        if not (members and rest[:2] == b"\x1f\x8b"):   # trailing bytes after the stream: ignored
            return True
        data, d = rest, zlib.decompressobj(wbits)


def body_cut_off(body: bytes, headers) -> str | None:
    """A body as received (maybe compressed) with its headers (a Scrapy ``Headers``, a mapping
    or ``[(name, value)]``): the compressed stream's rule, then its type's rule on what it
    decodes to. For bodies judged outside the downloader chain (the browser's document)."""
    h = _plain_headers(headers)
    encoding = _text_header(h, b"content-encoding")
    if encoding and encoding != "identity":
        problem = compressed_cut_off(body, encoding)
        if problem:
            return problem
        try:
            body = _decode(body, encoding)
        except (zlib.error, OSError, EOFError):
            return None
    return content_cut_off(body, _text_header(h, b"content-type"))


def _decode(body: bytes, encoding: str) -> bytes:
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        try:
            return zlib.decompress(body)
        except zlib.error:
            return zlib.decompress(body, -zlib.MAX_WBITS)
    raise OSError(f"not decoded here: {encoding}")


# -- on Scrapy responses ---------------------------------------------------------------------

def cut_off(response) -> str | None:
    """The verdict on a (decoded) Scrapy response: a flag set upstream (:data:`CUT_FLAG`), else
    the rule of its Content-Type on its body. None: whole, or nothing to judge."""
    for flag in response.flags:
        if isinstance(flag, str) and flag.startswith(CUT_FLAG):
            return flag[len(CUT_FLAG):]
    if getattr(response, "streamed", None) is not None:
        return None
    return content_cut_off(response.body, _text_header(response.headers, b"Content-Type"))


def flag_cut(response, message: str) -> None:
    """Carries a verdict made upstream to NetworkFaultMiddleware (it retries, then gives up)."""
    response.flags.append(CUT_FLAG + message)


class CompressedEndMiddleware:
    """Downloader middleware between the WARC archive (950: the bytes as received) and Scrapy's
    HttpCompressionMiddleware (590, which keeps whatever part of a cut stream it could decode):
    a compressed body whose stream does not end is flagged cut off, so the fault middleware
    (550) retries it and then fails the request with one line; never parsed in part."""

    def process_response(self, request, response):
        encoding = _text_header(response.headers, b"Content-Encoding")
        if encoding and encoding != "identity" and request.method != "HEAD" and response.body:
            problem = compressed_cut_off(response.body, encoding)
            if problem:
                flag_cut(response, problem)
        return response

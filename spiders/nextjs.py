"""Next.js pages that stream React Server Components: the ``self.__next_f.push([1,"…"])``
strings of a server-rendered page (Massed Compute's pricing table, Shadeform's homepage), and
whether an RSC answer (``text/x-component``) ends at a row's end (spiders/completeness.py)."""

from __future__ import annotations

import json
import re

PUSH = re.compile(r'self\.__next_f\.push\(\[1,(?=")')
STRING = re.compile(r'"((?:[^"\\]|\\.)*)(")?', re.S)


def flight_strings(text: str) -> tuple[list[str], bool, list[str]]:
    """The strings of every ``self.__next_f.push([1,"…"])`` in page order, whether the last one
    runs off the end of the document (truncated: read up to there), and problems reading them."""
    chunks, problems, truncated = [], [], False
    for push in PUSH.finditer(text):
        literal = STRING.match(text, push.end())
        if literal.group(2):
            source = literal.group(0)
        elif text[literal.end():] in ("", "\\"):
            # The document ends inside this string: read what is there (without a cut escape).
            source = '"' + re.sub(r"\\u[0-9a-fA-F]{0,3}$", "", literal.group(1)) + '"'
            truncated = True
        else:
            problems.append(f"a flight string at offset {push.start()} is not closed")
            continue
        try:
            chunks.append(json.loads(source))
        except ValueError as exc:
            problems.append(f"a flight string at offset {push.start()} is not a string we can read ({exc})")
    return chunks, truncated, problems


def read_flight_stream(text: str, url: str, error) -> tuple[str | None, bool]:
    """The page's flight strings joined in page order, and whether the last one is cut off by the
    end of the document; each problem reading them, and a page with none, reported through
    ``error`` (a parser's ``Parsed.error``). None when there is nothing to read."""
    chunks, truncated, problems = flight_strings(text)
    for problem in problems:
        error(f"{url}: {problem}")
    if not chunks:
        if not problems:
            error(f"{url}: no Next.js flight data (self.__next_f.push) in the page")
        return None, truncated
    return "".join(chunks), truncated


ROW_START = re.compile(rb"[0-9a-fA-F]*:")
TEXT_ROW = re.compile(rb"T([0-9a-fA-F]+),")


def flight_rows_cut(data: bytes) -> str | None:
    """Why an RSC flight stream (a ``text/x-component`` answer: rows ``<hex id>:<payload>\\n``,
    a text row ``<hex id>:T<hex byte length>,<text>`` without a newline) ends inside its last
    row, or None: it ends at a row's end, or it is not a stream of rows we know (not judged)."""
    pos, n = 0, len(data)
    while pos < n:
        row = ROW_START.match(data, pos)
        if not row:
            return None
        start = row.end()
        text = TEXT_ROW.match(data, start, min(n, start + 24))
        if text:
            length = int(text.group(1), 16)
            have = n - text.end()
            if have < length:
                return f"last text row has {have} of {length} bytes"
            pos = text.end() + length
            continue
        end = data.find(b"\n", start)
        if end < 0:
            return "last row has no end of line"
        pos = end + 1
    return None

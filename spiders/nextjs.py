"""Next.js pages that stream React Server Components: the ``self.__next_f.push([1,"…"])``
strings of a server-rendered page (Massed Compute's pricing table, Shadeform's homepage)."""

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

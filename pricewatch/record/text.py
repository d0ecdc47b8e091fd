"""Scraped text is data, never markup: the one place that makes it inert for each output.

Every string a provider printed (a GPU label, a price cell, an error quoting the page) may hold
console markup (``[/]``), Markdown (``|``, ``*``, links), HTML (``<script>``), control
characters or be very long. Each output escapes it with the function for that output:

- ``plain``     control characters removed, whitespace collapsed, length capped (logs, titles)
- ``console``   rich markup escaped (CLI tables and messages)
- ``markdown``  Markdown / table syntax escaped (reports, alert bodies sent as Markdown)
- ``html``      HTML escaped (the HTML report)
"""

from __future__ import annotations

import html as _html
import re
import unicodedata

from rich.markup import escape as _rich_escape

MAX_LEN = 300
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-!|<>~])")


def plain(value, max_len: int = MAX_LEN) -> str:
    """One line of printable text: control and format characters dropped (bidi overrides,
    zero-width joiners, escape sequences), whitespace collapsed, cut at max_len with '…'."""
    if value is None:
        return ""
    s = "".join(" " if ch in "\t\r\n" else ch for ch in str(value)
                if ch in "\t\r\n" or unicodedata.category(ch)[0] != "C")
    s = " ".join(s.split())
    return s if len(s) <= max_len else s[: max_len - 1].rstrip() + "…"


def console(value, max_len: int = MAX_LEN) -> str:
    """Safe inside rich markup (``[bold]`` etc. in the value is shown, not applied)."""
    return _rich_escape(plain(value, max_len))


def markdown(value, max_len: int = MAX_LEN) -> str:
    """Safe in Markdown prose and table cells: syntax characters backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", plain(value, max_len))


def html(value, max_len: int = MAX_LEN) -> str:
    """Safe as HTML text or attribute value."""
    return _html.escape(plain(value, max_len), quote=True)

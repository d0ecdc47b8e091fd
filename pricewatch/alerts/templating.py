"""Message text from Jinja2 templates: shipped in pricewatch/alerts/templates/ (package
resources), overridable file by file from the folder `[alerts] templates` names.

Per message kind four templates: ``<kind>.title.txt`` (one line), ``<kind>.txt`` (plain text:
the CLI, generic webhooks), ``<kind>.md`` (chat targets that render Markdown) and
``<kind>.html`` (e-mail). Everything a template prints goes through the escaping of its
output, so a template cannot let a scraped string become markup: HTML templates autoescape,
Markdown ones escape Markdown syntax in every value (pricewatch.record.text.markdown), text ones drop
control characters (pricewatch.record.text.plain). A URL filter (``|link``) passes only http(s) URLs,
percent-encoded, unescaped, for our own links.

Bodies longer than a target takes are shortened by dropping whole lines (``fit``), never cut
mid-word, ending with "... and N more line(s)".
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from pricewatch.record import text
from pricewatch.record.config import AlertConfig

FORMATS = ("title.txt", "txt", "md", "html")
VALUE_MAX = 600          # a value longer than this (an error quoting a page) is cut with "…"


class Raw(str):
    """Our own text that a format must not escape (a checked URL)."""


def _link(url) -> str:
    if not url or not str(url).startswith(("http://", "https://")):
        return Raw("")
    return Raw(quote(str(url), safe=":/?#[]@!$&'*+,;=%~-._"))


def _finalizer(fmt: str):
    def fin(v):
        if v is None:
            return ""
        if isinstance(v, (Raw, Markup)):
            return v
        if fmt == "md":
            return text.markdown(v, VALUE_MAX)
        if fmt in ("txt", "title.txt"):
            return text.plain(v, VALUE_MAX)
        return v
    return fin


def _code(fmt: str):
    """For an id or a command inside a code span: plain text, no backtick, not escaped."""
    def code(v) -> str:
        plain = text.plain(v, VALUE_MAX).replace("`", "'")
        return Raw(plain) if fmt == "md" else plain
    return code


# Numbers and times we format ourselves: digits, ".", ",", "+", "-", ":", "%" only, so they
# pass unescaped (a Markdown "\-" in "2026-11-05" would only make the raw text hard to read).
def _money(v) -> str:
    from pricewatch.alerts.render import _money as money
    return Raw("-" if v is None else money(v))


def _pct(v) -> str:
    return Raw("" if v is None else f"{float(v):+.2f}%")


def _when(v) -> str:
    if v is None:
        return Raw("-")
    if isinstance(v, str):
        if not re.fullmatch(r"[0-9T:. +\-]+", v):
            return v
        return Raw(v.replace("T", " ")[:16] + " UTC" if "T" in v else v)
    return Raw(f"{v:%Y-%m-%d %H:%M} UTC")


@lru_cache(maxsize=8)
def _env(fmt: str, user_dir: str | None) -> jinja2.Environment:
    loaders = [jinja2.FileSystemLoader(user_dir)] if user_dir else []
    loaders.append(jinja2.PackageLoader("pricewatch.alerts", "templates"))
    env = jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=(fmt == "html"),
                             finalize=_finalizer(fmt), trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=False, undefined=jinja2.StrictUndefined)
    env.filters.update(link=_link if fmt != "html" else (lambda u: str(_link(u))), money=_money, pct=_pct,
                       when=_when, code=_code(fmt))
    return env


def render(kind: str, fields: dict, cfg: AlertConfig) -> dict[str, str]:
    """{title, txt, md, html} of a message of this kind."""
    out = {}
    for fmt in FORMATS:
        body = _env(fmt.split(".")[-1] if fmt != "title.txt" else "title.txt", cfg.templates) \
            .get_template(f"{kind}.{fmt}").render(**fields)
        out["title" if fmt == "title.txt" else fmt] = body.strip() if fmt != "html" else body
    out["title"] = text.plain(out["title"], 250)
    return out


def fit(body: str, limit: int, more: str) -> str:
    """The body whole when it fits in limit characters, else its first whole lines and one line
    "... and N more line(s)" + more. limit 0: no limit."""
    if not limit or len(body) <= limit:
        return body
    lines = body.split("\n")
    keep, size = [], 0
    for ln in lines:
        tail = f"... and {len(lines) - len(keep)} more line(s){more}"
        if size + len(ln) + 1 + len(tail) + 1 > limit:
            break
        keep.append(ln)
        size += len(ln) + 1
    if not keep:       # a first line longer than the limit: cut it at a space
        head = lines[0][: max(limit - 80, 10)]
        keep = [(head.rsplit(" ", 1)[0] if " " in head else head) + " …"]
    return "\n".join(keep + [f"... and {len(lines) - len(keep)} more line(s){more}"])

"""Sends a notice (title, body, type) to apprise URLs: Slack, Discord, e-mail, a JSON webhook...

    from pricewatch.alerts.notify import send
    result = send("Nightly run failed", "3 of 13 providers failed: ...", "failure")
    if not result.ok: ...   # result.deliveries says which target failed and why (redacted)

URLs default to the configuration (``PRICEWATCH_ALERT_URLS`` or pricewatch.toml). An apprise
URL embeds its secret (webhook token, SMTP password), so nothing here logs, returns or stores
a URL as given: targets are named by a hash and a redacted label, and the log lines of apprise
and of the HTTP client are scrubbed while a notice is sent.

Each target gets one attempt per call (apprise's own retries are off), bounded by ``timeout_s``
(read) and at most 5 s to connect. A plain webhook cannot say "I got it" any other way than by
answering, so each delivery says what is known (``Delivery.outcome``):

- ``sent``         the target accepted the notice (2xx)
- ``unconfirmed``  the whole request went out but no answer came within the timeout: the
                   receiver may well have processed it. The caller must not resend it (a resend
                   is how a slow receiver got every alert twice): at most once per target.
- ``unreachable``  nothing was sent (connection refused, host not found, no connection in time)
- ``rejected``     the target answered with an error (HTTP 500, bad credentials, ...)

``idempotency_key`` (pricewatch's ``alert_id``) goes into the payload of webhook targets that
carry one (JSON / form / XML: field ``alert_id`` and header ``Idempotency-Key``), so a receiver
can drop a duplicate should one ever reach it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

import apprise
from apprise import AppriseResultStatus, NotifyFormat, NotifyType

log = logging.getLogger(__name__)
MASK = "****"
NOTIFY_TYPES = {t.value for t in NotifyType}  # info, success, warning, failure
BODY_FORMATS = {"text": NotifyFormat.TEXT, "markdown": NotifyFormat.MARKDOWN, "html": NotifyFormat.HTML}
# Generic webhooks: the body (Markdown, source text escaped) is read by a program that may
# render it; JSON ones also get the structured fields.
WEBHOOK_SCHEMES = {"json", "jsons", "form", "forms", "xml", "xmls"}
JSON_SCHEMES = {"json", "jsons"}
FIELDS_KEY = "pricewatch"     # the JSON payload key holding the structured fields
CONNECT_TIMEOUT_S = 5.0
# What requests says (in apprise's debug line "Socket Exception: ...") for each failure.
_READ_TIMEOUT = re.compile(r"Read timed out", re.I)
_UNREACHABLE = (("NameResolutionError", "host not found"), ("Connection refused", "connection refused"),
                ("ConnectTimeout", "no connection within {cto:g} s"), ("connect timeout", "no connection within {cto:g} s"),
                ("NewConnectionError", "connection failed"), ("Failed to establish", "connection failed"))


@dataclass(frozen=True)
class Delivery:
    target: str          # stable id of the URL (a hash: the URL itself is a secret)
    label: str           # redacted URL, safe to show
    ok: bool
    error: str | None = None
    outcome: str = "sent"     # sent | unconfirmed | unreachable | rejected (see the module docstring)

    @property
    def reached(self) -> bool:
        """The target has (or may well have) the notice: never send it to this target again."""
        return self.outcome in ("sent", "unconfirmed")


@dataclass(frozen=True)
class SendResult:
    deliveries: tuple[Delivery, ...]

    @property
    def ok(self) -> bool:
        """True when there was at least one target and every target accepted the notice."""
        return bool(self.deliveries) and all(d.ok for d in self.deliveries)

    @property
    def error(self) -> str | None:
        failed = [f"{d.label}: {d.error}" for d in self.deliveries if not d.ok]
        if not self.deliveries:
            return "no alert URLs configured (set PRICEWATCH_ALERT_URLS or [alerts] urls)"
        return "; ".join(failed) or None


@dataclass(frozen=True)
class Style:
    """How a target wants a message: its body format (html for e-mail, markdown for chat
    services that render it and for generic webhooks, whose program may render it; text for
    the rest), the longest body it
    takes (apprise's body_maxlen; 0: no limit known) and whether it gets the structured fields."""
    body_format: str
    max_body: int
    fields: bool


def style(url: str) -> Style:
    service = apprise.Apprise.instantiate(url)
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if not service:
        return Style("text", 0, False)
    formats = service.notify_format if isinstance(service.notify_format, tuple) else (service.notify_format,)
    if scheme in WEBHOOK_SCHEMES:
        fmt = "markdown"      # read by a program that may render it: source text escaped
    elif formats and formats[0] == NotifyFormat.HTML and NotifyFormat.MARKDOWN not in formats:
        fmt = "html"          # e-mail: our own HTML (autoescaped templates)
    elif NotifyFormat.MARKDOWN in formats:
        fmt = "markdown"      # Slack, Discord, Telegram, ...: apprise converts where needed
    else:
        fmt = "text"
    return Style(fmt, int(getattr(service, "body_maxlen", 0) or 0), scheme in JSON_SCHEMES)


def target_id(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:16]


def _secrets(url: str, whole: bool = True) -> set[str]:
    """Parts of a URL that may be credentials: the password, and tokens in the host (Slack,
    Discord put them there), the path or the query. Short parts ("hook", "json") stay readable."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        found = {parts.password or ""}
        if "." not in host and host != "localhost":
            found.add(host)
        found.update(unquote(s) for s in parts.path.split("/"))
        found.update(v for _, v in parse_qsl(parts.query))
    except ValueError:
        return {url}
    found = {s for s in found if len(s) >= 6}
    return found | {url} if whole else found


def scrub(text: str, urls: Iterable[str], whole: bool = True) -> str:
    """Removes every secret part of the given URLs from a text (a log line, an error)."""
    secrets = sorted({s for u in urls for s in _secrets(u, whole)}, key=len, reverse=True)
    for s in secrets:
        text = text.replace(s, MASK)
    return text


def redact_url(url: str) -> str:
    """A label for a URL that is safe to log: apprise's privacy form, without the query."""
    service = apprise.Apprise.instantiate(url)
    if not service:
        scheme = url.split("://", 1)[0] if "://" in url else "?"
        return f"{scheme}://{MASK} (not a valid apprise URL)"
    return scrub(service.url(privacy=True).split("?", 1)[0], [url], whole=False)


class _ScrubFilter(logging.Filter):
    def __init__(self, urls: list[str]):
        super().__init__()
        self.urls = urls

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = scrub(record.getMessage(), self.urls), None
        return True


# urllib3 logs each request's path at DEBUG, and webhook tokens often live in the path.
SCRUBBED_LOGGERS = ("apprise", "urllib3.connectionpool", "requests")


class _SocketDebugFilter(logging.Filter):
    """Lets through apprise's one debug line that says why a request failed ("Socket
    Exception: ... Read timed out"), which tells a timeout from a refusal; drops the other debug
    lines apprise only writes because its level is lowered while sending."""

    def __init__(self, level: int):
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= self.level or str(record.msg).startswith("Socket Exception")


@contextmanager
def _scrubbed_logs(urls: list[str]):
    flt = _ScrubFilter(urls)
    loggers = [logging.getLogger(name) for name in SCRUBBED_LOGGERS]
    for logger in loggers:
        logger.addFilter(flt)
    ap_logger = logging.getLogger("apprise")
    level = ap_logger.level
    debug_filter = _SocketDebugFilter(ap_logger.getEffectiveLevel())
    ap_logger.addFilter(debug_filter)
    ap_logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        ap_logger.setLevel(level)
        ap_logger.removeFilter(debug_filter)
        for logger in loggers:
            logger.removeFilter(flt)


def send(title: str, body: str, notify_type: str = "info", urls: Iterable[str] | None = None,
         timeout_s: float = 30, body_format: str = "text", idempotency_key: str | None = None,
         fields: dict | None = None) -> SendResult:
    """Sends one notice to each URL separately, so one broken target does not hide the others
    and a caller can retry only the targets that failed. ``body_format``: text or markdown
    (apprise converts Markdown for targets that want HTML, e.g. e-mail) or html. ``fields``: the
    structured fields JSON webhooks receive under the payload key ``pricewatch``."""
    if notify_type not in NOTIFY_TYPES:
        raise ValueError(f"notify_type must be one of {sorted(NOTIFY_TYPES)}")
    if body_format not in BODY_FORMATS:
        raise ValueError(f"body_format must be one of {sorted(BODY_FORMATS)}")
    if urls is None:
        from pricewatch.record.config import load_config
        urls = load_config().alerts.urls
    urls = list(urls)
    out = []
    with _scrubbed_logs(urls):
        for url in urls:
            out.append(_send_one(url, title, body, notify_type, timeout_s, BODY_FORMATS[body_format],
                                 idempotency_key, fields))
    for d in out:
        (log.info if d.ok else log.warning)("notice %r to %s: %s", title[:80], d.label, "sent" if d.ok else d.error)
    return SendResult(tuple(out))


def _send_one(url: str, title: str, body: str, notify_type: str, timeout_s: float, body_format,
              idempotency_key: str | None, fields: dict | None = None) -> Delivery:
    label, target = redact_url(url), target_id(url)
    service = apprise.Apprise.instantiate(url)
    ap = apprise.Apprise()
    if not service or not ap.add(service):
        return Delivery(target, label, False, "not a valid apprise URL", "rejected")
    connect_s = min(CONNECT_TIMEOUT_S, timeout_s)
    service.socket_connect_timeout, service.socket_read_timeout = connect_s, float(timeout_s)
    service.retry = 0       # one attempt per delivery: a retry of a slow target is a duplicate
    if idempotency_key:
        if isinstance(getattr(service, "payload_extras", None), dict):
            service.payload_extras.setdefault("alert_id", idempotency_key)
        if isinstance(getattr(service, "headers", None), dict):
            service.headers.setdefault("Idempotency-Key", idempotency_key)
    if fields is not None and url.split("://", 1)[0].lower() in JSON_SCHEMES \
            and isinstance(getattr(service, "payload_extras", None), dict):
        service.payload_extras.setdefault(FIELDS_KEY, fields)
    try:
        # The call-level bound is a backstop for plugins that ignore the socket timeouts.
        result = ap.notify(body=body, title=title, notify_type=NotifyType(notify_type), body_format=body_format,
                           timeout=connect_s + timeout_s + 5, log_level=logging.DEBUG)
    except Exception as exc:  # a plugin bug must not lose the alert: it stays pending
        return Delivery(target, label, False, scrub(f"{type(exc).__name__}: {exc}", [url]), "rejected")
    if result.status == AppriseResultStatus.SUCCESS:
        return Delivery(target, label, True)
    entries = [e for r in result.results for e in r.logs()]
    sockets = " ".join(e.message for e in entries if e.message.startswith("Socket Exception"))
    if result.status == AppriseResultStatus.TIMEOUT or _READ_TIMEOUT.search(sockets):
        return Delivery(target, label, False, f"no answer within {timeout_s:g} s (the request was sent: "
                                              "not sent again)", "unconfirmed")
    for marker, what in _UNREACHABLE:
        if marker.lower() in sockets.lower():
            return Delivery(target, label, False, f"unreachable: {what.format(cto=connect_s)}", "unreachable")
    reasons = [e.message for e in entries if e.level in ("WARNING", "ERROR", "CRITICAL")]
    reason = " ".join(dict.fromkeys(reasons)) or f"apprise status {result.status.name}"
    return Delivery(target, label, False, scrub(reason, [url]), "rejected")

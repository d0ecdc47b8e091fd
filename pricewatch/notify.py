"""Sends a notice (title, body, type) to apprise URLs: Slack, Discord, e-mail, a JSON webhook...

    from pricewatch.notify import send
    result = send("Nightly run failed", "3 of 13 providers failed: ...", "failure")
    if not result.ok: ...   # result.deliveries says which target failed and why (redacted)

URLs default to the configuration (``PRICEWATCH_ALERT_URLS`` or pricewatch.toml). An apprise
URL embeds its secret (webhook token, SMTP password), so nothing here logs, returns or stores
a URL as given: targets are named by a hash and a redacted label, and the log lines of apprise
and of the HTTP client are scrubbed while a notice is sent.
"""

from __future__ import annotations

import hashlib
import logging
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

import apprise
from apprise import AppriseResultStatus, NotifyFormat, NotifyType

log = logging.getLogger(__name__)
MASK = "****"
NOTIFY_TYPES = {t.value for t in NotifyType}  # info, success, warning, failure


@dataclass(frozen=True)
class Delivery:
    target: str          # stable id of the URL (a hash: the URL itself is a secret)
    label: str           # redacted URL, safe to show
    ok: bool
    error: str | None = None


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


@contextmanager
def _scrubbed_logs(urls: list[str]):
    flt = _ScrubFilter(urls)
    loggers = [logging.getLogger(name) for name in SCRUBBED_LOGGERS]
    for logger in loggers:
        logger.addFilter(flt)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(flt)


def send(title: str, body: str, notify_type: str = "info", urls: Iterable[str] | None = None,
         timeout_s: float = 30) -> SendResult:
    """Sends one notice to each URL separately, so one broken target does not hide the others
    and a caller can retry only the targets that failed."""
    if notify_type not in NOTIFY_TYPES:
        raise ValueError(f"notify_type must be one of {sorted(NOTIFY_TYPES)}")
    if urls is None:
        from pricewatch.config import load_config
        urls = load_config().alerts.urls
    urls = list(urls)
    out = []
    with _scrubbed_logs(urls):
        for url in urls:
            out.append(_send_one(url, title, body, notify_type, timeout_s))
    for d in out:
        (log.info if d.ok else log.warning)("notice %r to %s: %s", title[:80], d.label, "sent" if d.ok else d.error)
    return SendResult(tuple(out))


def _send_one(url: str, title: str, body: str, notify_type: str, timeout_s: float) -> Delivery:
    label, target = redact_url(url), target_id(url)
    ap = apprise.Apprise()
    if not ap.add(url):
        return Delivery(target, label, False, "not a valid apprise URL")
    try:
        result = ap.notify(body=body, title=title, notify_type=NotifyType(notify_type),
                           body_format=NotifyFormat.TEXT, timeout=timeout_s)
    except Exception as exc:  # a plugin bug must not lose the alert: it stays pending
        return Delivery(target, label, False, scrub(f"{type(exc).__name__}: {exc}", [url]))
    if result.status == AppriseResultStatus.SUCCESS:
        return Delivery(target, label, True)
    reasons = [e.message for r in result.results for e in r.logs() if e.level in ("WARNING", "ERROR", "CRITICAL")]
    reason = " ".join(reasons) or f"apprise status {result.status.name}"
    return Delivery(target, label, False, scrub(reason, [url]))

"""Network faults of a live crawl, each injected by a real local server misbehaving at a real
`pricewatch.collect.judge.run_crawl` subprocess (Massed Compute's spider pointed at the stand-in, which
serves the shipped page): timeouts, a crawl past its wall-clock limit, 429 with Retry-After,
503 on every retry, a dropped connection, connection refused, a DNS failure, and a body cut off with and without a
Content-Length.

The crawls are slow to start (~3 s of Scrapy each), so the module runs them all at once, a few
at a time, in one fixture; each test then reads its own crawl. Timeouts and retries are lowered
through run_crawl's settings so the whole file stays well under 30 s.
"""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from pricewatch.collect import crawl_process, judge, replays
from spiders import settings as project_settings
from spiders.massed_compute import parse_pricing
from tests.conftest import STANDIN_SETTINGS, shipped_exchanges

# Real processes and real network waits: run by `pytest -m slow` (CI runs it after the suite)
# and by `pytest -m fault`, not by the default `pytest -q`.
pytestmark = pytest.mark.slow

PAGE: bytes = shipped_exchanges("massed_compute")[0]["body"]   # a whole page: <!DOCTYPE ... </html>
OFFERS = 25                                                     # what the shipped page holds
ROBOTS = b"User-agent: *\nAllow: /\n"
# Where the cut-off page ends: 80% in, inside the flight data, where the page still parses
# without a layout error but is missing offers (what was accepted as `ok` before).
KEEP = int(len(PAGE) * 0.8)
DOWNLOAD_TIMEOUT = 2
RETRY_TIMES = 2
# The live path (WARC archiving, the fault middleware) at a stand-in host, with fast limits.
SETTINGS = {**STANDIN_SETTINGS,
            "DOWNLOADER_MIDDLEWARES": {**project_settings.DOWNLOADER_MIDDLEWARES,
                                       **STANDIN_SETTINGS["DOWNLOADER_MIDDLEWARES"]},
            "DOWNLOAD_TIMEOUT": DOWNLOAD_TIMEOUT, "RETRY_TIMES": RETRY_TIMES}


class RawServer:
    """A tiny HTTP/1.1 server on a raw socket, for faults no well-behaved server library
    produces: never answering, closing mid-body. Routes map a path to a writer(conn)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(32)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stopped = threading.Event()
        self.hits: list[tuple[float, str]] = []
        self.routes = {"/robots.txt": self.whole(ROBOTS, b"text/plain")}
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _serve(self):
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            path = data.split(b" ", 2)[1].decode()
            self.hits.append((time.monotonic(), path))
            self.routes.get(path, self.whole(b"not here", b"text/plain", status=b"404 Not Found"))(conn)

    @staticmethod
    def whole(body: bytes, ctype: bytes, status: bytes = b"200 OK"):
        def write(conn):
            conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: " + ctype +
                         b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        return write

    def hang(self, conn):
        """Accepts, reads the request, never answers (until the test server stops)."""
        self.stopped.wait()

    @staticmethod
    def cut(body: bytes, keep: int, content_length: bool):
        """Sends the headers and the first ``keep`` bytes, then closes the connection."""
        def write(conn):
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
            head += b"Content-Length: %d\r\n" % len(body) if content_length else b""
            conn.sendall(head + b"Connection: close\r\n\r\n" + body[:keep])
            conn.shutdown(socket.SHUT_RDWR)
        return write

    def close_delimited(self, body: bytes):
        """A whole page with no Content-Length, ended by closing (HTTP/1.0 style): complete."""
        return self.cut(body, len(body), content_length=False)

    def stop(self):
        self.stopped.set()
        self.sock.close()


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()          # nobody listens there now: connections are refused
    return port


class Counted:
    """A pytest-httpserver handler answering from a list of responses in turn (the last one
    repeats), recording when each request came."""

    def __init__(self, *responses: Response):
        self.responses, self.times = list(responses), []

    def __call__(self, request):
        self.times.append(time.monotonic())
        return self.responses[min(len(self.times), len(self.responses)) - 1]


def page() -> Response:
    return Response(PAGE, status=200, content_type="text/html; charset=utf-8")


def busy(status: int, retry_after: str | None = None) -> Response:
    headers = {"Retry-After": retry_after} if retry_after else {}
    return Response(b"<h1>busy</h1>", status=status, headers=headers, content_type="text/html")


@pytest.fixture(scope="module")
def crawls(tmp_path_factory):
    """Every fault's crawl, run concurrently (4 at a time) against the misbehaving servers."""
    root = tmp_path_factory.mktemp("network-faults")
    raw = RawServer()
    keep = KEEP
    raw.routes.update({"/hang": raw.hang, "/hang-long": raw.hang, "/drop": lambda conn: None,
                       "/cut-length": raw.cut(PAGE, keep, content_length=True),
                       "/cut-close": raw.cut(PAGE, keep, content_length=False),
                       "/whole-close": raw.close_delimited(PAGE)})
    http = HTTPServer(host="127.0.0.1", port=0)
    http.start()
    http.expect_request("/robots.txt").respond_with_data(ROBOTS)
    handlers = {"/429": Counted(busy(429, "2"), page()),
                "/429-long": Counted(busy(429, "3600"), page()),
                "/503": Counted(busy(503))}
    for path, handler in handlers.items():
        http.expect_request(path).respond_with_handler(handler)
    plan = {
        "timeout": dict(url=raw.url("/hang")),
        "killed": dict(url=raw.url("/hang-long"), timeout_s=8, settings={"DOWNLOAD_TIMEOUT": 60}),
        "429": dict(url=http.url_for("/429")),
        "429-long": dict(url=http.url_for("/429-long")),
        "503": dict(url=http.url_for("/503")),
        "dropped": dict(url=raw.url("/drop")),
        "refused": dict(url=f"http://127.0.0.1:{closed_port()}/pricing"),
        "dns": dict(url="http://pricewatch-test.invalid/pricing"),
        "cut-length": dict(url=raw.url("/cut-length")),
        "cut-close": dict(url=raw.url("/cut-close")),
        "whole-close": dict(url=raw.url("/whole-close")),
    }

    def run(name):
        p = plan[name]
        archive = root / name / "archive"
        result = crawl_process.run_crawl("massed_compute", root / name / "work", archive_dir=archive,
                                   spider_args={"pricing_url": p["url"]}, timeout_s=p.get("timeout_s"),
                                   settings={**SETTINGS, **p.get("settings", {})})
        return name, dict(result=result, outcome=judge.judge_crawl(result), url=p["url"],
                          warcs=sorted(archive.rglob("*.warc.gz")))

    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            done = dict(pool.map(run, sorted(plan, key=lambda n: n != "killed")))  # the slowest first
    finally:
        raw.stop()
        http.stop()
    done["handlers"], done["raw_hits"] = handlers, raw.hits
    return done


def one_line(outcome) -> str:
    assert outcome.status == "failed" and outcome.error
    assert "\n" not in outcome.error and "Traceback" not in outcome.error
    return outcome.error


def no_empty_warcs(crawl) -> str:
    empty = [w.name for w in crawl["warcs"] if w.stat().st_size == 0]
    assert not empty, f"0-byte WARC files left: {empty}"
    return f"{len(crawl['warcs'])} WARC file(s), none empty"


@pytest.mark.fault
def test_a_server_that_never_answers_fails_the_provider_in_bounded_time(crawls, fault):
    c = crawls["timeout"]
    error = one_line(c["outcome"])
    assert c["url"] in error and "timed out" in error and f"{DOWNLOAD_TIMEOUT} s" in error
    assert c["result"].report["network_faults"] == {"timeout": 1}
    assert [p for _, p in crawls["raw_hits"]].count("/hang") == 1           # asked once, not retried
    # One try of DOWNLOAD_TIMEOUT (timeouts are not retried), plus the process start.
    assert DOWNLOAD_TIMEOUT <= c["result"].duration_s < DOWNLOAD_TIMEOUT + 15
    assert c["result"].transient_failure() is None        # the flow does not wait for it again
    fault("provider accepts the connection and never answers",
          expected=f"fails after one DOWNLOAD_TIMEOUT ({DOWNLOAD_TIMEOUT} s here, 30 s live), not retried; "
                   "one line naming the URL and 'timed out'",
          observed=f"failed in {c['result'].duration_s:.1f} s: {error}")


@pytest.mark.fault
def test_a_crawl_past_its_wall_clock_limit_is_killed_not_raised(crawls, fault):
    c = crawls["killed"]
    result = c["result"]
    error = one_line(c["outcome"])
    assert result.killed_after_s == 8 and result.items == []
    assert "killed after 8 s" in error and "massed_compute" in error
    assert 8 <= result.duration_s < 8 + 5
    assert result.transient_failure() is None
    assert [p for _, p in crawls["raw_hits"]].count("/hang-long") == 1  # it was waiting on the page
    fault("crawl process hangs past its wall-clock limit (request timeout 60 s, limit 8 s)",
          expected="process group killed at the limit; provider failed 'killed after 8 s', no exception",
          observed=f"returned after {result.duration_s:.1f} s, exit {result.returncode}: {error}; "
                   + no_empty_warcs(c))


@pytest.mark.fault
def test_429_with_retry_after_is_waited_for_then_the_crawl_succeeds(crawls, fault):
    c = crawls["429"]
    times = crawls["handlers"]["/429"].times
    waited = times[1] - times[0]
    assert c["outcome"].status == "ok", c["outcome"].error
    assert len(c["result"].items) == OFFERS
    assert 2.0 <= waited < 4.0
    assert c["result"].report["retries"] == 1 and c["result"].report["http_status_counts"]["429"] == 1
    fault("provider answers 429 with Retry-After: 2, then 200",
          expected="the retry waits ~2 s, then ok with every offer; retries = 1",
          observed=f"retry came {waited:.1f} s later; {c['outcome'].status} with {len(c['result'].items)} "
                   f"offers; retries = {c['result'].report['retries']}")


@pytest.mark.fault
def test_a_retry_after_beyond_the_cap_fails_at_once_saying_so(crawls, fault):
    c = crawls["429-long"]
    error = one_line(c["outcome"])
    assert c["url"] in error and "HTTP 429" in error and "3600 s" in error
    assert len(crawls["handlers"]["/429-long"].times) == 1          # no retry, no sleep
    assert c["result"].duration_s < 15
    fault("provider answers 429 with Retry-After: 3600",
          expected="no wait beyond 60 s: fails at once saying it was asked to wait 3600 s",
          observed=f"failed in {c['result'].duration_s:.1f} s after 1 request: {error}")


@pytest.mark.fault
def test_503_on_every_retry_fails_naming_the_url_and_the_attempts(crawls, fault):
    c = crawls["503"]
    error = one_line(c["outcome"])
    attempts = RETRY_TIMES + 1
    assert f"{c['url']} " in error and f"HTTP 503 after {attempts} attempts" in error
    assert len(crawls["handlers"]["/503"].times) == attempts
    # The report counts the retries of a provider run that failed (they are not lost as 0).
    assert c["result"].report["retries"] == RETRY_TIMES
    assert c["result"].report["retry_gave_up"] == 1
    fault("provider answers 503 to every try",
          expected=f"fails 'HTTP 503 after {attempts} attempts' naming the URL; report retries = {RETRY_TIMES}",
          observed=f"{error}; retries = {c['result'].report['retries']}; " + no_empty_warcs(c))


@pytest.mark.fault
def test_a_connection_closed_without_an_answer_is_retried_then_fails_in_one_line(crawls, fault):
    c = crawls["dropped"]
    error = one_line(c["outcome"])
    attempts = RETRY_TIMES + 1
    assert c["url"] in error and f"connection closed before a complete answer after {attempts} attempts" in error
    assert [p for _, p in crawls["raw_hits"]].count("/drop") == attempts
    assert c["result"].report["retries"] == RETRY_TIMES
    assert c["result"].transient_failure() is not None     # the flow may try again later
    fault("provider reads the request and closes the connection without answering",
          expected=f"retried, then 'connection closed before a complete answer after {attempts} attempts' "
                   "naming the URL; a later flow retry allowed",
          observed=f"{error}; retries = {c['result'].report['retries']}")


@pytest.mark.fault
@pytest.mark.parametrize("name, what", [("refused", "connection refused"), ("dns", "DNS lookup")])
def test_refused_and_unresolvable_hosts_fail_fast_in_one_line(crawls, fault, name, what):
    c = crawls[name]
    result = c["result"]
    error = one_line(c["outcome"])
    assert c["url"] in error and what in error
    assert len(result.report["failed_urls"]) == 1 and result.report["retries"] == 0
    # Nothing was received, so nothing was archived: no WARC file at all, let alone a 0-byte one.
    assert c["warcs"] == []
    # The bound of a no-network night: one process start and one failed lookup per provider, no
    # retry in the crawl; a DNS failure is not retried by the flow either.
    assert result.duration_s < 15   # a process start (~3 s, more on a busy machine) and no wait
    observed = f"failed in {result.duration_s:.1f} s, {result.report['retries']} retries: {error}; no WARC file"
    if name == "dns":
        assert result.transient_failure() is None
        expected = ("fails in seconds, not retried in the crawl or by the flow (robots.txt and the page: "
                    "one lookup, one line)")
        label = "provider host does not resolve (pricewatch-test.invalid)"
    else:
        expected = "fails in seconds, not retried within the crawl, one line naming the URL"
        label = "provider refuses the connection"
    fault(label, expected=expected, observed=observed)


@pytest.mark.fault
def test_a_night_without_network_ends_in_seconds(tmp_path, fault):
    """Measured, not extrapolated: the nightly flow crawls every HTTP spider in one shared process
    (pricewatch.collect.crawl_group), so a night whose hosts do not resolve costs one process start
    and the failed lookups, at once. Every single-page HTTP spider is pointed at an unresolvable host
    (the others read several documents: they fail the same way in the same process)."""
    from pricewatch.collect.crawl_group import CrawlGroup
    from spiders.base import PriceSpider

    loader = replays.spider_loader()
    providers = [p for p in replays.all_providers() if not replays.uses_browser(p)
                 and loader.load(p).pricing_url and loader.load(p).start is PriceSpider.start]
    assert len(providers) >= 30
    url = "http://pricewatch-test.invalid/pricing"
    started = time.monotonic()
    group = CrawlGroup(providers, tmp_path / "work", archive_dir=tmp_path / "archive",
                       spider_args={"pricing_url": url}, settings=SETTINGS, timeout_s=120).start()
    try:
        results = group.results()
    finally:
        group.stop()
    took = time.monotonic() - started
    for provider, result in results.items():
        error = one_line(judge.judge_crawl(result))
        assert url in error and "DNS lookup" in error, (provider, error)
        assert result.transient_failure() is None   # not retried by the flow either
    assert not list((tmp_path / "archive").rglob("*.warc.gz"))
    assert took < 60
    fault(f"no network: every host unresolvable ({len(providers)} HTTP spiders in the shared process)",
          expected="each provider failed in one line naming the URL and the DNS lookup, no retry, "
                   "no WARC file; the night's crawls end in well under a minute",
          observed=f"{len(results)} failed, each on its DNS lookup; all ended in {took:.1f} s")


@pytest.mark.fault
def test_a_body_shorter_than_its_content_length_fails_the_provider(crawls, fault):
    c = crawls["cut-length"]
    error = one_line(c["outcome"])
    assert project_settings.DOWNLOAD_FAIL_ON_DATALOSS is True
    assert c["url"] in error and "cut off" in error and "Content-Length" in error
    assert c["result"].items == []
    fault("provider closes the connection before its Content-Length (80% sent)",
          expected="Scrapy's dataloss fails the request (retried), provider failed 'body cut off', no offers",
          observed=f"{error}; {len(c['result'].items)} offers")


@pytest.mark.fault
def test_a_page_cut_off_without_content_length_is_refused_as_truncated(crawls, fault):
    # The fault is real: the cut page parses cleanly into fewer offers than the whole one.
    cut, whole_page = parse_pricing(PAGE[:KEEP].decode(), "cut"), parse_pricing(PAGE.decode(), "whole")
    assert not cut.errors and 0 < len(cut.offers) < len(whole_page.offers)
    c = crawls["cut-close"]
    error = one_line(c["outcome"])
    assert c["url"] in error and "HTML document cut off" in error
    assert f"after {RETRY_TIMES + 1} attempts" in error and f"at {KEEP} bytes" in error
    assert c["result"].items == []
    # The same server sending the whole page the same way (no Content-Length, closed) is fine:
    # the check refuses a page without its end, not a close-delimited body.
    whole = crawls["whole-close"]
    assert whole["outcome"].status == "ok" and len(whole["result"].items) == OFFERS
    fault("provider sends no Content-Length and closes mid-page (80% of <!DOCTYPE ...>, which alone parses into fewer offers with no layout error)",
          expected="refused as a cut-off HTML document (retried), provider failed, no offers; "
                   "the whole page sent the same way is ok",
          observed=f"{error}; {len(c['result'].items)} offers; whole page: {whole['outcome'].status} "
                   f"with {len(whole['result'].items)} offers; " + no_empty_warcs(c))


def test_the_end_of_page_check_passes_every_shipped_capture_and_judges_only_whole_pages():
    # In-process, no crawl: every recorded body of every shipped capture (whole pages,
    # excerpts without a page start, JSON, Markdown, scripts) passes; a whole page cut off fails.
    from scrapy.http import Response as ScrapyResponse

    from spiders.faults import cut_off_html
    from tests.conftest import CAPTURES_SRC, source_exchanges
    checked = 0
    for folder in sorted(p for p in CAPTURES_SRC.glob("*/*") if p.is_dir()):
        for ex in source_exchanges(folder.parent.name, folder.name):
            response = ScrapyResponse(ex["url"], status=ex.get("status", 200), headers=ex.get("headers") or {},
                                      body=ex["body"] or b"")
            assert cut_off_html(response) is None, (folder.name, ex["url"])
            checked += 1
    assert checked >= 20
    html = {"Content-Type": "text/html; charset=utf-8"}
    assert "cut off" in cut_off_html(ScrapyResponse("http://x/", headers=html, body=PAGE[:KEEP]))
    assert cut_off_html(ScrapyResponse("http://x/", headers=html, body=b"<div>an excerpt, no page start")) is None
    assert cut_off_html(ScrapyResponse("http://x/", headers={"Content-Type": "application/json"},
                                       body=b"<html>{")) is None


def test_retry_after_reads_seconds_and_http_dates():
    from datetime import datetime, timezone

    from spiders.faults import retry_after_seconds
    now = datetime(2026, 11, 5, 2, 0, 0, tzinfo=timezone.utc)
    assert retry_after_seconds(b"2") == 2
    assert retry_after_seconds("Thu, 05 Nov 2026 02:00:30 GMT", now=now) == 30
    assert retry_after_seconds("Thu, 05 Nov 2026 01:00:00 GMT", now=now) == 0   # in the past: now
    assert retry_after_seconds(b"soon") is None and retry_after_seconds(None) is None

"""Shared test fixtures. Everything is real: real Scrapy crawls in subprocesses replaying WARC
captures through the real downloader, a real DuckDB file. Only the internet is replaced, by
recorded responses."""

from __future__ import annotations

import atexit
import fcntl
import functools
import hashlib
import logging
import os
import pickle
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from pricewatch.collect import crawl_process, replays
from pricewatch.collect.crawl_group import CrawlGroup
from pricewatch.collect.replays import uses_browser
from pricewatch.evidence.archive import write_exchanges
from pricewatch.evidence.captures import load_exchanges
from pricewatch.server import prefect_processes
from spiders import settings as project_settings
from tests.crawl_server import CrawlServer

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "captures"
CAPTURES_SRC = CAPTURES / "src"

# Prefect's temporary server logs its own shutdown at interpreter exit, after pytest has closed
# the captured streams; without this every run ends in a harmless "--- Logging error ---" dump.
logging.raiseExceptions = False

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def shipped_date(provider: str) -> str:
    """The date folder of a provider's shipped capture (the real recording's capture date)."""
    dates = sorted(p.parent.name for p in CAPTURES.glob(f"*/{provider}.warc.gz"))
    if not dates:
        raise FileNotFoundError(f"no shipped capture of {provider} under {CAPTURES}")
    return dates[-1]


def shipped(provider: str) -> Path:
    """A provider's shipped WARC capture."""
    return CAPTURES / shipped_date(provider) / f"{provider}.warc.gz"


def shipped_exchanges(provider: str) -> list[dict]:
    """The recorded exchanges of a provider's shipped capture, as dicts a test may alter."""
    return source_exchanges(shipped_date(provider), provider)


def source_exchanges(date: str, provider: str) -> list[dict]:
    """The recorded exchanges of a shipped capture, as dicts a test may alter."""
    return load_exchanges(CAPTURES_SRC / date / provider)


@functools.lru_cache(maxsize=1)
def _migrated_template() -> Path:
    """A new warehouse the real migrate() made, once per process (removed at exit)."""
    from warehouse import db, migrate
    folder = Path(tempfile.mkdtemp(prefix="pricewatch-test-migrated-"))
    atexit.register(shutil.rmtree, folder, True)
    con = db.connect(folder / "migrated.duckdb")
    try:
        migrate.migrate(con)
    finally:
        con.close()   # checkpointed: the copy is the whole database, no WAL beside it
    return folder / "migrated.duckdb"


def migrated_warehouse(path) -> Path:
    """A new warehouse at `path` exactly as the real migrate() leaves a new file: a copy of
    _migrated_template() (migrating a new file costs ~0.6 s; tests about migrating migrate their
    own). Returns the path."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path}: migrated_warehouse makes a new warehouse")
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_migrated_template(), path)
    return path


@pytest.fixture
def make_warc(tmp_path):
    """Writes a WARC from exchanges: a shipped capture, or a variant of it (503, changed layout)."""
    counter = iter(range(1000))

    def _make(exchanges: list[dict], name: str | None = None) -> Path:
        out = tmp_path / "warc" / (name or f"capture-{next(counter)}.warc.gz")
        out.parent.mkdir(parents=True, exist_ok=True)
        return write_exchanges(out, exchanges)

    return _make


@pytest.fixture(scope="session")
def crawl(tmp_path_factory):
    """Runs a provider's real spider in a real Scrapy process against a replay archive.

    A replay is deterministic, so each (provider, archive) pair is crawled once per session,
    across pytest-xdist workers too: the result is kept in the session's shared temp folder,
    keyed by provider, path and the archive's bytes, and a worker waits (file lock) while
    another crawls the same pair. The first call for a provider's shipped capture crawls the
    shipped captures of every HTTP provider at once, in one shared Scrapy process as a run does
    (pricewatch/collect/crawl_group.py: ~2 s for all instead of ~1.7 s each); any other archive of
    an HTTP provider is a job for this worker's running Scrapy process (tests/crawl_server.py),
    and a browser provider's is crawled in a process of its own. Tests must not mutate the result."""
    cache: dict[tuple[str, str], crawl_process.CrawlResult] = {}
    servers: list[CrawlServer] = []

    def server() -> CrawlServer:
        """This worker's running Scrapy process for the HTTP crawls not cached (tests/crawl_server.py)."""
        if not servers:
            servers.append(CrawlServer(tmp_path_factory.mktemp("crawl-server")))
        return servers[0]
    # One folder per test session: shared by the xdist workers of this run (their temp folders
    # sit side by side), never by a later session (a cached crawl of older code).
    run_uid = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent / f"crawl-cache-{run_uid}" if run_uid else base / "crawl-cache"
    shared.mkdir(exist_ok=True)

    def entry_of(provider: str, replay: Path) -> Path:
        digest = hashlib.sha256(f"{provider}|{replay}|".encode() + _archive_bytes(Path(replay))).hexdigest()[:24]
        return shared / f"{provider}-{digest}.pickle"

    def store(entry: Path, result: crawl_process.CrawlResult) -> None:
        tmp = entry.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(result))
        tmp.replace(entry)

    def crawl_shipped() -> None:
        """Every HTTP provider's shipped capture not crawled yet, in one shared process."""
        with open(shared / "shipped.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            todo = {}
            for p in sorted(set(replays.all_providers()) & {w.name.split(".")[0] for w in CAPTURES.glob("*/*.warc.gz")}):
                if not uses_browser(p) and not entry_of(p, shipped(p)).exists():
                    todo[p] = shipped(p)
            if todo:
                group = CrawlGroup([], tmp_path_factory.mktemp("crawl-shipped"),
                                   crawls=[(p, p, w) for p, w in todo.items()]).start()
                for p, w in todo.items():
                    store(entry_of(p, w), group.result(p))

    def _crawl(provider: str, replay: Path) -> crawl_process.CrawlResult:
        key = (provider, str(replay))
        if key not in cache:
            entry = entry_of(provider, replay)
            if not entry.exists() and not uses_browser(provider) and _is_shipped(provider, Path(replay)):
                crawl_shipped()
            with open(entry.with_suffix(".lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if entry.exists():
                    cache[key] = pickle.loads(entry.read_bytes())
                elif uses_browser(provider):
                    workdir = tmp_path_factory.mktemp(f"crawl-{provider}")
                    cache[key] = crawl_process.run_crawl(provider, workdir, replay=replay)
                    store(entry, cache[key])
                else:
                    cache[key] = server().crawl(provider, Path(replay))
                    store(entry, cache[key])
        return cache[key]

    yield _crawl
    if servers:
        servers[0].close()


def _is_shipped(provider: str, replay: Path) -> bool:
    try:
        return replay.resolve() == shipped(provider).resolve()
    except FileNotFoundError:
        return False


def _archive_bytes(path: Path) -> bytes:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return b"".join(str(f).encode() + f.read_bytes() for f in files)


# A live crawl against a local stand-in for the provider: the stand-in is not the provider's
# domain, so the offsite filter is off; everything else is the live path (WARC archiving on).
STANDIN_SETTINGS = {
    "DOWNLOADER_MIDDLEWARES": {**project_settings.DOWNLOADER_MIDDLEWARES,
                               "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None},
    "AUTOTHROTTLE_ENABLED": False,
}


@pytest.fixture
def standin():
    """A local HTTP server standing in for a provider. Our own, not pytest-httpserver's
    session-wide `httpserver`: live-crawl tests stop it to prove the replay is offline."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    if server.is_running():
        server.stop()


# --- one real Prefect server for every test that runs a flow ------------------------------

@dataclass
class PrefectServer:
    api: str
    env: dict           # the environment a subprocess (CLI, worker, deploy) needs to use it
    home: Path
    started_in_s: float


def clean_env(env: dict) -> dict:
    # A developer's own alert channels and warehouse must not receive test runs.
    return {k: v for k, v in env.items() if k not in ("PRICEWATCH_ALERT_URLS", "PRICEWATCH_CONFIG", "PRICEWATCH_DB")}


# Under pytest-xdist the controller starts the run's one server (in the background, while the
# workers start) and hands it to the workers in the environment they inherit: "api-url|home".
SHARED_PREFECT = "PRICEWATCH_TEST_PREFECT_SERVER"


def _start_prefect_server(home: Path):
    port = prefect_processes.free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = clean_env(prefect_processes.prefect_env(url, home, ROOT))
    proc = prefect_processes.start_group(prefect_processes.prefect_cmd("server", "start", "--host", "127.0.0.1", "--port", str(port),
                                                   "--no-ui"), env, home / "server.log")
    return url, env, proc


def pytest_configure(config):
    """The xdist controller of a run with workers over a folder (the whole suite, `-m slow`)
    starts the one Prefect server they share, before they start (each worker starting its own
    cost ~15 s of a 2-core machine; a worker starting the shared one when its first test needs
    it measured 2:24 for the suite against 2:06-2:14); stopped at unconfigure."""
    if hasattr(config, "workerinput") or os.environ.get(SHARED_PREFECT) or config.option.collectonly:
        return
    if str(getattr(config.option, "numprocesses", None) or 0) in ("0", "None"):
        return
    if not any(Path(arg.split("::")[0]).is_dir() for arg in config.args):
        return   # named files only: each worker starts its own server if one of its tests needs it
    home = Path(tempfile.mkdtemp(prefix="pricewatch-test-prefect-"))
    url, _, proc = _start_prefect_server(home)
    config._pricewatch_prefect = (proc, home)
    os.environ[SHARED_PREFECT] = f"{url}|{home}"


def pytest_unconfigure(config):
    started = getattr(config, "_pricewatch_prefect", None)
    if started:
        proc, home = started
        prefect_processes.stop_group(proc)
        os.environ.pop(SHARED_PREFECT, None)
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory):
    """A real Prefect server (SQLite, loopback, its own PREFECT_HOME), started once per run:
    CLI runs, in-process flows and the deployment tests all use it instead of each starting
    Prefect's temporary server. Under xdist, the one the controller started (pytest_configure);
    else started here and stopped by process group at the end."""
    shared = os.environ.get(SHARED_PREFECT)
    if shared:
        url, home = shared.split("|", 1)
        started = prefect_processes.wait_healthy(url, timeout_s=120)
        yield PrefectServer(url, clean_env(prefect_processes.prefect_env(url, Path(home), ROOT)), Path(home), started)
        return
    home = tmp_path_factory.mktemp("prefect-home")
    url, env, proc = _start_prefect_server(home)
    try:
        started = prefect_processes.wait_healthy(url, proc, timeout_s=120)
        yield PrefectServer(url, env, home, started)
    finally:
        prefect_processes.stop_group(proc)


@pytest.fixture(scope="session", autouse=True)
def flows_without_heartbeats():
    """Flows run in a test process send no heartbeat, as `pricewatch run`'s do
    (pricewatch/cli/run.py `_no_flow_heartbeats`): each flow run's end otherwise waits up to 1 s
    for the heartbeat thread's sleep. A test that needs heartbeats (a worker's crawl runs watched
    by the crash automation) sets PREFECT_FLOWS_HEARTBEAT_FREQUENCY in that worker's environment."""
    from pricewatch.cli.run import _no_flow_heartbeats
    with _no_flow_heartbeats():
        yield


@pytest.fixture
def on_prefect(prefect_server, monkeypatch):
    """Flows called in this process run against the session's server."""
    from prefect.settings import PREFECT_API_URL, temporary_settings
    for k in ("PRICEWATCH_ALERT_URLS", "PRICEWATCH_CONFIG", "PRICEWATCH_DB"):
        monkeypatch.delenv(k, raising=False)
    with temporary_settings({PREFECT_API_URL: prefect_server.api}):
        yield prefect_server
        # Send this process's queued logs and events while the server is up: at interpreter
        # exit Prefect would otherwise retry them against a stopped server for minutes.
        from prefect.events.worker import EventsWorker
        from prefect.logging.handlers import APILogWorker
        APILogWorker.drain_all(timeout=15)
        EventsWorker.drain_all(timeout=15)


# --- the fault suite: `pytest -m fault` runs it; every fault test records what it saw --------

FAULT_ROWS: list[tuple[str, str, str, str]] = []


@pytest.fixture
def fault(request):
    """Record one row of the fault table: fault("provider answers 429 with Retry-After: 3",
    expected="retried after 3 s, then ok", observed=...). The table is printed at the end of
    the run (pytest -m fault); with PRICEWATCH_FAULT_TABLE=docs/faults.md it also replaces the
    table in that file (see pytest_terminal_summary)."""
    def record(name: str, expected: str, observed: str) -> None:
        # Carried on the test report, so the table is complete under pytest-xdist workers too.
        request.node.user_properties.append(("fault", (str(name), str(expected), str(observed))))
    return record


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:
            if key == "fault":
                FAULT_ROWS.append((*value, report.nodeid))


def pytest_terminal_summary(terminalreporter):
    if not FAULT_ROWS:
        return
    terminalreporter.section("fault table")
    terminalreporter.write_line("| fault | expected | observed |")
    terminalreporter.write_line("|---|---|---|")
    lines = ["| fault | expected | observed |", "|---|---|---|"]
    for name, expected, observed, _ in FAULT_ROWS:
        cells = [c.replace("|", "\\|").replace("\n", " ") for c in (name, expected, observed)]
        lines.append("| " + " | ".join(cells) + " |")
    for line in lines[2:]:
        terminalreporter.write_line(line)
    target = os.environ.get("PRICEWATCH_FAULT_TABLE")
    if target:
        _replace_fault_table(Path(target), lines)
        terminalreporter.write_line(f"fault table written to {target}")


def _replace_fault_table(path: Path, lines: list[str]) -> None:
    """The table of a docs page (its first line `| fault | expected | observed |` through the
    last table row after it) replaced by ``lines``, temp paths and ports shortened; the rest of
    the page kept as it is."""
    lines = [re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>",
                    re.sub(r"/tmp/pytest-of-[^/]+/pytest-\d+/(popen-gw\d+/)?", "<tmp>/", line)) for line in lines]
    text = path.read_text(encoding="utf-8").split("\n")
    start = text.index(lines[0])
    end = start
    while end < len(text) and text[end].startswith("|"):
        end += 1
    path.write_text("\n".join(text[:start] + lines + text[end:]), encoding="utf-8")

"""One provider's crawl in a fresh process (Scrapy's reactor cannot restart): the items it
yielded and its crawl report. The HTTP spiders of a run share one process instead
(pricewatch/collect/crawl_group.py); a browser crawl, and a retry, runs here on its own. Both are
bounded the same way: a wall-clock limit, their own process group, death with the run."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from pricewatch.collect.replays import SETTINGS_MODULE
from spiders.faults import NOT_TRANSIENT

#: Wall-clock limit of one provider's crawl process, in seconds: past it the process group
#: (Scrapy and any browser it started) is killed and the provider fails for the night. Far
#: above a real crawl (a browser page takes ~20 s); requests have their own 30 s timeout.
CRAWL_TIMEOUT_S = int(os.environ.get("PRICEWATCH_CRAWL_TIMEOUT_S", "300"))
#: Crawl processes of their own (a browser crawl ~650 MB with Chromium, a retry) running at
#: once; more wait. The shared HTTP process is not counted.
SEPARATE_CRAWLS = int(os.environ.get("PRICEWATCH_SEPARATE_CRAWLS", "3"))


@dataclass
class CrawlResult:
    provider: str
    returncode: int
    items: list[dict]        # offers
    report: dict
    duration_s: float
    log_tail: str = ""
    attempts: int = 1
    facts: list[dict] = field(default_factory=list)

    killed_after_s: float | None = None   # set when the wall-clock limit killed the crawl
    stopped: str | None = None            # set when the run was stopped (SIGTERM) mid-crawl

    def transient_failure(self) -> str | None:
        """Why a retry of the whole crawl could help (a crash, or no items because requests
        failed in a way that may pass), else None. Not retried: a crawl killed at its
        wall-clock limit (a retry costs the limit again), and one whose failed requests were
        all DNS failures, no route, timeouts or a Retry-After beyond the cap (the night would
        wait again for the same answer; the provider's previous offers stay the latest)."""
        if self.killed_after_s is not None or self.stopped is not None:
            return None
        if self.returncode != 0:
            return f"{self.provider}: crawl process exited with code {self.returncode}: {self.log_tail}"
        if not self.items and (self.report.get("failed_urls") or self.report.get("download_errors")):
            kinds = set(self.report.get("network_faults") or {})
            if kinds and kinds <= NOT_TRANSIENT:
                return None
            return f"{self.provider}: no offers, requests failed: {'; '.join(self.report.get('failed_urls', []))}"
        return None


def run_crawl(provider: str, workdir: Path, replay: Path | None = None,
              archive_dir: Path | None = None, timeout_s: float | None = None,
              spider_args: dict | None = None, settings: dict | None = None) -> CrawlResult:
    """Runs `scrapy crawl <provider>` in a fresh process (Scrapy's reactor cannot restart),
    in its own process group, for at most ``timeout_s`` seconds (default CRAWL_TIMEOUT_S):
    a crawl still running then is killed with its children and returned as failed ("killed
    after N s"), never raised."""
    timeout_s = CRAWL_TIMEOUT_S if timeout_s is None else timeout_s
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    items_path = workdir / f"{provider}.items.jsonl"
    report_path = workdir / f"{provider}.report.json"
    log_path = workdir / f"{provider}.log"
    for p in (items_path, report_path):
        p.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "scrapy", "crawl", provider, "-O", f"{items_path}:jsonlines",
           "-s", f"PRICEWATCH_REPORT_FILE={report_path}", "-s", f"LOG_FILE={log_path}"]
    if replay:
        cmd += ["-s", f"PRICEWATCH_REPLAY={Path(replay).resolve()}"]
    if archive_dir:
        cmd += ["-s", f"PRICEWATCH_ARCHIVE_DIR={Path(archive_dir).resolve()}"]
    for k, v in (spider_args or {}).items():
        cmd += ["-a", f"{k}={v}"]
    for k, v in (settings or {}).items():
        cmd += ["-s", f"{k}={json.dumps(v) if isinstance(v, (dict, list)) else v}"]
    with _separate:
        return _run_one(provider, cmd, items_path, report_path, log_path, timeout_s)


def _run_one(provider: str, cmd: list[str], items_path: Path, report_path: Path, log_path: Path,
             timeout_s: float) -> CrawlResult:
    started = time.monotonic()
    proc = start_crawl_process(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc is None:
        return CrawlResult(provider, -signal.SIGTERM, [], {}, 0.0, f"not started: {_stopping}", stopped=_stopping)
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        # What a killed crawl left is not data: its items may be a part of the page's offers.
        return CrawlResult(provider, proc.returncode if proc.returncode is not None else -signal.SIGKILL, [],
                           _read_report(report_path), round(time.monotonic() - started, 3),
                           f"killed after {timeout_s:g} s (the crawl's wall-clock limit)",
                           killed_after_s=timeout_s)
    finally:
        crawl_process_ended(proc)
    duration = time.monotonic() - started
    if proc.pid in _stopped_pids:
        # Stopped with the run: whatever it wrote before is a part of the page, not data.
        return CrawlResult(provider, proc.returncode or -signal.SIGTERM, [], _read_report(report_path),
                           round(duration, 3), f"stopped: {_stopping}", stopped=_stopping)
    tail = ""
    if proc.returncode != 0:
        log = log_path.read_text(errors="replace") if log_path.exists() else ""
        tail = (stderr + log)[-1500:]
    return read_result(provider, proc.returncode, items_path, report_path, duration, tail)


def read_result(provider: str, returncode: int, items_path: Path, report_path: Path, duration_s: float,
                log_tail: str = "") -> CrawlResult:
    """What a finished crawl left: its offers and facts (the items file), its crawl report."""
    items, facts = [], []
    if items_path.exists():
        for line in items_path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                (facts if "fact" in record else items).append(record)
    return CrawlResult(provider, returncode, items, _read_report(report_path), round(duration_s, 3),
                       log_tail, facts=facts)


def crawl_env() -> dict[str, str]:
    return {**os.environ, "SCRAPY_SETTINGS_MODULE": SETTINGS_MODULE}


def start_crawl_process(cmd: list[str], **popen) -> subprocess.Popen | None:
    """Starts a crawl process the run can stop (stop_crawls), or None when the run is stopping.
    Its own process group (the timeout and a stopped run kill Scrapy with its browser), and it
    dies with the thread that started it: a killed run leaves no crawl behind."""
    with _live_lock:
        if _stopping:
            return None
        proc = subprocess.Popen(cmd, env=crawl_env(), text=True, start_new_session=True,
                                preexec_fn=dies_with_parent(), **popen)
        _live.add(proc)
    return proc


def crawl_process_ended(proc: subprocess.Popen) -> None:
    with _live_lock:
        _live.discard(proc)


def was_stopped(proc: subprocess.Popen) -> str | None:
    """Why the run stopped this crawl process (stop_crawls), else None."""
    return _stopping if proc.pid in _stopped_pids else None


def _read_report(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


# --- a crawl never outlives the run that started it -----------------------------------------

#: Signals a run (`pricewatch run`) handles itself; its threads block them (see
#: pricewatch/server/run_guard.py RunGuard), so every child unblocks them before it runs.
RUN_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
_PR_SET_PDEATHSIG = 1
try:  # resolved here, not in the forked child
    _prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
except (OSError, AttributeError):
    _prctl = None

_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()
_separate = threading.BoundedSemaphore(max(1, SEPARATE_CRAWLS))
_stopped_pids: set[int] = set()
_stopping: str | None = None


def dies_with_parent(sig: int = signal.SIGTERM):
    """A ``preexec_fn`` for a child that must not outlive the thread starting it (Linux
    PR_SET_PDEATHSIG: the kernel sends ``sig`` when that thread ends, even by SIGKILL). It also
    unblocks RUN_SIGNALS, which a run's threads block and children would otherwise inherit."""
    parent = os.getpid()

    def _in_child() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, RUN_SIGNALS)
        if _prctl is not None:
            _prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
            if os.getppid() != parent:   # the parent died before prctl: nobody will signal us
                os.kill(os.getpid(), sig)
    return _in_child


def stop_crawls(reason: str, grace_s: float = 3.0, force_after_s: float = 1.0) -> int:
    """Stops every crawl this process is running and refuses new ones (the run is stopping).
    TERM to each crawl's process group: Scrapy shuts down gracefully (closes its WARC file and
    browser) but waits for requests in flight, so after ``force_after_s`` a second TERM makes it
    stop its reactor at once (between two records: every WARC record is whole; the file is
    flushed after each response); KILL to whatever is left after ``grace_s``. Their results
    are failed and hold no offers. Returns how many crawls were running."""
    global _stopping
    with _live_lock:
        _stopping = _stopping or reason
        procs = list(_live)
        _stopped_pids.update(p.pid for p in procs)
    started = time.monotonic()
    for proc in procs:
        _signal_group(proc, signal.SIGTERM)
    forced = False
    while any(p.poll() is None for p in procs) and time.monotonic() - started < grace_s:
        if not forced and time.monotonic() - started >= force_after_s:
            forced = True
            for proc in procs:
                if proc.poll() is None:
                    _signal_group(proc, signal.SIGTERM)
        time.sleep(0.05)
    for proc in procs:
        _signal_group(proc, signal.SIGKILL)   # also a browser the leader left in its group
    return len(procs)


def resume_crawls() -> None:
    """Lets crawls start again after stop_crawls (a process that goes on after a stopped run)."""
    global _stopping
    with _live_lock:
        _stopping = None
        _stopped_pids.clear()


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the crawl's whole process group (Scrapy, its browser driver), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # a pipe held open by a process outside the group
        proc.kill()
        proc.wait(timeout=5)



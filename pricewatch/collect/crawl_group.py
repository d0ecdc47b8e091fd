"""The HTTP spiders of a run in one Scrapy process: one CrawlerProcess, one crawler per
provider, each with its own settings (replay archive, items file, crawl report), so each
provider's outcome is still its own. A Scrapy process costs ~1.7 s to start and import the
spiders while a replayed spider runs for 20-60 ms: 13 providers took 1.95 s together instead
of 23.5 s one process each.

Parent side: ``CrawlGroup`` starts ``python -m pricewatch.collect.crawl_group JOBS.json`` (its own
process group, dies with the run, stopped by pricewatch.collect.crawl_process.stop_crawls like any crawl, killed
at the wall-clock limit) and reads one line per provider as its crawl ends; ``result(p)`` waits
for provider ``p`` only. A provider the process never reported (the process crashed, was
killed or stopped) gets a failed CrawlResult with a line saying so: a crash is a transient
failure, so the flow's per-provider retry (a crawl of its own, pricewatch.collect.crawl_process.run_crawl)
applies as before.

Crawls started ahead of their flow run (several dated folders at once): pricewatch/collect/crawl_ahead.py.

Child side: ``main``. A crawler that raises while starting is that provider's failure (exit
code 1 and the traceback), not the others'.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from pathlib import Path

from pricewatch.collect import crawl_process
from pricewatch.collect.crawl_process import CRAWL_TIMEOUT_S, CrawlResult

#: The prefix of the line the child prints when one provider's crawl ended.
DONE = "PRICEWATCH-CRAWL-DONE "


class CrawlGroup:
    """One shared crawl process for ``providers`` (see the module doc), each replaying
    ``replay``; or for ``crawls``: (key, provider, replay) triples, e.g. the providers of several
    dated folders at once, each crawl's result then asked for by its key."""

    def __init__(self, providers: list[str], workdir: Path, replay: Path | None = None,
                 archive_dir: Path | None = None, timeout_s: float | None = None,
                 crawls: list[tuple[str, str, Path | None]] | None = None, spider_args: dict | None = None,
                 settings: dict | None = None):
        crawls = list(crawls or []) + [(p, p, replay) for p in dict.fromkeys(providers)]
        self.providers = [key for key, _, _ in crawls]   # the keys; a provider's name by default
        self.workdir = Path(workdir).resolve()
        self.timeout_s = CRAWL_TIMEOUT_S if timeout_s is None else timeout_s
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._results: dict[str, CrawlResult] = {}
        self._events = {key: threading.Event() for key in self.providers}
        self._names = {key: provider for key, provider, _ in crawls}
        self._tail: deque[str] = deque(maxlen=40)
        self._killed: str | None = None
        self._ended = threading.Event()
        self.proc: subprocess.Popen | None = None
        self.started = time.monotonic()
        self.jobs = []
        for key, provider, source in crawls:
            job_settings = dict(settings or {})
            if source:
                job_settings["PRICEWATCH_REPLAY"] = str(Path(source).resolve())
            if archive_dir:
                job_settings["PRICEWATCH_ARCHIVE_DIR"] = str(Path(archive_dir).resolve())
            self.jobs.append({"key": key, "provider": provider, "items": str(self._path(key, "items.jsonl")),
                              "report": str(self._path(key, "report.json")),
                              "settings": job_settings, "spider_args": dict(spider_args or {})})

    def _path(self, key: str, suffix: str) -> Path:
        return self.workdir / f"{key.replace('/', '_')}.{suffix}"

    @property
    def log_path(self) -> Path:
        return self.workdir / "crawl-group.log"

    def start(self) -> "CrawlGroup":
        for job in self.jobs:
            for key in ("items", "report"):
                Path(job[key]).unlink(missing_ok=True)
        spec = self.workdir / "crawl-group.json"
        spec.write_text(json.dumps({"log_file": str(self.log_path), "jobs": self.jobs}))
        self.started = time.monotonic()
        if not self.providers:
            return self
        with open(self.workdir / "crawl-group.stderr", "w") as err:
            self.proc = crawl_process.start_crawl_process([sys.executable, "-m", "pricewatch.collect.crawl_group", str(spec)],
                                                  stdout=subprocess.PIPE, stderr=err, bufsize=1)
        if self.proc is None:   # the run is stopping
            self._finish(None)
            self._ended.set()
            return self
        # The run's signals are taken by its watcher thread (pricewatch.server.run_guard.RunGuard), never by
        # this reader (nor its timer): it is started with them blocked, whenever it starts.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, crawl_process.RUN_SIGNALS)
        try:
            threading.Thread(target=self._read, name="crawl-group-reader", daemon=True).start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return self

    def result(self, provider: str, timeout_s: float | None = None) -> CrawlResult:
        """Provider's crawl result, once its crawl ended (or the shared process did)."""
        if not self._events[provider].wait(timeout_s if timeout_s is not None else self.timeout_s + 60):
            raise TimeoutError(f"{provider}: no result from the shared crawl process")
        return self._results[provider]

    def results(self) -> dict[str, CrawlResult]:
        return {p: self.result(p) for p in self.providers}

    def wait(self, timeout_s: float | None = None) -> int | None:
        """Waits until the process ended; its exit code (None: none was started)."""
        if self.proc is None:
            return None
        self._ended.wait(timeout_s)
        return self.proc.returncode

    def stop(self) -> None:
        """Kills the process if it is still running (a flow that ended early); its unreported
        providers are failed as killed."""
        if self.proc is not None and self.proc.poll() is None:
            self._kill("killed: the flow ended before its crawl")

    # --- parent internals ------------------------------------------------------------------

    def _read(self) -> None:
        proc = self.proc
        timer = threading.Timer(self.timeout_s, self._kill, args=(None,))
        timer.daemon = True
        timer.start()
        try:
            for line in proc.stdout:
                if line.startswith(DONE):
                    try:
                        done = json.loads(line[len(DONE):])
                    except ValueError:
                        continue
                    self._done(done)
                elif line.strip():
                    self._tail.append(line.rstrip())
            proc.wait()
        finally:
            timer.cancel()
            crawl_process.crawl_process_ended(proc)
            self._finish(proc)
            self._ended.set()

    def _kill(self, why: str | None) -> None:
        self._killed = why or f"killed after {self.timeout_s:g} s (the wall-clock limit of {self._shared()})"
        if self.proc is not None:
            crawl_process._signal_group(self.proc, signal.SIGKILL)

    def _done(self, done: dict) -> None:
        p = done.get("key")
        if p not in self._events or self._events[p].is_set():
            return
        rc = int(done.get("returncode", 1))
        tail = ""
        if rc != 0:
            tail = plain_tail(done.get("error") or "") or self._log_tail()
        self._results[p] = crawl_process.read_result(self._names[p], rc, self._path(p, "items.jsonl"),
                                             self._path(p, "report.json"), float(done.get("duration_s") or 0.0), tail)
        self._events[p].set()

    def _finish(self, proc: subprocess.Popen | None) -> None:
        """Every provider the process did not report: failed, with why."""
        took = round(time.monotonic() - self.started, 3)
        stopped = crawl_process.was_stopped(proc) if proc is not None else crawl_process._stopping
        rc = proc.returncode if proc is not None else -signal.SIGTERM
        shared = self._shared()
        for key in self.providers:
            if self._events[key].is_set():
                continue
            p = self._names[key]
            report = crawl_process._read_report(self._path(key, "report.json"))
            if stopped or proc is None:
                result = CrawlResult(p, rc or -signal.SIGTERM, [], report, took,
                                     f"stopped: {stopped}" if proc is not None else f"not started: {stopped}",
                                     stopped=stopped)
            elif self._killed:
                result = CrawlResult(p, rc if rc is not None else -signal.SIGKILL, [], report, took,
                                     self._killed, killed_after_s=self.timeout_s)
            else:
                # Exit 0 without reporting this provider is a fault of ours: still a failure.
                code = rc if rc else 1
                why = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exited with code {rc}"
                result = CrawlResult(p, code, [], report, took,
                                     f"{shared} {why} before {p}'s crawl ended: {self._log_tail()}")
            self._results[key] = result
            self._events[key].set()

    def _shared(self) -> str:
        others = len(self.providers) - 1
        return f"the crawl process it shared with {others} other provider(s)" if others else "its crawl process"

    def _log_tail(self) -> str:
        stderr = self.workdir / "crawl-group.stderr"
        parts = []
        for path in (stderr, self.log_path):
            try:
                parts.append(path.read_text(errors="replace")[-800:])
            except OSError:
                pass
        parts.append("\n".join(self._tail))
        return plain_tail(" ".join(x for x in parts if x.strip()))


def plain_tail(text: str, n: int = 1500) -> str:
    return text.strip()[-n:]


# --- child side --------------------------------------------------------------------------

def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    process, base = crawler_process(spec["log_file"])
    failures = []
    for job in spec["jobs"]:
        start_job(process, base, job, failures)
    process.start()
    return 1 if failures else 0


def crawler_process(log_file: str):
    """The child's one CrawlerProcess (the project's settings, its log to ``log_file``) and the
    settings each job's own start from."""
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    base = get_project_settings()
    base.set("LOG_FILE", log_file, priority="cmdline")
    return CrawlerProcess(base), base


def start_job(process, base, job: dict, failures: list) -> None:
    """Starts one job's crawl in ``process``; prints its DONE line when it ends. A crawler that
    raises while starting is reported at once (appended to ``failures``), never raised."""
    from scrapy.crawler import Crawler

    key, provider, started = job["key"], job["provider"], time.monotonic()

    def report(error: str | None = None) -> None:
        line = {"key": key, "returncode": 1 if error else 0,
                "duration_s": round(time.monotonic() - started, 3), "error": error}
        sys.stdout.write(DONE + json.dumps(line) + "\n")
        sys.stdout.flush()

    try:
        settings = base.copy()
        settings.setdict({"FEEDS": {job["items"]: {"format": "jsonlines", "overwrite": True}},
                          "PRICEWATCH_REPORT_FILE": job["report"], **job["settings"]}, priority="cmdline")
        # The first crawler installs the reactor (as CrawlerProcess's own would).
        crawler = Crawler(process.spider_loader.load(provider), settings,
                          init_reactor=not process._initialized_reactor)
        process._initialized_reactor = True
        d = process.crawl(crawler, **job["spider_args"])
    except Exception:  # noqa: BLE001 - this provider's failure, the others go on
        failures.append(key)
        report(traceback.format_exc())
        return

    def failed(failure):
        failures.append(key)
        report(failure.getTraceback())

    d.addCallbacks(lambda _: report(), failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""One Scrapy process per test worker, kept running: the crawls the session's `crawl` fixture
(tests/conftest.py) has not cached are jobs sent to it, crawled in its one reactor as they come.
A Scrapy process costs ~1.7 s to start and import the spiders; a replayed crawl in a running one
takes 20-60 ms. The jobs are the shared crawl process's own (pricewatch.collect.crawl_group:
start_job, the same settings, items file and crawl report), so a result is what that process
gives; the process-level faults (crashes, kills, limits) are tested on run_crawl and CrawlGroup
themselves, never through this server.

A job the server did not finish (it died, or ran past the crawl limit) is crawled again in a
process of its own (crawl_process.run_crawl), and the next job starts a new server.

Child side: ``python -m tests.crawl_server LOG_FILE`` reads one JSON job per line on stdin and
prints crawl_group's DONE line per job; it ends when stdin closes."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from pathlib import Path

from pricewatch.collect import crawl_process
from pricewatch.collect.crawl_group import DONE

ROOT = Path(__file__).resolve().parent.parent


class CrawlServer:
    def __init__(self, workdir: Path):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._keys = itertools.count()
        self._proc: subprocess.Popen | None = None
        self._done: dict[str, dict] = {}
        self._events: dict[str, threading.Event] = {}

    def crawl(self, provider: str, replay: Path) -> crawl_process.CrawlResult:
        key = f"{provider}-{next(self._keys)}"
        items, report = self.workdir / f"{key}.items.jsonl", self.workdir / f"{key}.report.json"
        job = {"key": key, "provider": provider, "items": str(items), "report": str(report),
               "settings": {"PRICEWATCH_REPLAY": str(Path(replay).resolve())}, "spider_args": {}}
        event = threading.Event()
        with self._lock:
            self._events[key] = event
            proc = self._running()
            try:
                proc.stdin.write(json.dumps(job) + "\n")
                proc.stdin.flush()
            except OSError:
                proc = None
        if proc is not None and event.wait(crawl_process.CRAWL_TIMEOUT_S) and key in self._done:
            done = self._done.pop(key)
            return crawl_process.read_result(provider, int(done.get("returncode", 1)), items, report,
                                             float(done.get("duration_s") or 0.0), done.get("error") or "")
        self.close()
        return crawl_process.run_crawl(provider, self.workdir / key, replay=replay)

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.stdin.close()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def _running(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            cmd = [sys.executable, "-m", "tests.crawl_server", str(self.workdir / "crawl-server.log")]
            self._proc = subprocess.Popen(cmd, cwd=ROOT, env=crawl_process.crawl_env(), text=True, bufsize=1,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=open(self.workdir / "crawl-server.stderr", "a"))
            threading.Thread(target=self._read, args=(self._proc,), daemon=True).start()
        return self._proc

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            if line.startswith(DONE):
                done = json.loads(line[len(DONE):])
                self._done[done["key"]] = done
                self._events[done["key"]].set()
        proc.wait()
        for event in list(self._events.values()):
            event.set()   # whatever it did not finish is crawled again on its own


def main(log_file: str) -> int:
    from pricewatch.collect.crawl_group import crawler_process, start_job

    process, base = crawler_process(log_file)
    failures: list[str] = []
    first = sys.stdin.readline()
    if not first:
        return 0
    start_job(process, base, json.loads(first), failures)   # installs the reactor

    from twisted.internet import reactor

    def read() -> None:
        for line in sys.stdin:
            if line.strip():
                reactor.callFromThread(start_job, process, base, json.loads(line), failures)
        reactor.callFromThread(reactor.stop)

    threading.Thread(target=read, daemon=True).start()
    process.start(stop_after_crawl=False, install_signal_handlers=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

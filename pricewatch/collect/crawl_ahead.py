"""The crawls of one flow run, some started ahead of it: ``prefetch`` crawls the providers of
several replays at once (the dated folders of one `pricewatch run --replay captures`, or of a
backfill): every HTTP spider in one shared process (pricewatch/collect/crawl_group.py), each browser
spider in a process of its own; each flow run then takes its own providers' results through
``RunCrawls`` instead of starting processes of its own."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from pricewatch.collect import crawl_process
from pricewatch.collect.crawl_group import CrawlGroup
from pricewatch.collect.crawl_process import CrawlResult

#: Crawls started ahead of their flow (``prefetch``): (provider, resolved replay) -> (group, key).
_AHEAD: dict[tuple[str, str], tuple[CrawlGroup, str]] = {}
_AHEAD_LOCK = threading.Lock()


class RunCrawls:
    """The crawls of one flow run: those crawled ahead for it (``prefetch``), the HTTP rest in
    a shared process of its own, started here. A provider it has neither of (a browser crawl
    not crawled ahead) is crawled by the flow on its own (pricewatch.collect.crawl_process.run_crawl)."""

    def __init__(self, http: list[str], workdir: Path, replay: Path | None, archive_dir: Path | None,
                 others: list[str] = ()):
        self.ahead: dict[str, tuple[CrawlGroup, str]] = {}
        if replay is not None:
            with _AHEAD_LOCK:
                for p in list(http) + list(others):
                    found = _AHEAD.pop((p, str(Path(replay).resolve())), None)
                    if found:
                        self.ahead[p] = found
        self.own = CrawlGroup([p for p in http if p not in self.ahead], workdir, replay, archive_dir).start()

    def has(self, provider: str) -> bool:
        return provider in self.ahead or provider in self.own.providers

    def result(self, provider: str) -> CrawlResult:
        if provider in self.ahead:
            group, key = self.ahead[provider]
            return group.result(key)
        return self.own.result(provider)

    def stop(self) -> None:
        self.own.stop()


class prefetch:
    """``with prefetch([(replay, [provider, ...]), ...]):`` crawls the providers of several
    replays (the dated folders of one `pricewatch run --replay captures`) now: every HTTP
    spider in one shared process, each browser spider (``browser(p)`` true) in a process of its
    own, at most pricewatch.collect.crawl_process.SEPARATE_CRAWLS of those (the rest are left to their flow).
    Each flow run then takes its providers' results (RunCrawls) instead of starting processes
    of its own. What no flow took is dropped at the end (the processes killed if running)."""

    def __init__(self, replays: list[tuple[Path, list[str]]], browser=lambda provider: False,
                 timeout_s: float | None = None):
        import tempfile
        self._dir = tempfile.TemporaryDirectory(prefix="pricewatch-crawl-ahead-")
        root = Path(self._dir.name)
        # A crawl some caller already started ahead (`pricewatch run` before the backfill flow it
        # calls) is not started again: its flow takes that one.
        with _AHEAD_LOCK:
            crawls = [(f"{n}-{p}", p, Path(replay)) for n, (replay, providers) in enumerate(replays)
                      for p in providers if (p, str(Path(replay).resolve())) not in _AHEAD]
        http = [c for c in crawls if not browser(c[1])]
        rendered = [c for c in crawls if browser(c[1])][:max(0, crawl_process.SEPARATE_CRAWLS)]
        self.groups = [CrawlGroup([], root / "http", crawls=http, timeout_s=timeout_s)]
        self.groups += [CrawlGroup([], root / key, crawls=[(key, p, r)], timeout_s=timeout_s)
                        for key, p, r in rendered]
        self._keys = {(p, str(r.resolve())): (group, key) for group in self.groups
                      for key, p, r in ((j["key"], j["provider"], Path(j["settings"]["PRICEWATCH_REPLAY"]))
                                        for j in group.jobs)}

    def __enter__(self) -> "prefetch":
        with _AHEAD_LOCK:
            _AHEAD.update(self._keys)
        for group in self.groups:
            group.start()
        return self

    def __exit__(self, *exc) -> None:
        with _AHEAD_LOCK:
            for k, entry in self._keys.items():
                if _AHEAD.get(k) is entry:
                    del _AHEAD[k]
        for group in self.groups:
            group.stop()
            if group.proc is not None:
                try:
                    group.proc.wait(10)
                except subprocess.TimeoutExpired:
                    pass
        self._dir.cleanup()

"""Which providers and runs a replay archive holds: spiders found by their domains, dated
folders as a history, each provider's capture time. Used by the flow before any crawl."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from scrapy.settings import Settings
from scrapy.spiderloader import SpiderLoader

from pricewatch.archive import ReplayIndex

SETTINGS_MODULE = "spiders.settings"


def spider_loader() -> SpiderLoader:
    settings = Settings()
    settings.setmodule(SETTINGS_MODULE, priority="project")
    return SpiderLoader.from_settings(settings)


def all_providers() -> list[str]:
    return sorted(spider_loader().list())


def providers_in_archive(replay: Path) -> list[str]:
    """Providers with at least one response in the archive (matched on the spider's domains)."""
    hosts = ReplayIndex.load(replay).hosts()
    loader = spider_loader()
    found = []
    for name in loader.list():
        domains = getattr(loader.load(name), "allowed_domains", None) or []
        if any(h == d or h.endswith("." + d) for h in hosts for d in domains):
            found.append(name)
    return sorted(found)


def replay_batches(path: Path) -> list[Path]:
    """What one `--replay PATH` means: a WARC file or a folder of WARCs is one run; a folder of
    dated folders (``captures/2026-10-29/``, ...) is one run per date, oldest first, so a
    history is rebuilt in order."""
    path = Path(path)
    if path.is_dir():
        dated = sorted(p for p in path.iterdir()
                       if p.is_dir() and re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{4,6}Z?)?", p.name))
        if dated:
            return dated
    return [path]


def archive_capture_times(replay: Path) -> dict[str, datetime]:
    """Each provider's earliest record time in a replayed archive: the snapshot time of a
    provider whose replay stored no offers (a failed crawl is dated by its evidence too)."""
    index = ReplayIndex.load(replay)
    loader = spider_loader()
    out: dict[str, datetime] = {}
    for name in loader.list():
        domains = getattr(loader.load(name), "allowed_domains", None) or []
        for records in index.responses.values():
            for r in records:
                h = host_of(r.url)
                if any(h == d or h.endswith("." + d) for d in domains):
                    t = r.ref.captured_at
                    out[name] = min(out.get(name, t), t)
    return out


def host_of(url: str) -> str:
    return urlsplit(url).hostname or ""

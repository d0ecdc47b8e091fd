"""Which providers and runs a replay archive holds: spiders found by their domains, dated
folders as a history, each provider's capture time. Used by the flow before any crawl.

A bad WARC file (not WARC, empty, cut off, damaged: see pricewatch/evidence/archive.py) is never
replayed. ``scan_archive`` says what that costs: the providers whose evidence was only in bad
files are ``failed`` with one line naming the file and what is wrong (never silently absent),
the others still replay from the good files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from scrapy.settings import Settings
from scrapy.spiderloader import SpiderLoader

from pricewatch.evidence.archive import ArchiveError, load_archive, provider_from_name

SETTINGS_MODULE = "spiders.settings"


@lru_cache(maxsize=1)
def spider_loader() -> SpiderLoader:
    """The project's spiders, found once per process: Scrapy's loader walks and inspects every
    spider module each time it is made (~25 ms of CPU), and a replay asks ~100 times."""
    settings = Settings()
    settings.setmodule(SETTINGS_MODULE, priority="project")
    return SpiderLoader.from_settings(settings)


def all_providers() -> list[str]:
    return sorted(spider_loader().list())


@lru_cache(maxsize=1)
def provider_domains() -> dict[str, tuple[str, ...]]:
    """Each spider's ``allowed_domains``."""
    loader = spider_loader()
    return {name: tuple(getattr(loader.load(name), "allowed_domains", None) or ())
            for name in sorted(loader.list())}


@lru_cache(maxsize=None)
def uses_browser(provider: str) -> bool:
    """Whether the spider renders pages in a browser (scrapy-playwright download handler): such
    a crawl runs in a process of its own, apart from the run's shared HTTP crawl process."""
    handlers = (getattr(spider_loader().load(provider), "custom_settings", None) or {}).get("DOWNLOAD_HANDLERS") or {}
    return any("playwright" in str(h) for h in handlers.values())


def providers_of_host(host: str) -> list[str]:
    return [name for name, domains in provider_domains().items()
            if any(host == d or host.endswith("." + d) for d in domains)]


@dataclass
class ArchiveScan:
    """What a replay archive (a WARC file or folder) holds, bad files included."""

    path: Path
    providers: list[str] = field(default_factory=list)        # with responses in good files
    failed: dict[str, str] = field(default_factory=dict)      # provider -> one line: its files are all bad
    warnings: dict[str, list[str]] = field(default_factory=dict)  # provider -> bad files skipped, good ones kept
    problems: list[str] = field(default_factory=list)         # one line per bad file
    unknown_hosts: list[str] = field(default_factory=list)    # good responses no spider claims
    captured_at: dict[str, datetime] = field(default_factory=dict)  # earliest good record per provider
    files: int = 0
    errors: list[ArchiveError] = field(default_factory=list, repr=False)  # the bad files' errors

    def no_provider_message(self) -> str:
        """One line for an archive with nothing any spider can replay."""
        line = f"no known provider has responses in {self.path}"
        parts = []
        if self.unknown_hosts:
            shown = self.unknown_hosts[:6]
            more = len(self.unknown_hosts) - len(shown)
            parts.append("hosts: " + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
        if self.problems:
            parts.append(f"{len(self.problems)} unreadable WARC file(s): {self.problems[0]}"
                         + (f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""))
        if not self.files:
            parts.append("it holds no WARC file (*.warc, *.warc.gz)")
        elif not parts:
            parts.append("it holds no response record")
        return line + "; " + "; ".join(parts)


def _clean_host(host: str) -> str:
    return "".join(c for c in host if c.isprintable() and not c.isspace())[:100] or "(no host)"


def scan_archive(replay: Path) -> ArchiveScan:
    """Reads the archive once and never raises for a bad file (``FileNotFoundError`` only
    when the path does not exist): see ``ArchiveScan``."""
    contents = load_archive(Path(replay))
    scan = ArchiveScan(Path(replay), files=len(contents.files), problems=contents.problems)
    good: set[str] = set()
    unknown: set[str] = set()
    for r in contents.responses:
        host = urlsplit(r.url).hostname or ""
        names = providers_of_host(host)
        if not names:
            unknown.add(_clean_host(host))
        for name in names:
            good.add(name)
            t = r.ref.captured_at
            scan.captured_at[name] = min(scan.captured_at.get(name, t), t)
    scan.providers = sorted(good)
    scan.unknown_hosts = sorted(unknown)
    known = set(provider_domains())
    bad: dict[str, list[ArchiveError]] = {}
    for err in contents.errors:
        owners = {p for h in err.hosts for p in providers_of_host(h)}
        owners |= {p for p in err.providers | {provider_from_name(Path(err.file))} if p in known}
        for p in sorted(owners):
            if p in good:
                scan.warnings.setdefault(p, []).append(f"skipped unreadable {err}")
            else:
                bad.setdefault(p, []).append(err)
    for p, errs in sorted(bad.items()):
        more = f" (and {len(errs) - 1} more bad file(s))" if len(errs) > 1 else ""
        scan.failed[p] = f"{p}: replay archive unreadable: {errs[0]}{more}"
    scan.errors = contents.errors
    return scan


def providers_in_archive(replay: Path) -> list[str]:
    """Providers with at least one response in the archive (matched on the spider's domains).
    A single WARC file that is bad raises ``ArchiveError`` (one line); in a folder a bad file
    is skipped (see ``scan_archive`` for the providers it leaves failed)."""
    scan = scan_archive(replay)
    if Path(replay).is_file() and scan.errors:
        raise scan.errors[0]
    return scan.providers


def replay_batches(path: Path) -> list[Path]:
    """What one `--replay PATH` means: a WARC file or a folder of WARCs is one run; a folder of
    dated folders (``captures/2026-10-29/``, ...) is one run per date, oldest first, so a
    history is rebuilt in order."""
    path = Path(path)
    if path.is_dir():
        try:
            dated = sorted(p for p in path.iterdir()
                           if p.is_dir() and re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{4,6}Z?)?", p.name))
        except OSError as exc:
            raise ArchiveError(path, f"cannot be listed ({exc.strerror or exc})") from None
        if dated:
            return dated
    return [path]


def archive_capture_times(replay: Path) -> dict[str, datetime]:
    """Each provider's earliest record time in a replayed archive: the snapshot time of a
    provider whose replay stored no offers (a failed crawl is dated by its evidence too).
    Bad files are left out (never raises for one)."""
    return scan_archive(replay).captured_at

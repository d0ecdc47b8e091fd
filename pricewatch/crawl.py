"""One provider's crawl in a fresh process (Scrapy's reactor cannot restart): the items it
yielded and its crawl report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pricewatch.replays import SETTINGS_MODULE


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

    def transient_failure(self) -> str | None:
        """Why a retry could help (a crash, or no items because the network failed), else None."""
        if self.returncode != 0:
            return f"{self.provider}: crawl process exited with code {self.returncode}: {self.log_tail}"
        if not self.items and (self.report.get("failed_urls") or self.report.get("download_errors")):
            return f"{self.provider}: no offers, requests failed: {'; '.join(self.report.get('failed_urls', []))}"
        return None


def run_crawl(provider: str, workdir: Path, replay: Path | None = None,
              archive_dir: Path | None = None, timeout_s: int = 900,
              spider_args: dict | None = None, settings: dict | None = None) -> CrawlResult:
    """Runs `scrapy crawl <provider>` in a fresh process (Scrapy's reactor cannot restart)."""
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
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": SETTINGS_MODULE}
    started = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
    duration = time.monotonic() - started
    items, facts = [], []
    if items_path.exists():
        for line in items_path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                (facts if "fact" in record else items).append(record)
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    tail = ""
    if proc.returncode != 0:
        log = log_path.read_text() if log_path.exists() else ""
        tail = (proc.stderr + log)[-1500:]
    return CrawlResult(provider, proc.returncode, items, report, round(duration, 3), tail, facts=facts)



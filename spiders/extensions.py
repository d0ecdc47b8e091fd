"""Crawl report: what the validate step needs to judge a crawl, written when the spider closes."""

from __future__ import annotations

import json
from pathlib import Path

from scrapy import signals
from scrapy.exceptions import NotConfigured


class CrawlReport:
    def __init__(self, crawler, path: str):
        self.crawler = crawler
        self.path = Path(path)

    @classmethod
    def from_crawler(cls, crawler):
        path = crawler.settings.get("PRICEWATCH_REPORT_FILE")
        if not path:
            raise NotConfigured
        ext = cls(crawler, path)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_closed(self, spider, reason):
        report = crawl_report(self.crawler.stats.get_stats(), spider.name, reason)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(report, indent=2, default=str))


def crawl_report(stats: dict, provider: str, reason: str = "finished") -> dict:
    """The crawl report from a crawl's stats (also used by in-process parser tests)."""
    statuses = {k.rsplit("/", 1)[-1]: v for k, v in stats.items()
                if k.startswith("downloader/response_status_count/")}
    return {
        "provider": provider,
        "finish_reason": reason,
        "items": stats.get("item_scraped_count", 0),
        "duplicates_dropped": stats.get("pricewatch/duplicates_dropped", 0),
        "conflicting_duplicates": stats.get("pricewatch/conflicting_duplicates", []),
        "unknown_labels": stats.get("pricewatch/unknown_labels", []),
        "layout_errors": stats.get("pricewatch/layout_errors", []),
        "http_status_counts": statuses,
        "retries": stats.get("retry/count", 0),
        "retry_gave_up": stats.get("retry/max_reached", 0),
        "download_errors": stats.get("downloader/exception_count", 0),
        "spider_exceptions": stats.get("spider_exceptions/count", 0),
        "replay_missing": stats.get("pricewatch/replay_missing", 0),
        "warc_files": stats.get("pricewatch/warc_files", []),
        "failed_urls": stats.get("pricewatch/failed_urls", []),
        # Requests given up on, by kind (spiders/faults.py): dns, no-route, refused, timeout,
        # dropped, http, retry-after-too-long, dataloss, truncated, other. The flow's retry reads it.
        "network_faults": {k.rsplit("/", 1)[-1]: v for k, v in stats.items()
                           if k.startswith("pricewatch/network_faults/")},
        "retry_after_waited_s": stats.get("pricewatch/retry_after_waited_s", 0),
    }

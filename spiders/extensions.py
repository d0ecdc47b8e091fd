"""Crawl report: what the crawl judge needs to judge a crawl, written when the spider closes
(its fields: pricewatch/record/crawl_report.py)."""

from __future__ import annotations

import json
from pathlib import Path

from scrapy import signals
from scrapy.exceptions import NotConfigured

from pricewatch.record.crawl_report import CRAWL_REPORT_FIELDS


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
    """The crawl report from a crawl's stats (also used by in-process parser tests): its fields
    and the stats they are read from are pricewatch/record/crawl_report.py CRAWL_REPORT_FIELDS."""
    given = {"provider": provider, "finish_reason": reason}
    return {f.name: given[f.name] if f.name in given else f.read(stats) for f in CRAWL_REPORT_FIELDS}

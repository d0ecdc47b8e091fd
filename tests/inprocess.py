"""Parsers in-process: a provider's parser result run through the real item pipelines and
judged like a crawl, in milliseconds. The one subprocess replay per provider (the `crawl`
fixture) keeps the engine path covered; layout variants go through here."""

from __future__ import annotations

from datetime import datetime, timezone

from scrapy.exceptions import DropItem
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from pricewatch.collect import crawl_process
from spiders.base import Parsed
from spiders.extensions import crawl_report
from spiders.items import OfferItem, SourceFactItem
from spiders.pipelines import DuplicateOfferPipeline, NormalizeOfferPipeline

CAPTURED_AT = datetime(2026, 10, 29, 2, 0, tzinfo=timezone.utc)


def capture_ref(url: str = "https://example.test/pricing", captured_at: datetime = CAPTURED_AT) -> dict:
    return {"warc_file": "in-process.warc.gz", "warc_record_id": "<urn:uuid:in-process>",
            "body_sha256": "0" * 64, "captured_at": captured_at.isoformat(), "source_url": url}


def run_parsed(provider: str, parsed: Parsed, url: str = "https://example.test/pricing",
               captured_at: datetime = CAPTURED_AT, is_aggregator: bool = False) -> crawl_process.CrawlResult:
    """The crawl result the spider would give for this parser result (same pipelines, same report)."""
    stats = MemoryStatsCollector(get_crawler())
    for message in parsed.errors:
        stats.set_value("pricewatch/layout_errors", stats.get_value("pricewatch/layout_errors", []) + [message])
    normalize, dedupe = NormalizeOfferPipeline(stats), DuplicateOfferPipeline(stats)
    items, facts = [], []
    for fields in parsed.offers:
        item = OfferItem(provider=provider, **fields)
        if is_aggregator:
            item.setdefault("is_aggregator", True)
        item.setdefault("capture", capture_ref(url, captured_at))
        try:
            items.append(dict(dedupe.process_item(normalize.process_item(item))))
        except DropItem:
            continue
        stats.inc_value("item_scraped_count")
    for fields in parsed.facts:
        fact = SourceFactItem(provider=provider, **fields)
        fact.setdefault("capture", capture_ref(url, captured_at))
        facts.append(dict(fact))
    return crawl_process.CrawlResult(provider, 0, items, crawl_report(stats.get_stats(), provider), 0.0, facts=facts)


def by_key(result: crawl_process.CrawlResult) -> dict[str, dict]:
    return {i["offer_key"]: i for i in result.items}

"""The crawl report and the provider run, declared once.

The crawl report is the JSON a crawl leaves beside its items (spiders/extensions.py writes it
from the crawl's Scrapy stats, field by field from :data:`CRAWL_REPORT_FIELDS`); the crawl
judge (pricewatch/collect/judge.py) reads it and shapes each provider's ``provider_runs`` row
with the columns of :data:`PROVIDER_RUN_FIELDS`. The stored ``provider_runs`` table is a frozen
format (warehouse/load.py PROVIDER_RUNS_TABLE_V2_FIELDS); tests/test_record_contract.py checks
it against this list, and the meanings against the table's comments
(warehouse/tables/schema.yaml).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass


@dataclass(frozen=True)
class ReportField:
    name: str
    meaning: str
    stat: str | None = None        # the Scrapy stats key it is read from (None: see prefix / given)
    default: object = 0            # when the stat was never set
    prefix: str | None = None      # a family of stats keys "<prefix><kind>", reported as {kind: value}

    def read(self, stats: dict):
        if self.prefix is not None:
            return {k.rsplit("/", 1)[-1]: v for k, v in stats.items() if k.startswith(self.prefix)}
        return stats.get(self.stat, copy.copy(self.default))


#: The crawl report's fields, in the order the report file lists them. provider and
#: finish_reason are given by the closing spider, not read from the stats.
CRAWL_REPORT_FIELDS: tuple[ReportField, ...] = (
    ReportField("provider", "the spider's name"),
    ReportField("finish_reason", "why the spider closed (finished, shutdown, ...)"),
    ReportField("items", "offers and facts the crawl yielded", "item_scraped_count"),
    ReportField("duplicates_dropped", "duplicate offers dropped by the pipeline", "pricewatch/duplicates_dropped"),
    ReportField("conflicting_duplicates", "offers seen twice with two prices (key: a vs b)",
                "pricewatch/conflicting_duplicates", []),
    ReportField("unknown_labels", "GPU labels the catalog does not know", "pricewatch/unknown_labels", []),
    ReportField("layout_errors", "what the parser could not read (one message per distinct problem)",
                "pricewatch/layout_errors", []),
    ReportField("http_status_counts", "responses by HTTP status", prefix="downloader/response_status_count/"),
    ReportField("retries", "request retries within the crawl", "retry/count"),
    ReportField("retry_gave_up", "requests given up on after the last retry", "retry/max_reached"),
    ReportField("download_errors", "download exceptions", "downloader/exception_count"),
    ReportField("spider_exceptions", "parser exceptions", "spider_exceptions/count"),
    ReportField("replay_missing", "requests not found in the replayed archive", "pricewatch/replay_missing"),
    ReportField("warc_files", "the WARC files the crawl wrote", "pricewatch/warc_files", []),
    ReportField("failed_urls", "requests that failed, with why", "pricewatch/failed_urls", []),
    # Requests given up on, by kind (spiders/faults.py): dns, no-route, refused, timeout,
    # dropped, http, retry-after-too-long, dataloss, truncated, other. The flow's retry reads it.
    ReportField("network_faults", "requests given up on, by kind of fault (spiders/faults.py)",
                prefix="pricewatch/network_faults/"),
    ReportField("retry_after_waited_s", "seconds waited for Retry-After", "pricewatch/retry_after_waited_s"),
)
CRAWL_REPORT_NAMES = tuple(f.name for f in CRAWL_REPORT_FIELDS)


@dataclass(frozen=True)
class ProviderRunField:
    name: str
    type: str                      # the DuckDB type of the stored column
    meaning: str                   # = the column's comment in the warehouse
    from_report: str | None = None  # the crawl report field it is shaped from, if any


#: A provider run's row, in the order the judge shapes it.
PROVIDER_RUN_FIELDS: tuple[ProviderRunField, ...] = tuple(ProviderRunField(*r) for r in (
    ("run_id", "VARCHAR", "the run (runs.run_id)"),
    ("provider", "VARCHAR", "provider (spider name)"),
    ("status", "VARCHAR", "ok | suspect (a run monitor failed, or the parser held rows it could not read) | failed | not attempted"),
    ("observed_at", "TIMESTAMP WITH TIME ZONE", "when the prices were seen (UTC); for a replay the capture time or --as-of"),
    ("item_count", "INTEGER", "offers the crawl yielded"),
    ("priced_count", "INTEGER", "offers with a price"),
    ("unpriced_count", "INTEGER", "offers without a price (Contact sales, ...)"),
    ("duplicates_dropped", "INTEGER", "duplicate offers dropped by the pipeline", "duplicates_dropped"),
    ("http_error_count", "INTEGER", "HTTP error responses received", "http_status_counts"),
    ("retries", "INTEGER", "request retries within the crawl", "retries"),
    ("attempts", "INTEGER", "crawl attempts (Prefect task retries)"),
    ("duration_s", "DOUBLE", "crawl duration, seconds"),
    ("unknown_labels", "VARCHAR[]", "GPU labels the catalog does not know (their offers have gpu_model NULL)",
     "unknown_labels"),
    ("warnings", "VARCHAR[]", "warnings of the crawl"),
    ("monitors", "VARCHAR[]", "run-monitor findings that made the provider run suspect"),
    ("error", "VARCHAR", "why the provider run failed (one line per distinct problem)"),
    ("trusted", "BOOLEAN", "its readings are in force: true for ok, and for suspect when only rows the parser could "
     "not read were held (they keep their last trusted reading); false for a monitor's suspect, failed, not attempted "
     "(migration 059)"),
))
PROVIDER_RUN_NAMES = tuple(f.name for f in PROVIDER_RUN_FIELDS)

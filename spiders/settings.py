"""Scrapy settings for every pricewatch crawl. Components are wired here, not by imports."""

import os

BOT_NAME = "pricewatch"
SPIDER_MODULES = ["spiders"]
NEWSPIDER_MODULE = "spiders"

# Honest identity: the project and a contact URL (configure PRICEWATCH_CONTACT_URL).
CONTACT_URL = os.environ.get("PRICEWATCH_CONTACT_URL", "https://github.com/pricewatch/pricewatch")
USER_AGENT = f"pricewatch/0.1 (+{CONTACT_URL})"

# Politeness: robots.txt, one request at a time per domain, AutoThrottle.
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 8
CONCURRENT_REQUESTS_PER_DOMAIN = 1
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 2.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0

# Network faults (spiders/faults.py): every request is bounded and every give-up is one line.
# A page that has not arrived in 30 s is a fault of the night, not a wait: the request fails
# "timed out" (not retried, PRICEWATCH_RETRY_TIMEOUTS), and pricewatch/collect/crawl_process.py kills a whole
# crawl process that outlives its wall-clock limit. A resolver that does not answer is a
# fault too (Scrapy's default waits 60 s per lookup).
DOWNLOAD_TIMEOUT = 30
DNS_TIMEOUT = 10
PRICEWATCH_RETRY_TIMEOUTS = False
# A body shorter than its Content-Length fails (Scrapy's default, stated: never flip it, a cut
# page would parse into fewer offers). A body without Content-Length is checked for its end
# by its type (spiders/completeness.py).
DOWNLOAD_FAIL_ON_DATALOSS = True

# A flaky origin gets a few more tries inside the crawl (Retry-After honoured up to 60 s; a
# longer wait fails the provider for the night); the Prefect task retries the whole crawl
# with backoff on top of this, except for faults a retry cannot fix (DNS, timeouts).
RETRY_ENABLED = True
RETRY_TIMES = 3
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
PRICEWATCH_RETRY_AFTER_MAX_S = 60

# Prices must be fresh: never answer from an HTTP cache.
HTTPCACHE_ENABLED = False

DOWNLOADER_MIDDLEWARES = {
    # Closest to the downloader, so it archives exactly what came off the wire.
    "spiders.middlewares.WarcArchiveMiddleware": 950,
    # Scrapy's retry slot: retries, Retry-After, fail-fast DNS, cut-off pages (spiders/faults.py).
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "spiders.faults.NetworkFaultMiddleware": 550,
    # Between the archive and Scrapy's decompression (590), which keeps what it could decode of
    # a cut gzip: a compressed stream that does not end is flagged cut off (spiders/completeness.py).
    "spiders.completeness.CompressedEndMiddleware": 600,
}
SPIDER_MIDDLEWARES = {
    "spiders.middlewares.CaptureRefMiddleware": 950,
}
ITEM_PIPELINES = {
    "spiders.pipelines.NormalizeOfferPipeline": 100,
    "spiders.pipelines.DuplicateOfferPipeline": 200,
}
EXTENSIONS = {
    "spiders.extensions.CrawlReport": 500,
}

# Replay: set PRICEWATCH_REPLAY to a WARC file or folder and every http(s) request is
# answered from the archive by the same downloader path (see spiders/replay.py).
PRICEWATCH_REPLAY = os.environ.get("PRICEWATCH_REPLAY") or None
# Live runs archive every response here as dated WARC files.
PRICEWATCH_ARCHIVE_DIR = os.environ.get("PRICEWATCH_ARCHIVE_DIR", "data/archive")
PRICEWATCH_REPORT_FILE = os.environ.get("PRICEWATCH_REPORT_FILE") or None

# Browser pages (scrapy-playwright) use Debian's chromium, quiet on a closed network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
PLAYWRIGHT_BROWSER_TYPE = "chromium"
PLAYWRIGHT_LAUNCH_OPTIONS = {
    "executable_path": os.environ.get("PRICEWATCH_CHROMIUM", "/usr/bin/chromium"),
    "headless": True,
    "args": CHROMIUM_ARGS,
}

TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = os.environ.get("PRICEWATCH_SCRAPY_LOG_LEVEL", "INFO")

ADDONS = {"spiders.addons.ReplayAddon": 0}

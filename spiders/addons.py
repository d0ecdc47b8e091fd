"""Replay add-on: when PRICEWATCH_REPLAY is set (env or `-s`), answer every request from the archive.

An add-on sees the final settings (command line and spider settings included), so
`scrapy crawl massed_compute -s PRICEWATCH_REPLAY=captures/2026-10-29` works as well as the
flow's subprocess crawls.
"""


class ReplayAddon:
    def update_settings(self, settings):
        if not settings.get("PRICEWATCH_REPLAY"):
            return
        handlers = dict(settings.getdict("DOWNLOAD_HANDLERS"))
        # A spider that renders with a browser keeps its browser handler; that handler is
        # pointed at the archive by the spider's own replay routing.
        for scheme in ("http", "https"):
            if "playwright" not in str(handlers.get(scheme, "")):
                handlers[scheme] = "spiders.replay.WarcReplayDownloadHandler"
        settings.set("DOWNLOAD_HANDLERS", handlers, priority="addon")
        # Nothing to be polite to when the network is an archive.
        # "spider" priority: the project's own AutoThrottle setting would win over "addon".
        settings.set("AUTOTHROTTLE_ENABLED", False, priority="spider")
        settings.set("DOWNLOAD_DELAY", 0, priority="spider")

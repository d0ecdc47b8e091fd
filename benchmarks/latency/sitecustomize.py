"""benchmarks/bench_workers.py: every replayed response answers after PRICEWATCH_BENCH_LATENCY_S
seconds (a stand-in for the network's latency per request), in the crawl processes only
(this folder is put on their PYTHONPATH by the benchmark; nothing else imports it)."""

import os

_LATENCY = float(os.environ.get("PRICEWATCH_BENCH_LATENCY_S") or 0)

if _LATENCY > 0:
    try:
        from spiders import replay as _replay
    except Exception:  # noqa: BLE001 - not a pricewatch process
        _replay = None
    if _replay is not None:
        _answer = _replay.WarcReplayDownloadHandler.download_request

        async def download_request(self, request):
            from scrapy.utils.defer import maybe_deferred_to_future
            from twisted.internet import reactor, task
            await maybe_deferred_to_future(task.deferLater(reactor, _LATENCY, lambda: None))
            return await _answer(self, request)

        _replay.WarcReplayDownloadHandler.download_request = download_request

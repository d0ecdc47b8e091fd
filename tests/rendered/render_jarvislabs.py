"""Regenerates the rendered-DOM fixtures of jarvislabs: the DOM of the shipped capture after
the page's own script ran, rendered by a real Chromium.

    cd /work/main && .venv/bin/python -m tests.rendered.render_jarvislabs

* jarvislabs.pricing.rendered.html: everything served from the WARC.
* jarvislabs.pricing.rendered-no-json.html: the same, but the server_meta request is aborted
  (as a replay aborts a request the archive lacks): the page's own error handling runs.

Same browser and launch options as a crawl (spiders/settings.py), every request answered
from the shipped WARC (the page, its stylesheet, its script and the server_meta JSON the
script fetches), images/fonts/media aborted and anything not archived aborted, like
spiders/playwright_replay.py. Waits for the selector the spider waits for, then saves
``page.content()`` (what scrapy-playwright hands the spider as ``response.text``).
The one subprocess replay test in tests/test_jarvislabs.py checks that the spider's own
render of the WARC parses to exactly the offers this file parses to.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import async_playwright

from pricewatch.evidence.archive import ReplayIndex
from spiders.playwright_replay import _WIRE_HEADERS, NO_PROXY, _decoded, skipped
from spiders.settings import PLAYWRIGHT_LAUNCH_OPTIONS

ROOT = Path(__file__).resolve().parents[2]
WARC = ROOT / "captures" / "2026-10-29" / "jarvislabs.warc.gz"
HERE = Path(__file__).resolve().parent
OUT = HERE / "jarvislabs.pricing.rendered.html"
OUT_NO_JSON = HERE / "jarvislabs.pricing.rendered-no-json.html"
PAGE = "https://jarvislabs.ai/pricing"
DATA = "https://backendn.jarvislabs.net/misc/server_meta"
WAIT_FOR = "#gpu-pricing[data-live-prices]"  # spiders/jarvislabs.py


async def render(withheld: tuple[str, ...] = ()) -> str:
    index = ReplayIndex.load(WARC)
    served, missing = [], []

    async def route(route, request):
        if skipped(request):
            await route.abort("blockedbyclient")
            return
        archived = None if request.url in withheld else index.next_response(request.url)
        if archived is None:
            missing.append(request.url)
            await route.abort("internetdisconnected")
            return
        served.append(request.url)
        headers = {k: v for k, v in archived.headers if k.lower() not in _WIRE_HEADERS}
        await route.fulfill(status=archived.status, headers=headers, body=_decoded(archived.body, archived.headers))

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(**PLAYWRIGHT_LAUNCH_OPTIONS, proxy={"server": NO_PROXY})
        page = await browser.new_page()
        await page.route("**/*", route)
        await page.goto(PAGE)
        await page.wait_for_selector(WAIT_FOR, state="attached", timeout=20000)
        html = await page.content()
        await browser.close()
    if set(missing) - set(withheld):
        raise SystemExit(f"not in the archive: {missing}")
    print("served from the WARC:", *served, sep="\n  ")
    return html


if __name__ == "__main__":
    OUT.write_text(asyncio.run(render()), encoding="utf-8")
    print(f"wrote {OUT}")
    OUT_NO_JSON.write_text(asyncio.run(render(withheld=(DATA,))), encoding="utf-8")
    print(f"wrote {OUT_NO_JSON}")

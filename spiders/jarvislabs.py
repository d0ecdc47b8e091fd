"""Jarvislabs: the pricing page, rendered in Chromium because its spot and term prices load by script.

The HTML table ``#gpu-pricing`` has one row per GPU and region (``data-gpu-type`` is the
backend's gpu_type, ``data-region`` its region) with the on-demand price per GPU-hour printed
in the page. The page's script fetches ``/misc/server_meta`` from the backend and fills the
spot cell and one cell per commitment term (columns ``th[data-term]``), then marks the table
``data-live-prices="loaded"`` (or ``"error"``). Spot "—" means no spot offer; a term may say
"Contact sales". On-demand offers point to the page's record, spot and term offers to the
server_meta record the script loaded (see spiders/playwright_replay.py).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from spiders.base import PriceSpider
from spiders.items import OfferItem
from spiders.playwright_replay import BROWSER_SETTINGS, browser_request

PRICE_DATA_PATH = "/misc/server_meta"
NO_OFFER = {"unavailable", "unlisted"}  # "—": the tier is not offered for this GPU


def text(sel) -> str:
    return " ".join(" ".join(sel.css("::text").getall()).split())


class JarvislabsSpider(PriceSpider):
    name = "jarvislabs"
    allowed_domains = ["jarvislabs.ai", "jarvislabs.net"]
    custom_settings = BROWSER_SETTINGS

    def __init__(self, *args, pricing_url: str = "https://jarvislabs.ai/pricing", **kwargs):
        super().__init__(*args, **kwargs)
        self.pricing_url = pricing_url

    async def start(self):
        yield browser_request(self.pricing_url, self.parse, self.request_failed,
                              wait_for="#gpu-pricing[data-live-prices]")

    def parse(self, response):
        table = response.css("table#gpu-pricing")
        rows = table.css("tbody tr[data-gpu-type]")
        if not rows:
            self.layout_error(f"{response.url}: no table#gpu-pricing rows with data-gpu-type")
            return
        page_ref = response.meta.get("capture")
        data_ref = next((ref for url, ref in response.meta.get("browser_captures", {}).items()
                         if urlsplit(url).path == PRICE_DATA_PATH), None)
        state = table.attrib.get("data-live-prices")
        if state != "loaded":
            why = table.attrib.get("data-live-error") or "the page's script never finished"
            self.layout_error(f"{response.url}: spot/term prices were not filled in by the page's script "
                              f"(data-live-prices={state!r}: {why}); they load from {PRICE_DATA_PATH}")
        elif data_ref is None:
            self.layout_error(f"{response.url}: the page shows script-loaded prices but the browser "
                              f"loaded no {PRICE_DATA_PATH}")
        terms = {th.attrib["data-term"]: text(th) for th in table.css("thead th[data-term]")}
        for row in rows:
            yield from self.row_offers(response, row, terms, page_ref,
                                       data_ref if state == "loaded" else None)

    def row_offers(self, response, row, terms, page_ref, data_ref):
        gpu_type, region = row.attrib["data-gpu-type"], row.attrib.get("data-region")
        label = text(row.css("td.gpu-name"))
        vram = re.match(r"(\d+(?:\.\d+)?)\s*GB", text(row.css("td.vram")), re.I)
        common = dict(provider=self.name, gpu_label=label, gpu_count=1,
                      vram_gb=float(vram[1]) if vram else None, region=region, currency="USD",
                      price_unit="gpu_hour")
        key = f"{gpu_type}@{region}"
        yield OfferItem(**common, offer_key=f"{key}/on-demand", billing="on-demand",
                        price_raw=text(row.css("td.on-demand")), availability=row.attrib.get("data-free"),
                        capture=page_ref)
        if data_ref is None:
            return
        for cell in row.css("td[data-fill]"):
            state, printed = cell.attrib.get("data-state"), text(cell)
            if state is None:
                self.layout_error(f"{response.url}: {label} {cell.attrib.get('data-term', 'spot')} cell "
                                  f"was not filled in by the page's script")
                continue
            if state in NO_OFFER:
                continue
            if cell.attrib["data-fill"] == "spot":
                yield OfferItem(**common, offer_key=f"{key}/spot", billing="spot", price_raw=printed,
                                availability=cell.attrib.get("data-free"), capture=data_ref)
                continue
            term = cell.attrib.get("data-term")
            if term not in terms:
                self.layout_error(f"{response.url}: term cell {term!r} has no column header th[data-term]")
                continue
            yield OfferItem(**common, offer_key=f"{key}/reserved-{term}", billing="reserved",
                            reserved_term=terms[term], self_service=state != "contact",
                            price_raw=printed, capture=data_ref)

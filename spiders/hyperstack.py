"""Hyperstack: the public GPU pricing page (static HTML tables), per GPU-hour.

Three GPU tables: on-demand and spot (columns GPU Model, VRAM (GB), Max pCPUs per GPU,
Max RAM (GB) per GPU, price) and reserved (GPU Model and price only: its rows lack the spec
cells). Cells are therefore always read by their column's header, never by position, and the
table's price header says both the billing (On-Demand / Reserved / Spot) and the unit
("per GPU/hour", checked). The page lists per-GPU prices without a GPU count: one GPU per offer.
Reservations go through sales ("Contact us to reserve" in that section): not self-service.
"""

from __future__ import annotations

import re

from spiders.base import PriceSpider, text_of
from spiders.items import OfferItem

MODEL_HEADER = "GPU Model"
BILLING = (("reserved", "reserved"), ("spot", "spot"), ("on-demand", "on-demand"), ("pay as you go", "on-demand"))
UNIT = re.compile(r"per GPU\s*/\s*hour|per GPU per hour", re.I)
NEEDS_SALES = re.compile(r"\bcontact (?:us|sales)\b", re.I)


class HyperstackSpider(PriceSpider):
    name = "hyperstack"
    allowed_domains = ["hyperstack.cloud"]
    pricing_url = "https://www.hyperstack.cloud/gpu-pricing"

    def parse(self, response):
        tables = response.xpath(f'//table[.//th[normalize-space()="{MODEL_HEADER}"]]')
        if not tables:
            self.layout_error(f"{response.url}: no pricing table with a '{MODEL_HEADER}' column")
            return
        offers = []
        for table in tables:
            table_offers = self._table_offers(response, table)
            if table_offers is None:
                return  # publish nothing rather than part of a page we no longer understand
            offers += table_offers
        if not offers:
            self.layout_error(f"{response.url}: the '{MODEL_HEADER}' tables have no rows")
            return
        yield from offers

    def _table_offers(self, response, table) -> list[OfferItem] | None:
        headers = [text_of(th) for th in table.xpath(".//thead//th | .//tr[1][not(ancestor::thead)][th]/th")]
        price_cols = [i for i, h in enumerate(headers) if "price" in h.lower()]
        if len(price_cols) != 1:
            self.layout_error(f"{response.url}: table {headers} has no single price column")
            return None
        price_header = headers[price_cols[0]]
        billing = next((b for word, b in BILLING if word in price_header.lower()), None)
        if billing is None or not UNIT.search(price_header):
            self.layout_error(f"{response.url}: price column {price_header!r} does not say "
                              "On-Demand/Reserved/Spot and 'per GPU/hour'")
            return None
        section = text_of(table.xpath("ancestor::section[1]//p"))
        model_col, vram_col = headers.index(MODEL_HEADER), next(
            (i for i, h in enumerate(headers) if h.upper().startswith("VRAM")), None)
        offers = []
        for row in table.xpath(".//tbody/tr[td]"):
            cells = [text_of(td) for td in row.xpath("./td")]
            if len(cells) != len(headers):
                self.layout_error(f"{response.url}: row {cells} has {len(cells)} cells for "
                                  f"{len(headers)} columns {headers}")
                return None
            label, price = cells[model_col], cells[price_cols[0]]
            vram = re.match(r"^\d+(?:\.\d+)?$", cells[vram_col]) if vram_col is not None else None
            offers.append(OfferItem(
                provider=self.name, offer_key=f"{billing}:{label}", gpu_label=label, gpu_count=1,
                vram_gb=float(vram.group(0)) if vram else None,
                billing=billing, tier=billing, region=None, currency="USD",
                self_service=price.startswith("$") and not (billing == "reserved" and NEEDS_SALES.search(section)),
                price_raw=price or None, price_unit="gpu_hour", availability=None,
            ))
        return offers

"""Arrakis (the publisher of page 2), a GPU marketplace: the cheapest listing per GPU, read from
the Markdown twin of its GPU price page, ``https://arrakis.cloud/ja/gpus.html.md``.

Page format (the parser accepts exactly this; anything else is a layout error):

* exactly one table, header ``| GPU | VRAM | 掲載数 | 最安値（GPU 1 時間あたり） |``;
* one row per GPU: ``| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |``: the GPU cell
  links to the GPU's own page (its slug is the offer key), VRAM per GPU, GPUs listed, the
  cheapest listing's price per GPU-hour;
* a GPU with no listing shows ``0`` and ``—``: no offer exists then (a price with 0 listed,
  or ``—`` with GPUs listed, is a layout error);
* the paragraph ``YYYY年M月D日 HH:MM UTC 時点で、<m> 台のマシンに <g> 基の GPU が掲載されています。``
  gives the facts ``listed_machines``, ``listed_gpus`` and ``listed_at`` (optional: when it is
  missing, the facts are not recorded and the claims that need them become unverifiable).

Offers: billing marketplace (the host sets the price; a listing can go at any time), unit
gpu_hour, one GPU.
"""

from __future__ import annotations

import re

from spiders import mdpage
from spiders.base import PriceSpider
from spiders.items import OfferItem, SourceFactItem

HEADER = ["GPU", "VRAM", "掲載数", "最安値（GPU 1 時間あたり）"]
GPU_LINK = re.compile(r"^/ja/gpus/([a-z0-9-]+)\.html\.md$")
VRAM = re.compile(r"^(\d+(?:\.\d+)?) GB$")
NO_LISTING = "—"
LISTED = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})日 (\d{1,2}):(\d{2}) UTC 時点で、"
                    r"([\d,]+) 台のマシンに ([\d,]+) 基の GPU が掲載されています。$")


class ArrakisSpider(PriceSpider):
    name = "arrakis"
    allowed_domains = ["arrakis.cloud"]
    pricing_url = "https://arrakis.cloud/ja/gpus.html.md"

    def parse(self, response):
        url = response.url
        blocks = mdpage.parse(response.text)
        tables = [b.table for b in blocks if b.kind == "table"]
        if len(tables) != 1:
            self.layout_error(f"{url}: {len(tables)} tables, expected one GPU price table")
            return
        table = tables[0]
        if table.header != HEADER:
            self.layout_error(f"{url}: table header {table.header} is not {HEADER}")
            return
        if table.ragged:
            self.layout_error(f"{url}: rows with a missing or extra column ({'; '.join(table.ragged)})")
            return
        offers = []
        for row in table.rows:
            offer = self._offer(url, row)
            if offer is False:
                return  # one unreadable row makes the whole table suspect
            if offer is not None:
                offers.append(offer)
        if not offers:
            self.layout_error(f"{url}: the price table lists no GPU with a listing")
            return
        yield from offers
        yield from self._facts(url, blocks)

    def _offer(self, url, row):
        gpu, vram, listed, price = row
        cells = [c.text for c in row]
        link = GPU_LINK.match(gpu.href or "")
        m_vram = VRAM.match(vram.text)
        if not gpu.text or not link or not m_vram or not listed.text.isdigit():
            self.layout_error(f"{url}: unreadable row {cells} (expected '[<GPU>](/ja/gpus/<slug>.html.md) "
                              "| <n> GB | <GPUs listed> | $<price per GPU-hour>')")
            return False
        count = int(listed.text)
        if price.text == NO_LISTING:
            if count:
                self.layout_error(f"{url}: {gpu.text}: {count} GPUs listed but no price ('{NO_LISTING}')")
                return False
            return None
        if mdpage.usd(price.text) is None or count == 0:
            self.layout_error(f"{url}: {gpu.text}: unparseable price {price.text!r} with {count} GPUs listed")
            return False
        return OfferItem(
            provider=self.name, offer_key=link.group(1), gpu_label=gpu.text, gpu_count=1,
            vram_gb=float(m_vram.group(1)), billing="marketplace", tier="cheapest listing",
            self_service=True, currency="USD", price_raw=price.text, price_unit="gpu_hour",
            availability=f"{count} GPUs listed",
        )

    def _facts(self, url, blocks):
        for b in blocks:
            m = LISTED.match(b.text) if b.kind == "paragraph" else None
            if m:
                y, mo, d, hh, mm, machines, gpus = m.groups()
                yield SourceFactItem(provider=self.name, fact="listed_gpus", value_num=float(gpus.replace(",", "")))
                yield SourceFactItem(provider=self.name, fact="listed_machines",
                                     value_num=float(machines.replace(",", "")))
                yield SourceFactItem(provider=self.name, fact="listed_at",
                                     value_text=f"{y}-{int(mo):02d}-{int(d):02d}T{int(hh):02d}:{mm}:00Z")
                return
        self.logger.warning("%s: no '<date> UTC 時点で、<m> 台のマシンに <g> 基の GPU が掲載されています。' "
                            "line: listing counts not recorded", url)

"""GPUwithCrypto (the publisher of page 1): its own GPU price list, read from the Markdown twin
of its pricing page, ``https://gpuwithcrypto.com/ja/gpus.html.md``.

Page format (the parser accepts exactly this; anything else is a layout error):

* one ``## <GPU name>`` section per GPU (the name as the site prints it, e.g. ``A100 80GB``),
  optionally with a paragraph ``VRAM：<n> GB``;
* in each section exactly one table with the header
  ``| ブロック | GPU 時間 | 価格 | GPU 1 時間あたり |`` (block, GPU-hours, block price, price per
  GPU-hour), one row per block: ``| 10 時間 | 10 | $9.20 | $0.92 |``;
* every row of a GPU's table carries the same price per GPU-hour: that is the offer
  (billing on-demand, unit gpu_hour, one GPU; an instance of n GPUs costs n times it).

Facts outside the tables (each optional; missing ones are logged and the claims that need
them become unverifiable): ``チャージは $25 から：BTC, USDT, ...`` -> ``topup_min_usd`` and
``payment_currencies``; ``価格更新日：YYYY-MM-DD`` -> ``prices_dated``; the block sizes of the
tables -> ``block_hours`` and whether every block costs hours × rate -> ``blocks_same_rate``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from spiders import mdpage
from spiders.base import PriceSpider
from spiders.items import OfferItem, SourceFactItem

HEADER = ["ブロック", "GPU 時間", "価格", "GPU 1 時間あたり"]
BLOCK = re.compile(r"^(\d+) 時間$")
VRAM = re.compile(r"^VRAM：(\d+(?:\.\d+)?) GB$")
TOPUP = re.compile(r"^チャージは \$(\d+(?:\.\d+)?) から：(.+)$")
DATED = re.compile(r"^価格更新日：(\d{4}-\d{2}-\d{2})$")


class GpuWithCryptoSpider(PriceSpider):
    name = "gpuwithcrypto"
    allowed_domains = ["gpuwithcrypto.com"]
    pricing_url = "https://gpuwithcrypto.com/ja/gpus.html.md"

    def parse(self, response):
        url = response.url
        blocks = mdpage.parse(response.text)
        gpus = mdpage.sections(blocks, 2)
        if not gpus:
            self.layout_error(f"{url}: no '## <GPU>' sections")
            return
        block_sets, same_rate = [], True
        for gpu, body in gpus:
            tables = [b.table for b in body if b.kind == "table"]
            if len(tables) != 1:
                self.layout_error(f"{url}: section '{gpu}' has {len(tables)} tables, expected one price table")
                continue
            parsed = self._price_table(url, gpu, tables[0])
            if parsed is None:
                continue
            rate, hours, consistent = parsed
            block_sets.append(hours)
            same_rate = same_rate and consistent
            vram = None
            for b in body:
                m = VRAM.match(b.text) if b.kind == "paragraph" else None
                if m:
                    vram = float(m.group(1))
            yield OfferItem(
                provider=self.name, offer_key=mdpage.slug(gpu), gpu_label=gpu, gpu_count=1, vram_gb=vram,
                billing="on-demand", tier="on-demand", self_service=True, currency="USD",
                price_raw=f"${rate}", price_unit="gpu_hour", availability=None,
            )
        yield from self._facts(url, blocks, block_sets, same_rate)

    def _price_table(self, url, gpu, table):
        if table.header != HEADER:
            self.layout_error(f"{url}: section '{gpu}': table header {table.header} is not {HEADER}")
            return None
        if table.ragged:
            self.layout_error(f"{url}: section '{gpu}': rows with a missing or extra column ({'; '.join(table.ragged)})")
            return None
        if not table.rows:
            self.layout_error(f"{url}: section '{gpu}': price table has no rows")
            return None
        rates, hours, consistent = set(), [], True
        for row in table.rows:
            label, gpu_hours, price, per_hour = (c.text for c in row)
            m = BLOCK.match(label)
            rate, total = mdpage.usd(per_hour), mdpage.usd(price)
            if not m or not gpu_hours.isdigit() or rate is None or total is None:
                self.layout_error(f"{url}: section '{gpu}': unreadable row {[c.text for c in row]} "
                                  "(expected '<n> 時間 | <n> | $<price> | $<price per GPU-hour>')")
                return None
            rates.add(Decimal(rate))
            hours.append(int(gpu_hours))
            consistent = consistent and Decimal(total) == Decimal(rate) * int(gpu_hours)
        if len(rates) != 1:
            self.layout_error(f"{url}: section '{gpu}': blocks carry different prices per GPU-hour "
                              f"{sorted(map(str, rates))}: which one is the offer?")
            return None
        return rates.pop(), hours, consistent

    def _facts(self, url, blocks, block_sets, same_rate):
        if block_sets:
            hours = sorted({h for s in block_sets for h in s})
            yield SourceFactItem(provider=self.name, fact="block_hours", value_text=", ".join(map(str, hours)))
            uniform = all(sorted(s) == hours for s in block_sets)
            yield SourceFactItem(provider=self.name, fact="blocks_same_rate", value_num=float(same_rate and uniform))
        found = set()
        for b in blocks:
            if b.kind != "paragraph":
                continue
            if m := TOPUP.match(b.text):
                found.add("topup")
                yield SourceFactItem(provider=self.name, fact="topup_min_usd", value_num=float(m.group(1)))
                coins = ", ".join(c.strip() for c in m.group(2).split(","))
                yield SourceFactItem(provider=self.name, fact="payment_currencies", value_text=coins)
            elif m := DATED.match(b.text):
                found.add("dated")
                yield SourceFactItem(provider=self.name, fact="prices_dated", value_text=m.group(1))
        for what, line in (("topup", "チャージは $<n> から：<coins>"), ("dated", "価格更新日：<date>")):
            if what not in found:
                self.logger.warning("%s: no '%s' line: its facts are not recorded", url, line)

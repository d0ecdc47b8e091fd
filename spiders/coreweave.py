"""CoreWeave: the public pricing page (server-rendered Webflow HTML), GPU instances only.

Each instance is a Webflow CMS row ``<div role="listitem" class="table-row-v2 ...">`` with
``<h3 data-product=... class="table-model-name">``, spec cells ``table-meta-value`` each
followed by its label ("GPU Count", "VRAM", ...), and prices in labeled spans
("On-Demand Price: <span class="item-value">$68.80</span> / Hour", "Spot Price: ...").
Prices are per instance-hour for the row's GPU Count.

Traps handled here:
- every row repeats its price in an unlabeled ``<div>$68.80</div>``: only labeled spans count;
- Webflow leaves hidden, empty price spans in the HTML (``w-condition-invisible``): skipped;
- GB200/GB300 NVL72 rows print GPU Count ``4^1`` (footnote 1: priced per 4 GPUs): count 4;
- rows under "On-demand CPU instances" are CPU nodes, not GPU offers: skipped;
- the same model is listed per region ("REGION: NORTH AMERICA" / "REGION: EUROPE").
"""

from __future__ import annotations

import re

from spiders.base import PriceSpider, text_of
from spiders.items import OfferItem

ROWS = '//div[@role="listitem"][contains(concat(" ", normalize-space(@class), " "), " table-row-v2 ")]'
GPU_SECTION = re.compile(r"\bGPU instances\b", re.I)
# "8", "4^1", "4<sup>1</sup>": the footnote mark is never part of the count.
GPU_COUNT = re.compile(r"^(\d+)\s*(?:\^\s*\d+)?$")
PRICE_LABELS = {"on-demand price": "on-demand", "spot price": "spot"}


def text(sel) -> str:
    # Footnote markers (<sup>1</sup>) are not part of a value: "4<sup>1</sup>" is 4 GPUs.
    return text_of(sel, ".//text()[not(ancestor::sup)]")


class CoreWeaveSpider(PriceSpider):
    name = "coreweave"
    allowed_domains = ["coreweave.com"]
    pricing_url = "https://www.coreweave.com/pricing"

    def parse(self, response):
        rows = response.xpath(ROWS)
        if not rows:
            self.layout_error(f'{response.url}: no <div role="listitem" class="table-row-v2"> rows')
            return
        gpu_rows = [r for r in rows if GPU_SECTION.search(text(r.xpath("preceding::h2[1]")))]
        if not gpu_rows:
            self.layout_error(f'{response.url}: no table rows under an "On-demand GPU instances" heading')
            return
        offers = []
        for row in gpu_rows:
            row_offers = self._row_offers(response, row)
            if row_offers is None:
                return  # the page is not what we know: publish nothing rather than a part
            offers += row_offers
        yield from offers

    def _row_offers(self, response, row) -> list[OfferItem] | None:
        model = row.xpath('.//h3[contains(@class, "table-model-name")]')
        label = text(model)
        product = model.attrib.get("data-product", "").strip() if model else ""
        if not label or not product:
            self.layout_error(f"{response.url}: a GPU row has no <h3 data-product class=table-model-name>")
            return None
        where = f"{response.url}: row {label!r}"
        region_header = text(row.xpath('preceding::*[starts-with(normalize-space(text()), "REGION:")][1]'))
        if not region_header:
            self.layout_error(f"{where} has no 'REGION: ...' header before it")
            return None
        region = region_header.split(":", 1)[1].strip().title()
        specs = {text(v.xpath("following-sibling::*[1]")): text(v)
                 for v in row.xpath('.//*[contains(@class, "table-meta-value")]')}
        count = GPU_COUNT.match(specs.get("GPU Count", ""))
        if not count:
            self.layout_error(f"{where} has no readable 'GPU Count' cell (specs: {specs})")
            return None
        vram = re.match(r"^(\d+(?:\.\d+)?)", specs.get("VRAM", ""))
        offers = []
        for span in row.xpath('.//span[span[contains(@class, "item-value")]]'):
            if "w-condition-invisible" in span.attrib.get("class", ""):
                continue  # hidden, empty binding: this row has no such price
            kind = " ".join(span.xpath("./text()").get("").split()).rstrip(":").lower()
            billing = PRICE_LABELS.get(kind)
            if billing is None:
                continue  # other labeled rates (e.g. inference) are not instance offers
            value = text(span.xpath('./span[contains(@class, "item-value")]'))
            if value.startswith("$") and "/ Hour" not in text(span):
                self.layout_error(f"{where}: {kind} is no longer per '/ Hour' ({text(span)!r})")
                return None
            offers.append(OfferItem(
                provider=self.name, offer_key=f"{product}:{region.lower().replace(' ', '-')}:{billing}",
                gpu_label=label, gpu_count=int(count.group(1)),
                vram_gb=float(vram.group(1)) if vram else None,
                billing=billing, tier=billing, region=region, currency="USD",
                # "Contact Sales" instead of a number: unpriced, and not self-service.
                self_service=value.startswith("$"),
                price_raw=value or None, price_unit="instance_hour", availability=None,
            ))
        if not any(o["billing"] == "on-demand" for o in offers):
            self.layout_error(f"{where} has no 'On-Demand Price:' span")
            return None
        return offers

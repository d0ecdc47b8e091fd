"""Together AI: the public pricing page (Webflow HTML), GPU Clusters section only.

The page stacks several products' tables; only the GPU Clusters section (from the
``id="gpu-clusters" class="section-anchor"`` element to ``id="sandbox"``) prices GPU capacity.
The Dedicated Inference section before it prints an HGX B200 row with the very same markup at
another price: it is an inference endpoint rate, not a cluster offer, and is never read.

Columns are matched by header name: "ON-Demand" (on-demand), "Preemptible" (billing spot),
"Reserved". Prices are per GPU-hour ("All prices are per GPU per hour"; checked, since the unit
is what makes the number comparable). The page states no GPU count per price, so each offer is
one GPU. "—" means the tier is not offered (no offer); "Contact us" is an unpriced offer that
needs sales. A note "<hardware> ...: 256-GPU minimum" makes that hardware not self-service.
"""

from __future__ import annotations

import re

from spiders.base import PriceSpider, text_of
from spiders.items import OfferItem

START, END = "gpu-clusters", "sandbox"
IN_SECTION = f'[preceding::*[@id="{START}"]][following::*[@id="{END}"]]'
COLUMNS = {"on-demand": ("on-demand", "on-demand"), "preemptible": ("spot", "preemptible"),
           "reserved": ("reserved", "reserved")}
NOT_OFFERED = {"", "—", "–", "-", "n/a"}
MINIMUM = re.compile(r"(\d[\d,]*)-GPU minimum", re.I)
UNIT_NOTE = re.compile(r"per GPU per hour", re.I)
# More GPUs than one 8-GPU node is a commitment, not self-service rental.
SELF_SERVICE_MAX_MINIMUM = 8


class TogetherSpider(PriceSpider):
    name = "together"
    allowed_domains = ["together.ai"]
    pricing_url = "https://www.together.ai/pricing"

    def parse(self, response):
        url = response.url
        start = response.xpath(f'//*[@id="{START}"][contains(@class, "section-anchor")]')
        end = start.xpath(f'following::*[@id="{END}"][contains(@class, "section-anchor")]')
        if not start or not end:
            self.layout_error(f'{url}: no section anchors id="{START}" ... id="{END}" '
                              f"(class section-anchor) around the GPU Clusters section")
            return
        section_text = " ".join(response.xpath(f"//text(){IN_SECTION}").getall())
        if not UNIT_NOTE.search(section_text):
            self.layout_error(f"{url}: GPU Clusters no longer says 'All prices are per GPU per hour'")
            return
        header = response.xpath(f"//tr[th]{IN_SECTION}")
        columns = [text_of(c).lower().replace(" ", "-") for c in header[0].xpath("./th")] if header else []
        if "on-demand" not in columns:
            self.layout_error(f"{url}: GPU Clusters table has no 'ON-Demand' column (headers: {columns})")
            return
        minimums = self._minimums(response)
        found = 0
        for row in response.xpath(f"//tr[td]{IN_SECTION}"):
            cells = row.xpath("./td")
            hardware = text_of(cells[0].xpath("./p[1]"))
            minimum = next((n for name, n in minimums.items() if name in hardware), None)
            found += 1
            for column, cell in zip(columns[1:], cells[1:]):
                if column not in COLUMNS:
                    continue
                value = text_of(cell)
                if value.lower() in NOT_OFFERED:
                    continue
                billing, tier = COLUMNS[column]
                yield OfferItem(
                    provider=self.name, offer_key=f"{hardware} {tier}", gpu_label=hardware,
                    gpu_count=1, billing=billing, tier=tier, region=None, currency="USD",
                    self_service=(value.startswith("$")
                                  and (minimum is None or minimum <= SELF_SERVICE_MAX_MINIMUM)),
                    price_raw=value, price_unit="gpu_hour", availability=None,
                )
        if not found:
            self.layout_error(f"{url}: GPU Clusters section has no table rows")

    def _minimums(self, response) -> dict[str, int]:
        """{"HGX B200": 256} from notes such as "HGX B200 clusters: 256-GPU minimum."."""
        out = {}
        for note in response.xpath(f"//p[not(ancestor::table)]{IN_SECTION}"):
            note_text = text_of(note)
            m = MINIMUM.search(note_text)
            if m:
                subject = note_text[:m.start()].split(":")[0].replace("clusters", "").strip()
                if subject:
                    out[subject] = int(m.group(1).replace(",", ""))
        return out

"""Lambda: the public pricing page (server-rendered HubSpot HTML), on-demand instances only.

Prices are per GPU-hour (column ``PRICE/GPU/HR*``). The instances table sits after the heading
``Instances pricing`` in tabs 8x / 4x / 2x / 1x that each print the same plan string
(``data-plan="NVIDIA B200 SXM6"``), so the GPU count comes from the tab that holds the row.

Skipped on purpose:
- the 1-Click Clusters table before that heading: a committed product (2 weeks to 1 year,
  16+ GPUs, booked through sales), not on-demand; it carries no term we could store reliably;
- the copy of every table inside the ``window.__islands`` script blob (unicode-escaped HTML
  in a JSON string): it is script text, not markup, so reading the DOM never sees it.
"""

from __future__ import annotations

import re

from spiders.base import PriceSpider, text_of
from spiders.items import OfferItem

ANCHOR = "Instances pricing"
PRICE_LABEL = "PRICE/GPU/HR"  # printed with a footnote star: "PRICE/GPU/HR*"
TAB = re.compile(r"^(\d+)\s*x$", re.I)


class LambdaCloudSpider(PriceSpider):
    name = "lambda_cloud"
    allowed_domains = ["lambda.ai"]
    pricing_url = "https://lambda.ai/pricing"

    def parse(self, response):
        anchor = response.xpath(f'//h2[normalize-space()="{ANCHOR}"]')
        if not anchor:
            self.layout_error(f'{response.url}: no <h2> "{ANCHOR}" heading to scope the on-demand tables')
            return
        panels = anchor[0].xpath('following::*[@role="tabpanel"]')
        if not panels:
            self.layout_error(f'{response.url}: no 8x/4x/2x/1x tab panels after "{ANCHOR}"')
            return
        offers = []
        for panel in panels:
            count = self._panel_gpu_count(response, panel)
            if count is None:
                return
            for row in panel.xpath(".//tr[@data-plan]"):
                parsed = self._offer(response, row, count)
                if parsed is None:
                    return
                offers.append(parsed)
        if not offers:
            self.layout_error(f'{response.url}: no <tr data-plan> rows in the tabs after "{ANCHOR}"')
            return
        if not self._counts_agree_with_vcpus(response, offers):
            return
        for item, _vcpus in offers:
            yield item

    def _panel_gpu_count(self, response, panel) -> int | None:
        """The tab labelling the panel says how many GPUs each of its rows has ("8x")."""
        panel_id = panel.attrib.get("id", "")
        tab = response.xpath(f'//*[@role="tab"][@aria-controls="{panel_id}"]') if panel_id else []
        label = text_of(tab[0]) if tab else ""
        m = TAB.match(label)
        if not m:
            self.layout_error(f"{response.url}: tab panel {panel_id or '(no id)'} has no 'Nx' tab "
                              f"naming its GPU count (tab text {label!r})")
            return None
        return int(m.group(1))

    def _offer(self, response, row, count) -> tuple[OfferItem, str | None] | None:
        """The row's offer and its vCPU cell, or None after reporting what the row lacks."""
        plan = row.attrib["data-plan"].strip()
        cells = {td.attrib.get("data-label", "").strip(): text_of(td) for td in row.xpath("./td")}
        price_labels = [label for label in cells if label.upper().startswith(PRICE_LABEL)]
        if len(price_labels) != 1:
            self.layout_error(f"{response.url}: row {count}x {plan!r} has no single "
                              f"'{PRICE_LABEL}*' cell (cells: {sorted(cells)})")
            return None
        vram = re.match(r"^(\d+(?:\.\d+)?)\s*GB$", cells.get("VRAM/GPU", ""), re.I)
        item = OfferItem(
            provider=self.name, offer_key=f"{count}x {plan}", gpu_label=plan, gpu_count=count,
            vram_gb=float(vram.group(1)) if vram else None,
            billing="on-demand", tier="on-demand", region=None, currency="USD",
            price_raw=cells[price_labels[0]] or None, price_unit="gpu_hour", availability=None,
        )
        return item, cells.get("vCPUs")

    def _counts_agree_with_vcpus(self, response, offers) -> bool:
        """A plan on more GPUs must come with more vCPUs: a tab mislabelled or reordered by a
        redesign would otherwise price e.g. the 1x box as 8x without anyone noticing."""
        by_plan: dict[str, list[tuple[int, int]]] = {}
        for item, vcpus in offers:
            if vcpus and vcpus.isdigit():
                by_plan.setdefault(item["gpu_label"], []).append((item["gpu_count"], int(vcpus)))
        for plan, sizes in by_plan.items():
            sizes.sort()
            if any(b[1] <= a[1] for a, b in zip(sizes, sizes[1:])):
                self.layout_error(f"{response.url}: tab GPU counts of {plan!r} disagree with their "
                                  f"vCPUs {sizes}: tabs no longer say the GPU count")
                return False
        return True

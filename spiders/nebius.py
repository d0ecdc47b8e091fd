"""Nebius: the GPU price table of ``https://nebius.com/prices``, read from the page's embedded JSON.

The page is server-rendered by Next.js; its content blocks sit in ``__NEXT_DATA__`` as a JSON
*string* (hence the escaped ``[\\"Item\\",...]`` arrays in the HTML). Each table block is
``{"table": {"content": [[header...], [row...], ...]}}``. The GPU table's header is
``Item | vCPUs | RAM, GB | Preemptible, GPU-hour | On-demand, GPU-hour``; on 2026-10-01 a
column ``GPU-hour (Effective October 1, 2026)`` was added. Columns are found by header name,
never by position.

Unit: per GPU-hour (vCPUs and RAM are the per-GPU share), so every row is a 1-GPU offer.
Preemptible is recorded as billing=spot, tier=preemptible.

Dated columns: a ``[<tier>, ]GPU-hour (Effective <date>)`` column is the price list that
replaces the on-demand column (or the tier it names) from that date. On a capture taken on or
after the date the dated column is the price in force (on 2026-10-29: H100 $4.50, not $3.85);
before it, the old column still holds and the announced price is kept as a source fact
``scheduled_price:<item> <tier>``. The offer key does not change, so the change shows in the
price history. "from $1.82" (L40S) is the price of the smallest configuration and is kept;
a "--" cell means the row has no such tier (no offer); "Contact us" is an unpriced offer that is
not self-service.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timezone

from spiders.base import PriceSpider
from spiders.items import OfferItem, SourceFactItem

ITEM, ON_DEMAND, PREEMPTIBLE = "Item", "On-demand, GPU-hour", "Preemptible, GPU-hour"
SPEC_COLUMNS = ("vCPUs", "RAM, GB")  # the per-GPU share: informative, not part of the offer
DATED = re.compile(r"^(?P<tier>.*?)[,\s]*GPU-hour\s*\(\s*Effective\s+(?P<date>[^)]+?)\s*\)$", re.I)
TIERS = {"on-demand": ("on-demand", "on-demand"), "preemptible": ("spot", "preemptible")}
NOT_OFFERED = re.compile(r"^[-\u2013\u2014]*$")
MARKDOWN_LINK = re.compile(r"^\[(?P<text>[^\]]*)\]\([^)]*\)$")


def norm(header: str) -> str:
    return " ".join(str(header).split()).casefold()


def embedded_tables(node):
    """Every ``table.content`` row array, decoding JSON that is embedded as a string."""
    if isinstance(node, str):
        s = node.strip()
        if s[:1] in "{[" and '"table"' in s:
            try:
                yield from embedded_tables(json.loads(s))
            except json.JSONDecodeError:
                pass
    elif isinstance(node, list):
        for child in node:
            yield from embedded_tables(child)
    elif isinstance(node, dict):
        table = node.get("table")
        if isinstance(table, dict) and isinstance(table.get("content"), list) and table["content"]:
            yield table["content"]
        for key, child in node.items():
            if key != "table":
                yield from embedded_tables(child)


def cell_price(cell: str) -> str:
    """The cell as printed: markdown links reduced to their text, a floor's "from " dropped."""
    text = " ".join(str(cell).split())
    m = MARKDOWN_LINK.match(text)
    if m:
        text = m["text"]
    return re.sub(r"^from\s+(?=\$)", "", text, flags=re.I)


def price_number(text: str) -> float | None:
    m = re.fullmatch(r"\$\s*(\d+(?:\.\d+)?)", text)
    return float(m[1]) if m else None


class NebiusSpider(PriceSpider):
    name = "nebius"
    allowed_domains = ["nebius.com"]
    pricing_url = "https://nebius.com/prices"

    def parse(self, response):
        scripts = response.xpath('//script[@id="__NEXT_DATA__" or @type="application/json"]/text()').getall()
        tables = []
        for text in scripts:
            try:
                tables.extend(embedded_tables(json.loads(text)))
            except json.JSONDecodeError:
                continue
        if not tables:
            self.layout_error(f"{response.url}: no embedded price tables (JSON 'table': {{'content': [...]}}) in the page")
            return
        gpu_tables = [t for t in tables if isinstance(t[0], list) and t[0] and norm(t[0][0]) == norm(ITEM)
                      and any("gpu-hour" in norm(h) for h in t[0])]
        if not gpu_tables:
            headers = "; ".join(" | ".join(map(str, t[0])) for t in tables if isinstance(t[0], list))
            self.layout_error(f"{response.url}: no table with '{ITEM}' and '{ON_DEMAND}' columns (tables: {headers})")
            return
        on = observed_on(response)
        for table in gpu_tables:
            yield from self.parse_table(response.url, table, on)

    def parse_table(self, url: str, table: list, on: date):
        header = [str(h) for h in table[0]]
        index = {norm(h): i for i, h in enumerate(header)}
        missing = [name for name in (ITEM, ON_DEMAND) if norm(name) not in index]
        if missing:
            self.layout_error(f"{url}: GPU table has no {', '.join(repr(m) for m in missing)} column "
                              f"(columns: {' | '.join(header)})")
            return
        # tier -> column in force on the capture date; announced columns for later dates.
        in_force = {"on-demand": (index[norm(ON_DEMAND)], None)}
        if norm(PREEMPTIBLE) in index:
            in_force["preemptible"] = (index[norm(PREEMPTIBLE)], None)
        announced = []
        for i, h in enumerate(header):
            m = DATED.match(h.strip())
            if not m:
                if norm(h) not in {norm(c) for c in (ITEM, ON_DEMAND, PREEMPTIBLE, *SPEC_COLUMNS)}:
                    self.logger.warning("%s: unrecognized column %r ignored", url, h)
                continue
            try:
                effective = datetime.strptime(" ".join(m["date"].split()), "%B %d, %Y").date()
            except ValueError:
                self.layout_error(f"{url}: cannot read the date of column {h!r}")
                return
            named = m["tier"].lower()
            tier = "preemptible" if "preemptible" in named else "on-demand" if named in ("", "on-demand") else None
            if tier is None:
                self.logger.warning("%s: dated column %r names no tier we know: ignored", url, h)
                continue
            if effective > on:
                announced.append((i, tier, effective))
            elif tier not in in_force or in_force[tier][1] is None or effective >= in_force[tier][1]:
                in_force[tier] = (i, effective)
        rows = 0
        for row in table[1:]:
            if not isinstance(row, list) or not any(str(c).strip() for c in row):
                continue
            if len(row) != len(header):
                self.layout_error(f"{url}: row {row!r} has {len(row)} cells for {len(header)} columns")
                continue
            item = " ".join(str(row[index[norm(ITEM)]]).split())
            rows += 1
            for tier, (col, _) in in_force.items():
                billing, tier_name = TIERS[tier]
                printed = cell_price(row[col])
                if NOT_OFFERED.match(printed):
                    continue  # "--": the row has no such tier (GB200 NVL72 is not preemptible)
                yield OfferItem(
                    provider=self.name, offer_key=f"{item} {tier_name}", gpu_label=item, gpu_count=1,
                    billing=billing, tier=tier_name, self_service="contact" not in printed.lower(),
                    region=None, currency="USD", price_raw=printed, price_unit="gpu_hour",
                )
            for col, tier, effective in announced:
                printed = cell_price(row[col])
                yield SourceFactItem(
                    provider=self.name, fact=f"scheduled_price:{item} {TIERS[tier][1]}",
                    value_num=price_number(printed), value_text=f"{printed} per GPU-hour from {effective.isoformat()}")
        if not rows:
            self.layout_error(f"{url}: GPU table has a header but no rows")


def observed_on(response) -> date:
    """The day the page was fetched (a replay's recorded time), in UTC."""
    captured = (response.meta.get("capture") or {}).get("captured_at")
    when = datetime.fromisoformat(captured) if captured else datetime.now(timezone.utc)
    return when.astimezone(timezone.utc).date()

"""Together AI: the public pricing page (Webflow HTML), GPU Clusters section only.

The page stacks several products' sections; only GPU Clusters (from the
``id="gpu-clusters" class="section-anchor"`` element to ``id="sandbox"``) prices GPU capacity.
The Dedicated Inference section before it prints an "NVIDIA HGX B200" row with the same markup
at $8.99: an inference endpoint rate, not a cluster offer, and never read.

Inside GPU Clusters, a ``<div class="hide">`` holds an older on-demand-only table ("Hardware /
Hourly") that browsers never show; only visible tables are read. The visible table has two
header rows::

    Hardware | ON-Demand     | Reserved (colspan 4)
             | Pay as you go | 7-30 days | 31-90 days | 91-180 days | 181+ days

so every column is named by its group ("ON-Demand", "Reserved") and its sub-header; a Reserved
column's sub-header is its term, kept as printed ("7-30 days"). Header and data cells are laid
on one grid (colspan/rowspan expanded). Prices are per GPU-hour: the section says "All prices
are per GPU per hour", which is checked (a page that stops saying it fails instead of being
guessed). The page states no GPU count per price, so each offer is one GPU.

Cells: "$3.69" (or " $3.45") is a price. "Contact us" (a link to /gpu-cluster-request) is an
offer without a public price (not self-service). "—" is NOT an offer: in the same rows where
GB200 NVL72, GB300 NVL72 and HGX B300 print "—" under ON-Demand, the page offers them reserved
with a "Contact us" link, and it prints "Contact us" (not "—") wherever a tier is sold without a
public price (e.g. HGX H200 on-demand in Dedicated Inference); the hidden on-demand table lists
the same three as "—" under "Hourly". So "—" says "no on-demand tier", not "ask for a price".
One "Contact us" cell spanning the four term columns is one offer whose term is the span of
the terms it covers ("7-30 days / 31-90 days / 91-180 days / 181+ days"): the page makes no
per-term distinction there, and four offers would be invented from one cell. Any other cell text
("$3.69/GPU/month", "TBD", "€3.69") is a cell that cannot be read: its offer is held
(spiders/base.py Parsed.hold, the text kept), the other cells load.

Self-service: a priced cell is self-service, "Contact us" is not (the judgement this spider
always made; the 2026-08-22 recording gives no reason to change it: it names no minimum and no
sales step for priced cells, and links only the "Contact us" cells to /gpu-cluster-request).
A note "<hardware> ...: 256-GPU minimum" (from our research notes on the live page, absent from
the recording) makes that hardware not self-service when the minimum exceeds one 8-GPU node.
"""

from __future__ import annotations

import re

from parsel import Selector

from pricewatch.record.prices import parse_price
from spiders.base import Parsed, PriceSpider, text_of

START, END = "gpu-clusters", "sandbox"
_ANCHOR = '*[@id="{}"][contains(concat(" ", normalize-space(@class), " "), " section-anchor ")]'
IN_SECTION = f"[preceding::{_ANCHOR.format(START)}][following::{_ANCHOR.format(END)}]"
# Browsers never show what sits under class "hide" (Webflow's display:none utility class).
VISIBLE = '[not(ancestor-or-self::*[contains(concat(" ", normalize-space(@class), " "), " hide ")])]'
# Column group header -> (billing, tier).
GROUPS = {"on-demand": ("on-demand", "on-demand"), "reserved": ("reserved", "reserved"),
          "preemptible": ("spot", "preemptible")}
NOT_OFFERED = {"—", "–", "-", "n/a"}
UNPRICED = re.compile(r"contact|request|sales", re.I)
MINIMUM = re.compile(r"(\d[\d,]*)-GPU minimum", re.I)
UNIT_NOTE = re.compile(r"All prices are per GPU per hour", re.I)
ANY_UNIT_NOTE = re.compile(r"All prices (?:are )?per [^.]{1,40}", re.I)
# More GPUs than one 8-GPU node is a commitment, not self-service rental.
SELF_SERVICE_MAX_MINIMUM = 8


def _grid(rows, cell_xpath: str) -> list[list]:
    """Rows of cells laid on one grid: a cell with colspan/rowspan fills every slot it covers."""
    grid: list[list] = []
    pending: dict[tuple[int, int], object] = {}  # (row, col) slots taken by a rowspan above
    for r, row in enumerate(rows):
        line: list = []
        for cell in row.xpath(cell_xpath):
            while (r, len(line)) in pending:
                line.append(pending.pop((r, len(line))))
            span = int(cell.attrib.get("colspan", "1") or 1)
            down = int(cell.attrib.get("rowspan", "1") or 1)
            for _ in range(span):
                for below in range(1, down):
                    pending[(r + below, len(line))] = cell
                line.append(cell)
        while (r, len(line)) in pending:
            line.append(pending.pop((r, len(line))))
        grid.append(line)
    return grid


def _minimums(section_notes) -> dict[str, int]:
    """{"HGX B200": 256} from notes such as "HGX B200 clusters: 256-GPU minimum."."""
    out = {}
    for note in section_notes:
        note_text = text_of(note)
        m = MINIMUM.search(note_text)
        if m:
            subject = note_text[:m.start()].split(":")[0].replace("clusters", "").strip()
            if subject:
                out[subject] = int(m.group(1).replace(",", ""))
    return out


def _columns(table, parsed: Parsed, where: str) -> list[tuple | None] | None:
    """Per grid column: None for the hardware column, else (billing, tier, term, header text)."""
    header = _grid(table.xpath("./thead/tr | ./tr[th]"), "./th")
    if not header or not header[0]:
        parsed.error(f"{where}: GPU Clusters table has no header row")
        return None
    width = max(len(line) for line in header)
    columns: list[tuple | None] = []
    for c in range(width):
        names = []
        for line in header:
            if c < len(line):
                name = text_of(line[c])
                if name and name not in names:
                    names.append(name)
        group = names[0] if names else ""
        key = group.lower().replace(" ", "-")
        if c == 0:
            if key != "hardware":
                parsed.error(f"{where}: GPU Clusters table's first column is {group!r}, not 'Hardware'")
                return None
            columns.append(None)
            continue
        if key not in GROUPS:
            parsed.error(f"{where}: GPU Clusters table has an unknown column {group!r}")
            return None
        billing, tier = GROUPS[key]
        term = names[1] if len(names) > 1 else None
        if billing == "reserved" and not term:
            parsed.error(f"{where}: GPU Clusters 'Reserved' column {c} has no term sub-header")
            return None
        columns.append((billing, tier, term if billing == "reserved" else None, " ".join(names)))
    if not any(col and col[0] == "on-demand" for col in columns):
        parsed.error(f"{where}: GPU Clusters table has no 'ON-Demand' column "
                     f"(headers: {[col[3] for col in columns if col]})")
        return None
    return columns


def parse_pricing(text: str, url: str) -> Parsed:
    """Offers of the GPU Clusters section of www.together.ai/pricing (per GPU-hour)."""
    parsed = Parsed()
    page = Selector(text=text)
    if not page.xpath(f"//{_ANCHOR.format(START)}") or not page.xpath(
            f"//{_ANCHOR.format(START)}/following::{_ANCHOR.format(END)}"):
        parsed.error(f'{url}: no section anchors id="{START}" ... id="{END}" '
                     f"(class section-anchor) around the GPU Clusters section")
        return parsed
    tables = page.xpath(f"//table{IN_SECTION}{VISIBLE}")
    if not tables:
        parsed.error(f"{url}: GPU Clusters section has no visible pricing table")
        return parsed
    section_text = " ".join(" ".join(page.xpath(f"//text(){IN_SECTION}{VISIBLE}").getall()).split())
    if not UNIT_NOTE.search(section_text):
        other = ANY_UNIT_NOTE.search(section_text)
        parsed.error(f"{url}: GPU Clusters no longer says 'All prices are per GPU per hour'"
                     + (f" (it says {other.group(0)!r})" if other else ""))
        return parsed
    minimums = _minimums(page.xpath(f"//p[not(ancestor::table)]{IN_SECTION}{VISIBLE}"))
    misshapen: list[str] = []
    for table in tables:
        columns = _columns(table, parsed, url)
        if columns is None:
            continue
        rows = table.xpath(".//tr[td]")
        if not rows:
            parsed.error(f"{url}: GPU Clusters table has no rows")
            continue
        for cells in _grid(rows, "./td"):
            hardware = text_of(cells[0])
            if not hardware or len(cells) != len(columns):
                misshapen.append(f"{hardware or '(no hardware name)'}: {len(cells)} cells")
                continue
            minimum = next((n for name, n in minimums.items() if name in hardware), None)
            c = 1
            while c < len(cells):
                cell = cells[c]
                span = [col for col, other in zip(columns[c:], cells[c:]) if other is cell]
                c += len(span)
                value = text_of(cell)
                if not value or value.lower() in NOT_OFFERED:
                    continue  # "—": that tier is not offered (module docstring)
                priced = parse_price(value) is not None
                # A cell neither a price, "—" nor "Contact us" ("$3.69/GPU/month", "TBD") holds
                # its offer (spiders/base.py Parsed.hold); the other cells load.
                unreadable = not priced and (value.startswith("$") or not UNPRICED.search(value))
                for billing in sorted({col[0] for col in span}):
                    same = [col for col in span if col[0] == billing]
                    terms = [col[2] for col in same if col[2]]
                    fields = dict(
                        gpu_label=hardware, gpu_count=1, billing=billing, tier=same[0][1],
                        reserved_term=" / ".join(terms) or None, currency="USD",
                        self_service=(priced or unreadable) and (minimum is None or minimum <= SELF_SERVICE_MAX_MINIMUM),
                        price_raw=value, price_unit="gpu_hour", availability=None,
                    )
                    if unreadable:
                        parsed.hold(f"price cell unreadable: {value!r} (not a price, '—' or 'Contact us'; "
                                    f"column {span[0][3]!r})", **fields)
                    else:
                        parsed.offer(**fields)
    if misshapen:
        parsed.error(f"{url}: GPU Clusters rows that do not fit the header's {len(columns)} columns: "
                     + "; ".join(misshapen[:3]))
    return parsed


class TogetherSpider(PriceSpider):
    name = "together"
    allowed_domains = ["together.ai"]
    family = "neocloud"
    robots = ("no stored copy of www.together.ai/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of Together AI's own terms found: only a third party's analysis "
             "(https://conductatlas.com/platform/together-ai/together-ai-terms-of-service/, captured April 29,"
             " 2026) says they govern 'use of the Together AI website, API, and AI inference platform', with "
             "nothing on automated access (searched the pages corpus 2026-12-02 for 'Together AI terms of "
             "service together.ai website'). We read the public pricing page, once a day, no login.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"
    pricing_url = "https://www.together.ai/pricing"

    page_parser = staticmethod(parse_pricing)

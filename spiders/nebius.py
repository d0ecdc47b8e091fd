"""Nebius: the GPU price tables of ``https://nebius.com/prices``.

Read from two real recordings (``tests/real/nebius/``):

- 2026-08-22 (an excerpt): the page's content blocks as escaped JSON,
  ``{\\"type\\":\\"highlight-table-block\\",\\"title\\":\\"NVIDIA GPU Instances\\",...,
  \\"table\\":{\\"content\\":[[header...],[row...],...]}}`` (a JSON string inside the page's
  data). One GPU table, header ``Item | vCPUs | RAM, GB | Preemptible, GPU-hour |
  On-demand, GPU-hour`` (preemptible BEFORE on-demand).
- late September 2026 (nearly the whole document, scripts stripped): the same blocks rendered as
  ``pc-highlight-table-block`` rows. The GPU table is ``Item | vCPUs | RAM, GB | On-demand,
  GPU-hour | GPU-hour (Effective October 1, 2026)``; preemptible prices moved to their own table
  "Preemptible NVIDIA GPU Instances" (``Spot price, GPU-hour*``, every cell "from $X").

A page that carries the embedded JSON is read from it; the rendered rows are read only when no
embedded block is there (an unstripped page would carry both copies; neither recording has both).

Tables: a GPU table is one whose title names a GPU ("NVIDIA GPU Instances") or whose header has
a "..., GPU-hour" column; the CPU-only ("Price per hour"), Storage and Other services tables are
not GPU offers. Columns are found by header name, never by position. Every price column must say
"GPU-hour": a GPU table with a price column in another unit is a layout error, not a guess.

Unit: USD per GPU-hour; vCPUs and "RAM, GB" are the per-GPU share of host CPU and RAM (not GPU
memory: the page states no VRAM), so each row is a 1-GPU offer at the printed price.

Tiers: "On-demand, GPU-hour" is billing on-demand; "Preemptible, GPU-hour" and "Spot price,
GPU-hour" are billing spot, tier ``preemptible``. A price printed "from $X" is the lower bound of
a configurable offer (L40S: vCPU/RAM ranges) or of a dynamic spot price (footnote "* Spot prices
are dynamic ..."); it is stored as the number with the tier marked ``(from)``, e.g.
``on-demand (from)``. "––" means the row has no such tier (no offer); "Contact us" is an offer
without a public price (unpriced, not self-service); any other cell ("€3.85", "TBD") cannot be
read and holds its offer (spiders/base.py Parsed.hold, the text kept), the other rows load.
"NVIDIA L40S with Intel CPU" is GPU label
"NVIDIA L40S", variant "Intel CPU".

Dated columns: ``[<tier>, ]GPU-hour (Effective <date>)`` is a price list that replaces the
column of that tier (the table's only price column when no tier is named) from that date. Before
the date it is not in force and is not stored; on or after it, it is the price. The September
2026 page announces H100 $3.85 -> $4.50, H200 $4.50 -> $5.40, B200 $7.15 -> $8.50, B300 $7.85 ->
$9.50 effective 2026-10-01.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timezone

from parsel import Selector

from spiders.base import Parsed, PriceSpider, no_duplicate_keys, text_of

ITEM, ON_DEMAND = "Item", "On-demand, GPU-hour"
INFO_COLUMNS = ("item", "vcpus", "ram, gb")
# "On-demand, GPU-hour", "Spot price, GPU-hour", "GPU-hour (Effective October 1, 2026)"
GPU_HOUR = re.compile(r"^(?:(?P<tier>[^,()]*?)\s*,\s*)?GPU-hour\s*(?:\(\s*Effective\s+(?P<date>[^)]*?)\s*\))?$", re.I)
# the header's tier words -> (billing, tier)
TIERS = {"on-demand": ("on-demand", "on-demand"), "preemptible": ("spot", "preemptible"),
         "spot price": ("spot", "preemptible"), "spot": ("spot", "preemptible")}
BILLING = {tier: billing for billing, tier in TIERS.values()}
PRICE_LIKE = re.compile(r"price|hour|on-demand|preemptible|spot|\$", re.I)
NOT_OFFERED = re.compile(r"^[-\u2010-\u2015\u2212]*$")
UNPRICED = re.compile(r"\b(contact|sales|request|quote)\b", re.I)
PRICE = re.compile(r"^(?P<from>from\s+)?\$\s*(?P<num>\d+(?:\.\d+)?)$", re.I)
MARKDOWN_LINK = re.compile(r"\[(?P<text>[^\]]*)\]\([^)]*\)")
FOOTNOTE = re.compile(r"(?:\^?\*+\^?)+$")  # "GPU-hour*", "from $0.74**", "Free^*^"
WITH_CPU = re.compile(r"^(?P<gpu>.+?)\s+with\s+(?P<variant>.+)$", re.I)
BLOCK = re.compile(r'\{(\\*)"type\1"\s*:\s*\1"highlight-table-block\1"')


def clean(cell) -> str:
    """A cell as printed: whitespace collapsed, markdown links reduced to their text, footnote
    marks dropped."""
    text = " ".join(str(cell).split())
    text = MARKDOWN_LINK.sub(lambda m: m["text"], text)
    return FOOTNOTE.sub("", text).strip()


def _string_end(text: str, start: int) -> int:
    """Where the JSON string literal that ``start`` is inside of ends (its closing quote)."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i
        else:
            i += 1
    return len(text)


def embedded_blocks(text: str, problems: list[str] | None = None) -> list[dict]:
    """Every ``highlight-table-block`` object in the text, plain or inside JSON string literals
    (escaped once per level: ``{\\"type\\":\\"highlight-table-block\\"...``). A block that
    names a key twice is not read; ``problems`` gets one line for it."""
    blocks, decoder, pos = [], json.JSONDecoder(object_pairs_hook=no_duplicate_keys), 0
    problems = [] if problems is None else problems
    while m := BLOCK.search(text, pos):
        if not m[1]:
            try:
                block, end = decoder.raw_decode(text, m.start())
            except json.JSONDecodeError:
                pos = m.end()
                continue
            except ValueError as exc:   # a key twice: which of its values is the table's?
                problems.append(f"a highlight-table-block names a key twice ({exc})")
                pos = m.end()
                continue
            blocks.append(block)
            pos = end
            continue
        # Escaped: decode the rest of the enclosing string literal one level, then look inside it.
        end = _string_end(text, m.start())
        chunk = text[m.start():end]
        chunk = chunk[:len(chunk) - (len(chunk) - len(chunk.rstrip("\\"))) % 2]  # a cut-off escape
        try:
            inner = json.loads(f'"{chunk}"')
        except ValueError:
            pos = m.end()
            continue
        blocks.extend(embedded_blocks(inner, problems))
        pos = end + 1
    return blocks


def json_tables(text: str, problems: list[str] | None = None) -> list[tuple[str, list[list[str]]]]:
    tables = []
    for block in embedded_blocks(text, problems):
        content = (block.get("table") or {}).get("content") if isinstance(block.get("table"), dict) else None
        if isinstance(content, list) and content and all(isinstance(r, list) for r in content):
            tables.append((clean(block.get("title") or ""), [[clean(c) for c in r] for r in content]))
    return tables


def rendered_tables(text: str) -> list[tuple[str, list[list[str]]]]:
    def cls(name):
        return f'contains(concat(" ", normalize-space(@class), " "), " {name} ")'

    tables = []
    for root in Selector(text=text).xpath(f'//div[{cls("pc-highlight-table-block__root")}]'):
        title = text_of(root, f'.//*[{cls("pc-highlight-table-block__title")}]//text()')
        rows = [[clean(text_of(c)) for c in row.xpath(f'./div[{cls("pc-highlight-table-block__cell")}]')]
                for part in ("head", "body")
                for row in root.xpath(f'.//div[{cls(f"pc-highlight-table-block__{part}")}]'
                                      f'/div[{cls("pc-highlight-table-block__row")}]')]
        if rows:
            tables.append((clean(title), rows))
    return tables


def parse_prices(text: str, url: str, on: date | None = None) -> Parsed:
    """Offers of the prices page as seen on day ``on`` (the capture day; default today, UTC):
    that day decides which dated price columns are in force."""
    on = on or datetime.now(timezone.utc).date()
    parsed = Parsed()
    problems: list[str] = []
    tables = json_tables(text, problems)
    for problem in dict.fromkeys(problems):
        parsed.error(f"{url}: {problem}")
    if problems:
        return parsed
    tables = tables or rendered_tables(text)
    if not tables:
        parsed.error(f"{url}: no price tables (neither embedded 'highlight-table-block' JSON nor rendered "
                     f"pc-highlight-table-block rows)")
        return parsed
    gpu_tables = [(title, rows) for title, rows in tables
                  if "gpu" in title.lower() or any("gpu-hour" in h.lower() for h in rows[0])]
    if not gpu_tables:
        parsed.error(f"{url}: no GPU price table (a table titled '...GPU...' or with '..., GPU-hour' "
                     f"columns; tables: {', '.join(repr(t) for t, _ in tables)})")
        return parsed
    tiers_seen = set()
    for title, rows in gpu_tables:
        tiers_seen |= _table(parsed, url, title, rows, on)
    if "on-demand" not in tiers_seen and not parsed.errors:
        parsed.error(f"{url}: no '{ON_DEMAND}' column in any GPU table")
    return parsed


def _table(parsed: Parsed, url: str, title: str, rows: list[list[str]], on: date) -> set[str]:
    """Offers of one GPU table; returns the tiers it has price columns for."""
    where = f"{url}: GPU table {title!r}"
    header = rows[0]
    names = [h.casefold() for h in header]
    if ITEM.casefold() not in names:
        parsed.error(f"{where} has no {ITEM!r} column (columns: {' | '.join(header)})")
        return set()
    item_col = names.index(ITEM.casefold())
    # tier -> (column, effective date or None) in force on `on`
    undated, dated = {}, []
    for i, h in enumerate(header):
        if names[i] in INFO_COLUMNS:
            continue
        m = GPU_HOUR.match(h)
        if not m:
            if PRICE_LIKE.search(h):
                parsed.error(f"{where}: price column {h!r} is not per GPU-hour")
                return set()
            continue  # an informative column we do not read
        named = (m["tier"] or "").strip().casefold()
        if named and named not in TIERS:
            parsed.error(f"{where}: price column {h!r} names a tier we do not know")
            return set()
        if m["date"] is None:
            if not named:
                parsed.error(f"{where}: price column {h!r} names no tier")
                return set()
            undated[TIERS[named][1]] = i
            continue
        try:
            effective = datetime.strptime(" ".join(m["date"].split()), "%B %d, %Y").date()
        except ValueError:
            parsed.error(f"{where}: cannot read the date of column {h!r}")
            return set()
        dated.append((i, named, effective, h))
    in_force = {tier: (col, None) for tier, col in undated.items()}
    for col, named, effective, h in dated:
        if named:
            tier = TIERS[named][1]
        elif len(undated) == 1:
            [tier] = undated
        else:
            parsed.error(f"{where}: dated column {h!r} names no tier and the table has "
                         f"{len(undated)} price columns")
            return set()
        if effective > on:
            continue  # announced, not in force on the capture day: not a price yet
        if tier not in in_force or in_force[tier][1] is None or effective >= in_force[tier][1]:
            in_force[tier] = (col, effective)
    if not in_force:
        parsed.error(f"{where} has no price column per GPU-hour (columns: {' | '.join(header)})")
        return set()
    count = 0
    for row in rows[1:]:
        if not any(row):
            continue
        if len(row) != len(header):
            parsed.error(f"{where}: a row has {len(row)} cells for {len(header)} columns")
            continue
        item = row[item_col]
        m = WITH_CPU.match(item)
        label, variant = (m["gpu"], m["variant"]) if m else (item, None)
        count += 1
        for tier, (col, _) in in_force.items():
            printed = row[col]
            billing = BILLING[tier]
            if NOT_OFFERED.match(printed):
                continue  # "––": the row has no such tier
            fields = dict(gpu_label=label, variant=variant, gpu_count=1, billing=billing, tier=tier,
                          currency="USD", price_unit="gpu_hour")
            if UNPRICED.search(printed):
                parsed.offer(**fields, price_raw=printed, self_service=False)
                continue
            price = PRICE.match(printed)
            if not price:
                # "€3.85", "$3.8.5", "TBD": this cell cannot be read; its offer is held
                # (spiders/base.py Parsed.hold, the text kept), the other cells load.
                if printed.casefold().startswith("from "):
                    fields["tier"] = f"{tier} (from)"
                parsed.hold(f"price cell unreadable: {printed!r} ({header[col]})", **fields,
                            price_raw=printed, self_service=True)
                continue
            if price["from"]:
                fields["tier"] = f"{tier} (from)"
            parsed.offer(**fields, price_raw=f"${price['num']}")
    if not count:
        parsed.error(f"{where} has a header but no rows")
    return set(in_force)


class NebiusSpider(PriceSpider):
    name = "nebius"
    allowed_domains = ["nebius.com"]
    family = "neocloud"
    robots = ("no stored copy of nebius.com/robots.txt found (searched the pages corpus 2026-12-02; it cannot "
              "be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt Disallow' found"
              " only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("Nebius Terms of Use (https://docs.nebius.com/legal/terms-of-use, stored copy, undated): 'The "
             "Platform enables the User to get access to information about the Platform and services of the "
             "Platform'; no clause on automated access in the stored excerpt (searched the pages corpus "
             "2026-12-02 for 'Nebius terms of use website nebius.com'). We read the public prices page, once a"
             " day, no login.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "real"
    pricing_url = "https://nebius.com/prices"

    def parse(self, response):
        yield from self.emit(parse_prices(response.text, response.url, observed_on(response)))


def observed_on(response) -> date:
    """The day the page was fetched (a replay's recorded time), in UTC."""
    captured = (response.meta.get("capture") or {}).get("captured_at")
    when = datetime.fromisoformat(captured) if captured else datetime.now(timezone.utc)
    return when.astimezone(timezone.utc).date()

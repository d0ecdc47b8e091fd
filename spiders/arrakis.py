"""Arrakis (the publisher of page 2), a GPU marketplace: the cheapest listing per GPU, read from
the Markdown twin of its GPU price page, ``https://arrakis.cloud/ja/gpus.html.md``.

Page format (the parser accepts exactly this; anything else is a layout error):

* exactly one table, header ``| GPU | VRAM | 掲載数 | 最安値（GPU 1 時間あたり） |`` (the last
  column is the page's unit statement: the cheapest listing per GPU-hour);
* one row per GPU: ``| [H100](/ja/gpus/h100.html.md) | 80 GB | 72 | $1.65 |``: the GPU cell
  links to the GPU's own page (its slug is the offer's ``sku``: key ``1x h100 80GB
  marketplace/cheapest listing``), VRAM per GPU, GPUs listed, the cheapest listing's price per
  GPU-hour;
* a GPU with no listing shows ``0`` and ``—``: no offer exists then (a price with 0 listed,
  or ``—`` with GPUs listed, is a layout error); a listed GPU whose price cell is neither
  (``要問合せ``, ``€1.65``, a struck-through price alone) is held (spiders/base.py Parsed.hold,
  the text kept) and the other rows load;
* the paragraph ``YYYY年M月D日 HH:MM UTC 時点で、<m> 台のマシンに <g> 基の GPU が掲載されています。``
  gives the facts ``listed_machines``, ``listed_gpus`` and ``listed_at`` (optional: when it is
  missing, the facts are not recorded, which is logged, and the claims that need them become
  unverifiable).

Offers: billing marketplace, tier "cheapest listing" (the host sets the price; a listing can go
at any time), unit gpu_hour, one GPU, availability "<n> GPUs listed".
"""

from __future__ import annotations

import logging
import re

from spiders import mdpage
from spiders.base import Parsed, PriceSpider

log = logging.getLogger(__name__)

HEADER = ["GPU", "VRAM", "掲載数", "最安値（GPU 1 時間あたり）"]
UNIT_COLUMN = HEADER[-1]  # "cheapest (per GPU-hour)": the unit of the offer's price
GPU_LINK = re.compile(r"^/ja/gpus/([a-z0-9-]+)\.html\.md$")
VRAM = re.compile(r"^(\d+(?:\.\d+)?) GB$")
COUNT = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)$")
NO_LISTING = "—"
LISTED = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})日 (\d{1,2}):(\d{2}) UTC 時点で、"
                    r"([\d,]+) 台のマシンに ([\d,]+) 基の GPU が掲載されています。$")


def _row(row, problems: dict[str, list[str]]) -> dict | None:
    """The offer of one table row (with ``_held``, why its price cell cannot be read, when it
    cannot); None for a GPU with no listing or after recording a problem."""
    gpu, vram, listed, price = row
    name = gpu.text or "(empty)"
    link = GPU_LINK.match(gpu.href or "")
    m_vram = VRAM.match(vram.text)
    problem = None
    if not gpu.text or not link:
        problem = "GPU cell is not '[<GPU>](/ja/gpus/<slug>.html.md)'"
    elif not m_vram:
        problem = f"VRAM cell {vram.text!r} is not '<n> GB'"
    elif not COUNT.match(listed.text):
        problem = f"listing count {listed.text!r} is not a number"
    if problem:
        problems.setdefault(problem, []).append(name)
        return None
    count = int(listed.text.replace(",", ""))
    if price.text == NO_LISTING:
        if count:
            problems.setdefault(f"no price ('{NO_LISTING}') with GPUs listed", []).append(f"{name} ({count})")
        return None
    readable = mdpage.usd(price.text) is not None
    if not readable and count == 0:
        problems.setdefault("unparseable price (expected '$<amount>' or '—')", []).append(f"{name} {price.text!r}")
        return None
    if count == 0:
        problems.setdefault("a price with 0 GPUs listed", []).append(f"{name} {price.text!r}")
        return None
    offer = dict(sku=link.group(1), gpu_label=gpu.text, gpu_count=1, vram_gb=float(m_vram.group(1)),
                 billing="marketplace", tier="cheapest listing", self_service=True, currency="USD",
                 price_raw=price.text or None, price_unit="gpu_hour", availability=f"{count} GPUs listed")
    if not readable:
        # "要問合せ", "€1.65", a struck price alone: this row's price cannot be read; it is held
        # (spiders/base.py Parsed.hold, the text kept), the other rows load.
        offer["_held"] = f"price cell unreadable: {price.text!r} (expected '$<amount>' or '—')"
    return offer


def parse_page(text: str, url: str) -> Parsed:
    """Offers and listing facts of the GPU price page (``/ja/gpus.html.md``)."""
    parsed = Parsed()
    blocks = mdpage.parse(text)
    tables = [b.table for b in blocks if b.kind == "table"]
    if len(tables) != 1:
        parsed.error(f"{url}: {len(tables)} tables, expected one GPU price table")
        return parsed
    table = tables[0]
    if table.header != HEADER:
        if len(table.header) == len(HEADER) and table.header[:-1] == HEADER[:-1]:
            parsed.error(f"table header: price column {table.header[-1]!r} is not {UNIT_COLUMN!r} "
                         "(cheapest per GPU-hour): unit unknown")
        else:
            parsed.error(f"table header {table.header} is not {HEADER}")
        return parsed
    if table.ragged:
        more = f" (+{len(table.ragged) - 1} more)" if len(table.ragged) > 1 else ""
        parsed.error(f"rows with a missing or extra column: {table.ragged[0]}{more}")
        return parsed
    problems: dict[str, list[str]] = {}  # problem -> rows (one message per distinct problem)
    for row in table.rows:
        offer = _row(row, problems)
        if offer is not None and "_held" in offer:
            parsed.hold(offer.pop("_held"), **offer)
        elif offer is not None:
            parsed.offer(**offer)
    for problem, rows in problems.items():  # the problem first: a long message is cut at its end
        more = f" (+{len(rows) - 1} more)" if len(rows) > 1 else ""
        parsed.error(f"{problem}: row {rows[0]}{more}")
    if not parsed.offers and not parsed.errors:
        parsed.error("the price table lists no GPU with a listing")
    _facts(parsed, url, blocks)
    return parsed


def _facts(parsed: Parsed, url: str, blocks) -> None:
    for b in blocks:
        m = LISTED.match(b.text) if b.kind == "paragraph" else None
        if m:
            y, mo, d, hh, mm, machines, gpus = m.groups()
            parsed.facts += [
                dict(fact="listed_gpus", value_num=float(gpus.replace(",", ""))),
                dict(fact="listed_machines", value_num=float(machines.replace(",", ""))),
                dict(fact="listed_at", value_text=f"{y}-{int(mo):02d}-{int(d):02d}T{int(hh):02d}:{mm}:00Z"),
            ]
            return
    log.warning("%s: no '<date> UTC 時点で、<m> 台のマシンに <g> 基の GPU が掲載されています。' "
                "line: listing counts not recorded", url)


class ArrakisSpider(PriceSpider):
    name = "arrakis"
    allowed_domains = ["arrakis.cloud"]
    family = "own"
    robots = ("no stored copy of arrakis.cloud/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); our own site; robots.txt is obeyed at every crawl "
              "(ROBOTSTXT_OBEY)")
    terms = "our own site: collection is ours to allow"
    cadence = "daily"
    unit = "USD per GPU-hour (cheapest listing)"
    capture = "composed"
    pricing_url = "https://arrakis.cloud/ja/gpus.html.md"

    page_parser = staticmethod(parse_page)

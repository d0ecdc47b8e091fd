"""GPUwithCrypto (the publisher of page 1): its own GPU price list, read from the Markdown twin
of its pricing page, ``https://gpuwithcrypto.com/ja/gpus.html.md``.

Page format (the parser accepts exactly this; anything else is a layout error):

* one ``## <GPU name>`` section per GPU (the name as the site prints it, e.g. ``A100 80GB``),
  optionally with a paragraph ``VRAM：<n> GB``;
* in each section exactly one table with the header
  ``| ブロック | GPU 時間 | 価格 | GPU 1 時間あたり |`` (block, GPU-hours, block price, price per
  GPU-hour: the last column is the page's unit statement), one row per block:
  ``| 10 時間 | 10 | $9.20 | $0.92 |``;
* every row of a GPU's table carries the same price per GPU-hour: that is the offer
  (billing on-demand, unit gpu_hour, one GPU; an instance of n GPUs costs n times it). A block
  whose price or per-GPU-hour cell is not a "$" amount ("€0.82", "お問い合わせ", a struck-through
  price alone) holds that GPU's offer (spiders/base.py Parsed.hold, the cell's text kept); the
  other GPUs load.
  ``sku`` is the GPU name's slug (``a100-80gb``), so the offer key reads ``1x a100-80gb on-demand``.

Facts outside the tables (each optional; a missing one is logged and the claims that need it
become unverifiable): ``チャージは $25 から：BTC, USDT, ...`` -> ``topup_min_usd`` and
``payment_currencies``; ``価格更新日：YYYY-MM-DD`` -> ``prices_dated``; the block sizes of the
tables -> ``block_hours`` and whether every GPU has the same blocks, each costing hours × rate
-> ``blocks_same_rate`` (1.0 / 0.0).
"""

from __future__ import annotations

import logging
import re
from decimal import Decimal

from spiders import mdpage
from spiders.base import Parsed, PriceSpider

log = logging.getLogger(__name__)

HEADER = ["ブロック", "GPU 時間", "価格", "GPU 1 時間あたり"]
UNIT_COLUMN = HEADER[-1]  # "per GPU-hour": the unit of the offer's price
BLOCK = re.compile(r"^(\d+) 時間$")
VRAM = re.compile(r"^VRAM：(\d+(?:\.\d+)?) GB$")
TOPUP = re.compile(r"^チャージは \$(\d+(?:\.\d+)?) から：(.+)$")
DATED = re.compile(r"^価格更新日：(\d{4}-\d{2}-\d{2})$")


def _price_table(table, gpu: str, problems: dict[str, list[str]]):
    """(rate, block hours, every block = hours × rate, unreadable) of one GPU's table, or None
    after recording the problem under the GPU's name. ``unreadable``: (the cell's text, why)
    when a block's price or per-GPU-hour cell is not a "$" amount (the offer is then held),
    else None."""
    if table.header != HEADER:
        if len(table.header) == len(HEADER) and table.header[:-1] == HEADER[:-1]:
            problem = (f"table header: price column {table.header[-1]!r} is not {UNIT_COLUMN!r} "
                       "(per GPU-hour): unit unknown")
        else:
            problem = f"table header {table.header} is not {HEADER}"
        problems.setdefault(problem, []).append(repr(gpu))
        return None
    if table.ragged:
        problems.setdefault("price table rows with a missing or extra column", []).append(
            f"{gpu!r} ({table.ragged[0]})")
        return None
    if not table.rows:
        problems.setdefault("price table has no rows", []).append(repr(gpu))
        return None
    rates, hours, consistent, unreadable = set(), [], True, None
    for row in table.rows:
        label, gpu_hours, price, per_hour = (c.text for c in row)
        rate, total = mdpage.usd(per_hour), mdpage.usd(price)
        if not BLOCK.match(label) or not gpu_hours.isdigit():
            problems.setdefault("unreadable row (expected '<n> 時間 | <n> | $<price> | $<per GPU-hour>')",
                                []).append(f"{gpu!r} {[c.text for c in row]}")
            return None
        if rate is None or total is None:
            # The block is readable, its price is not ("€0.82", "お問い合わせ", a struck price
            # alone): the GPU's offer is held, the other GPUs load.
            if unreadable is None:
                text = per_hour if rate is None else price
                unreadable = (text, f"price cell unreadable: {text!r} (block {label!r}, "
                                    f"expected '$<price> | $<per GPU-hour>')")
            hours.append(int(gpu_hours))
            continue
        rates.add(Decimal(rate))
        hours.append(int(gpu_hours))
        consistent = consistent and Decimal(total) == Decimal(rate) * int(gpu_hours)
    if len(rates) > 1:
        problems.setdefault("blocks carry different prices per GPU-hour (which one is the offer?)", []).append(
            f"{gpu!r} {sorted(map(str, rates))}")
        return None
    return (rates.pop() if rates else None), hours, consistent, unreadable


PER_HOST = re.compile(r"GPU\s*数はホストにより\s*(\d+)\s*[〜~～-]\s*(\d+)\s*基")


def parse_page(text: str, url: str) -> Parsed:
    """Offers and facts of the GPU price page (``/ja/gpus.html.md``)."""
    parsed = Parsed()
    blocks = mdpage.parse(text)
    gpus = mdpage.sections(blocks, 2)
    if not gpus:
        parsed.error(f"{url}: no '## <GPU>' sections")
        return parsed
    problems: dict[str, list[str]] = {}  # problem -> sections (one message per distinct problem)
    block_sets, same_rate = [], True
    for gpu, body in gpus:
        tables = [b.table for b in body if b.kind == "table"]
        if len(tables) != 1:
            problems.setdefault(f"{len(tables)} tables in a GPU section, expected one price table", []).append(repr(gpu))
            continue
        read = _price_table(tables[0], gpu, problems)
        if read is None:
            continue
        rate, hours, consistent, unreadable = read
        vram = [float(m.group(1)) for b in body if b.kind == "paragraph" and (m := VRAM.match(b.text))]
        if len(set(vram)) > 1:
            problems.setdefault("several different 'VRAM：<n> GB' lines", []).append(repr(gpu))
            continue
        block_sets.append(hours)
        # A held GPU's blocks cannot be checked: whether every block costs hours × rate is then
        # not known, and the fact is not recorded (its claims become unverifiable).
        same_rate = None if same_rate is None or unreadable else same_rate and consistent
        offer = dict(sku=mdpage.slug(gpu), gpu_label=gpu, gpu_count=1, billing="on-demand", tier="on-demand",
                     self_service=True, currency="USD",
                     price_raw=unreadable[0] if unreadable else f"${rate}", price_unit="gpu_hour",
                     availability=None)
        if vram:
            offer["vram_gb"] = vram[0]
        if unreadable:
            parsed.hold(unreadable[1], **offer)
        else:
            parsed.offer(**offer)
    for problem, where in problems.items():  # the problem first: a long message is cut at its end
        more = f" (+{len(where) - 1} more)" if len(where) > 1 else ""
        parsed.error(f"{problem}: section {where[0]}{more}")
    _facts(parsed, url, blocks, block_sets, same_rate)
    return parsed


def _facts(parsed: Parsed, url: str, blocks, block_sets, same_rate: bool | None) -> None:
    if block_sets:
        hours = sorted({h for s in block_sets for h in s})
        parsed.facts.append(dict(fact="block_hours", value_text=", ".join(map(str, hours))))
        uniform = all(sorted(s) == hours for s in block_sets)
        if same_rate is not None:
            parsed.facts.append(dict(fact="blocks_same_rate", value_num=float(same_rate and uniform)))
        else:
            log.warning("%s: a GPU's price was held: 'blocks_same_rate' is not recorded", url)
    found = set()
    for b in blocks:
        if b.kind != "paragraph":
            continue
        if (m := TOPUP.match(b.text)) and "topup" not in found:
            found.add("topup")
            parsed.facts.append(dict(fact="topup_min_usd", value_num=float(m.group(1))))
            coins = ", ".join(c.strip() for c in m.group(2).split(","))
            parsed.facts.append(dict(fact="payment_currencies", value_text=coins))
        elif (m := PER_HOST.search(b.text)) and "per_host" not in found:
            # "インスタンスの GPU 数はホストにより 1〜8 基で、...": the GPU counts an instance can have.
            found.add("per_host")
            parsed.facts.append(dict(fact="gpus_per_host_min", value_num=float(m.group(1))))
            parsed.facts.append(dict(fact="gpus_per_host_max", value_num=float(m.group(2))))
        elif (m := DATED.match(b.text)) and "dated" not in found:
            found.add("dated")
            parsed.facts.append(dict(fact="prices_dated", value_text=m.group(1)))
    for what, line in (("topup", "チャージは $<n> から：<coins>"), ("dated", "価格更新日：<date>")):
        if what not in found:
            log.warning("%s: no '%s' line: its facts are not recorded", url, line)


class GpuWithCryptoSpider(PriceSpider):
    name = "gpuwithcrypto"
    allowed_domains = ["gpuwithcrypto.com"]
    family = "own"
    robots = ("no stored copy of gpuwithcrypto.com/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); our own site; robots.txt is obeyed at every crawl "
              "(ROBOTSTXT_OBEY)")
    terms = "our own site: collection is ours to allow"
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "composed"
    pricing_url = "https://gpuwithcrypto.com/ja/gpus.html.md"

    page_parser = staticmethod(parse_page)

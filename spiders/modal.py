"""Modal: the public pricing page (modal.com/pricing), its "GPU Tasks" price list, per GPU per second.

Modal runs serverless functions and bills them by the second. Under the "GPU Tasks" heading the
page prints one row per GPU: its name ("Nvidia H100", "Nvidia A100, 80 GB") and its price per GPU
per second ("$0.001097 / sec"); CPU ("$0.0000131 / core / sec") and memory ("$0.00000222 / GiB /
sec") follow in blocks of their own and are billed on top (captures/src/2026-06-04/modal/ says
where each of these comes from: the capture is COMPOSED, no real recording exists). So:

- the block starts at the one text "GPU Tasks" (none is a layout error; two copies are read once
  when identical and refused when they differ) and ends at the "CPU" block: rows are read in
  order as a GPU name (it starts "Nvidia " or "AMD ") then its price cell, and any other text
  before "CPU" is a layout error (a GPU Modal names another way must fail, not vanish);
- a price cell "$X / sec" is a price per GPU-second (price_unit ``gpu_second``, price_raw "$X" as
  printed; its GPU-hour is 3600 seconds, pricewatch/record/prices.py); "$X / h" (the page's hourly
  view) is a price per GPU-hour; a "$" amount per any other unit ("/ min", "/ month") fails the page;
- "Contact sales" / "Contact us" is an offer without a public price (unpriced, not self-service);
  "—" / "N/A" is no offer; any other text ("TBD", "€0.001 / sec", a struck-through price alone,
  which leaves the row with no price cell) cannot be read: that row is held (spiders/base.py
  Parsed.hold), the others load;
- each row is one GPU (gpu_count 1: "H100:8" is eight of them at the same rate), tier
  ``serverless``, on-demand and self-service; VRAM only where the name prints it ("A100, 80 GB").

The GPU price is the GPU alone: CPU and memory are billed on top, and the page's region and
non-preemptible multipliers apply to it. Like cudo's GPU component (spiders/cudo.py) it is not the
instance price every "cheapest" claim and mart compares, so the source is off by default and runs
when asked by name (`pricewatch run --provider modal`).
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import STRUCK, Parsed, PriceSpider

HEADING, NEXT_BLOCK = "GPU Tasks", "CPU"
GPU_NAME = re.compile(r"^(?:Nvidia|NVIDIA|AMD)\s+\S")
PRICE = re.compile(r"^(\$\d+(?:\.\d+)?)\s*/\s*(sec|s|second|h|hr|hour)$")
UNITS = {"sec": "gpu_second", "s": "gpu_second", "second": "gpu_second",
         "h": "gpu_hour", "hr": "gpu_hour", "hour": "gpu_hour"}
# A $ amount per some other unit ("$0.06 / min", "$99 / month"): the page changed its unit.
OTHER_UNIT = re.compile(r"^\$\d+(?:\.\d+)?\s*/\s*\S")
VRAM = re.compile(r",\s*(\d+(?:\.\d+)?)\s*GB$")
CONTACT = re.compile(r"^contact (sales|us)$", re.I)
NOT_OFFERED = {"n/a", "na", "-", "—", "–"}
VISIBLE = f"//body//text()[not(ancestor::script or ancestor::style or ancestor::noscript)][not({STRUCK})]"


def _texts(body: str) -> list[str]:
    """The page's visible text nodes in order, whitespace collapsed (struck-through text left out)."""
    return [t for t in (" ".join(s.split()) for s in Selector(text=body).xpath(VISIBLE).getall()) if t]


def _blocks(texts: list[str]) -> list[list[str]]:
    """Each "GPU Tasks" block: the texts after the heading up to the "CPU" heading (or the end)."""
    blocks = []
    for i, text in enumerate(texts):
        if text == HEADING:
            end = texts.index(NEXT_BLOCK, i) if NEXT_BLOCK in texts[i:] else len(texts)
            blocks.append(texts[i + 1:end] + ([] if end < len(texts) else [None]))
    return blocks


def parse_pricing(body: str, url: str) -> Parsed:
    """One offer per GPU row of the "GPU Tasks" block, per GPU-second as printed."""
    parsed = Parsed()
    blocks = _blocks(_texts(body))
    if not blocks:
        parsed.error(f"no '{HEADING}' price list (the page's GPU prices)")
        return parsed
    block = parsed.one_copy(blocks, f"'{HEADING}' price lists", tuple)
    if block is None:
        return parsed
    if block and block[-1] is None:
        parsed.error(f"the '{HEADING}' price list is not followed by the '{NEXT_BLOCK}' prices (layout changed)")
        return parsed
    i, problems = 0, {}
    while i < len(block):
        name = block[i]
        if not GPU_NAME.match(name):
            parsed.error(f"'{HEADING}': {name!r} is neither a GPU name nor a price (layout changed)")
            return parsed
        cell = block[i + 1] if i + 1 < len(block) and not GPU_NAME.match(block[i + 1]) else None
        i += 1 if cell is None else 2
        problem = _row(parsed, name, cell)
        if problem:
            problems.setdefault(problem, []).append(name)
    for problem, names in problems.items():
        parsed.error(f"{problem} (GPUs {', '.join(repr(n) for n in names[:3])}{', ...' if len(names) > 3 else ''})")
    if not parsed.offers and not parsed.errors:
        parsed.error(f"no GPU offer in the '{HEADING}' price list")
    return parsed


def _row(parsed: Parsed, name: str, cell: str | None) -> str | None:
    """Adds the row's offer (or holds it); a layout problem of the row is returned instead."""
    vram = VRAM.search(name)
    fields = dict(gpu_label=name, gpu_count=1, vram_gb=float(vram.group(1)) if vram else None, billing="on-demand",
                  tier="serverless", reserved_term=None, region=None, currency="USD", availability=None)
    if cell is None:
        parsed.hold("no price cell after the GPU name", price_unit="gpu_second", price_raw=None,
                    self_service=True, **fields)
        return None
    m = PRICE.match(cell)
    if m:
        parsed.offer(price_unit=UNITS[m.group(2)], price_raw=m.group(1), self_service=True, **fields)
    elif CONTACT.match(cell):
        parsed.offer(price_unit="gpu_second", price_raw=cell, self_service=False, **fields)
    elif cell.lower() in NOT_OFFERED:
        return None
    elif OTHER_UNIT.match(cell):
        return f"price cell is not '$X / sec' ({cell!r})"
    else:
        parsed.hold(f"price cell unreadable: {cell!r}", price_unit="gpu_second", price_raw=cell,
                    self_service=True, **fields)
    return None


class ModalSpider(PriceSpider):
    name = "modal"
    allowed_domains = ["modal.com"]
    pricing_url = "https://modal.com/pricing"
    family = "neocloud"
    unit = "USD per GPU-second (GPU alone; CPU and memory billed on top)"
    capture = "composed"
    robots = ("unknown: no stored copy of modal.com/robots.txt found (searched the pages corpus 2026-12-02 "
              "for 'modal.com robots.txt User-agent Disallow'; only other sites' files); robots.txt is obeyed "
              "at every crawl if served")
    terms = ("Modal's terms (https://modal.com/legal/terms, stored copies 'Last updated February 28th, 2023' "
             "and 'Effective October 31, 2025'): a Software as a Service Agreement between Modal Labs, Inc. "
             "and a Customer who executes a Service Order or creates an account, governing the use of the "
             "Service; the stored part has no sentence on reading the public website. We read only the "
             "public pricing page, once a day, with our contact User-Agent and robots.txt obeyed; the source "
             "is off by default because its price is the GPU alone (CPU and memory billed on top).")
    cadence = "daily"
    # The GPU price alone (CPU, memory, region and non-preemptible multipliers on top): not the
    # instance price the "cheapest" claims and marts compare, so it runs only when asked by name.
    enabled_by_default = False

    page_parser = staticmethod(parse_pricing)

"""Koyeb: the GPU Instance types table of its instance reference (koyeb.com/docs/reference/instances).

Koyeb publishes its prices in its docs: under "GPU Instance types" one table headed Instance Type |
VRAM | vCPU | RAM | Price/second | Price/hour | Price/month, one row per instance type
(``gpu-nvidia-h100`` 80 GB 15 180 GB $0.000916 $3.30 $2454; ``2x-gpu-nvidia-h100`` 160 GB ...
$6.60; up to ``8x-``), then a "Standard Instance types" table of CPU instances (captures/src/
2026-12-02/koyeb/ says what of the capture is real: every cell's text; and composed: the markup).
So:

- the GPU table is found by its header (columns by name: Instance Type, VRAM and Price/hour are
  required, any column we do not know is a layout error; none is a layout error; copies are read
  once when identical and refused when they differ); the CPU tables (no VRAM column) are not read;
- the instance type names the GPU and its count: ``[<n>x-]gpu-<gpu>`` (gpu_label "nvidia-h100",
  gpu_count n or 1, sku the whole type); another name in the GPU table is a layout error;
- VRAM is the instance's total ("160 GB" on a 2-GPU type): per GPU it is total / count, and must
  be a whole share, else the row's layout is wrong;
- Price/hour is the price of the whole instance per hour, its vCPU and RAM included (price_unit
  ``instance_hour``, "$3.30" as printed); Price/second times 3600 must agree with it to 1 % (the
  page rounds: $0.000916 x 3600 = $3.2976 against $3.30), else that row is held, as is a row whose
  hourly cell cannot be read ("TBD", "€3.30"); "Contact sales" / "Contact us" is an offer without a
  public price; "—" / "N/A" is no offer; a "$" amount per another unit ("$3.30/mo") fails the page;
- Price/month (a month of 744 hours on the page: $3.30 x 744 = $2455.2 against $2454) is not read.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

COLUMNS = ("Instance Type", "VRAM", "vCPU", "RAM", "Price/second", "Price/hour", "Price/month")
REQUIRED = ("Instance Type", "VRAM", "Price/hour")
TYPE = re.compile(r"^(?:(\d+)x-)?gpu-([a-z0-9][a-z0-9-]*)$")
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB$")
DOLLARS = re.compile(r"^\$(\d+(?:\.\d+)?)$")
OTHER_UNIT = re.compile(r"^\$\d+(?:\.\d+)?\s*/\s*\S")
CONTACT = re.compile(r"^contact (sales|us)$", re.I)
NOT_OFFERED = {"n/a", "na", "-", "—", "–"}
SECONDS_PER_HOUR, AGREE = 3600, 0.01


def _headers(table) -> list[str]:
    return [text_of(th) for th in table.xpath("./thead/tr/th")]


def parse_instances(body: str, url: str) -> Parsed:
    """One offer per row of the GPU Instance types table, per instance-hour."""
    parsed = Parsed()
    tables = [t for t in Selector(text=body).xpath("//table") if "VRAM" in _headers(t)]
    if not tables:
        parsed.error("no table with a VRAM column (GPU Instance types)")
        return parsed
    table = parsed.one_copy(tables, "GPU instance tables", lambda t: (tuple(_headers(t)), tuple(
        tuple(text_of(td) for td in tr.xpath("./td")) for tr in t.xpath("./tbody/tr"))))
    if table is None:
        return parsed
    headers = _headers(table)
    if set(headers) - set(COLUMNS) or any(h not in headers for h in REQUIRED) or len(set(headers)) != len(headers):
        parsed.error(f"column headings are not {' | '.join(COLUMNS)} ({' | '.join(headers)!r})")
        return parsed
    rows = table.xpath("./tbody/tr")
    if not rows:
        parsed.error("the GPU instance table has no row")
        return parsed
    problems: dict[str, list[str]] = {}
    for tr in rows:
        cells = [text_of(td) for td in tr.xpath("./td")]
        problem = _row(parsed, dict(zip(headers, cells))) if len(cells) == len(headers) else \
            f"a row has {len(cells)} cells under {len(headers)} columns"
        if problem:
            problems.setdefault(problem, []).append(cells[0] if cells else "?")
    parsed.errors_by_problem("GPU Instance types", problems)
    if not parsed.offers and not parsed.errors:
        parsed.error("no GPU offer in the GPU instance table (every price cell says not offered)")
    return parsed


def _row(parsed: Parsed, row: dict[str, str]) -> str | None:
    """Adds the row's offer (or holds it); a layout problem of the row is returned instead."""
    kind = TYPE.match(row["Instance Type"])
    if not kind:
        return "instance type(s) not like '[<n>x-]gpu-<gpu>'"
    count = int(kind.group(1) or 1)
    vram = VRAM.match(row["VRAM"])
    if not vram or count < 1:
        return "VRAM cell(s) not like '80 GB'"
    per_gpu = float(vram.group(1)) / count
    if per_gpu != int(per_gpu):
        return "VRAM cell(s) not a whole share per GPU"
    hourly = row["Price/hour"]
    fields = dict(gpu_label=kind.group(2), gpu_count=count, vram_gb=per_gpu, billing="on-demand",
                  tier="on-demand", reserved_term=None, region=None, currency="USD", price_unit="instance_hour",
                  sku=row["Instance Type"], availability=None)
    price = DOLLARS.match(hourly)
    if price:
        disagree = _disagrees(row.get("Price/second", ""), float(price.group(1)))
        if disagree:
            parsed.hold(disagree, price_raw=hourly, self_service=True, **fields)
        else:
            parsed.offer(price_raw=hourly, self_service=True, **fields)
    elif CONTACT.match(hourly):
        parsed.offer(price_raw=hourly, self_service=False, **fields)
    elif hourly.lower() in NOT_OFFERED:
        return None
    elif OTHER_UNIT.match(hourly):
        return f"Price/hour cell(s) not '$X' ({hourly!r})"
    else:
        parsed.hold(f"Price/hour cell unreadable: {hourly!r}", price_raw=hourly or None, self_service=True, **fields)
    return None


def _disagrees(per_second: str, hourly: float) -> str | None:
    """Why a row's printed per-second price does not agree with its hourly one (None if it does,
    or when the row prints none)."""
    m = DOLLARS.match(per_second)
    if not m:
        return None
    if abs(float(m.group(1)) * SECONDS_PER_HOUR - hourly) > AGREE * hourly:
        return f"Price/second {per_second!r} x 3600 disagrees with Price/hour ${hourly:g}"
    return None


class KoyebSpider(PriceSpider):
    name = "koyeb"
    allowed_domains = ["koyeb.com"]
    pricing_url = "https://koyeb.com/docs/reference/instances"
    family = "neocloud"
    unit = "USD per instance-hour (Price/hour; vCPU and RAM included)"
    capture = "composed"
    robots = ("unknown: no stored copy of koyeb.com/robots.txt found (searched the pages corpus 2026-12-02 "
              "for 'koyeb.com robots.txt'); robots.txt is obeyed at every crawl if served")
    terms = ("Koyeb Master Services Agreement (https://koyeb.com/docs/legal/msa, stored copy 'Koyeb Master "
             "Services Agreement - June, 28th 2024'): it 'governs the relationship between Koyeb ... and any "
             "person who has subscribed an account on the multi-cloud platform published by Koyeb'; the stored "
             "part says nothing of reading its public documentation. We read only the public instance "
             "reference page, once a day, with our contact User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_instances)

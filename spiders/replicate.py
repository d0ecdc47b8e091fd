"""Replicate: the hardware price table of its pricing page (replicate.com/pricing).

Replicate bills the hardware a model runs on by the second. Its pricing page holds one table
headed Hardware | Price | GPU | CPU | GPU RAM | RAM, one row per hardware: the name and its id
("Nvidia A100 (80GB) GPU" / ``gpu-a100-large``, "2x Nvidia A100 (80GB) GPU" / ``gpu-a100-large-2x``),
the price per second and per hour of the whole hardware ("$0.002800/sec" / "$10.08/hr"), then
"1x" GPUs, "10x" CPUs, "80GB" GPU RAM (all GPUs together) and RAM; a row "Additional hardware"
opens the H100 rows, whose four spec cells are one note: "Flux fine-tunes run on H100s;
additional H100 capacity is reserved for committed spend contracts." (captures/src/2026-12-02/
replicate/ says what of the capture is real: every cell's text; and composed: the markup). So:

- the table is found by its header (columns by name: Hardware, Price and GPU required, any column
  we do not know is a layout error; none is a layout error; copies are read once when identical
  and refused when they differ);
- the name gives the GPU and the count: ``[<n>x ]Nvidia <GPU> GPU``; a memory size in brackets
  stays in the label ("A100 (80GB)"), any other bracket is the hardware's size, its ``variant``
  ("A40 (Large)": label "A40", variant "Large"; gpu-a40-small has none); ``sku`` the id. The
  "CPU" row is not a GPU offer (fact ``cpu_only_hardware``); any other name is a layout error, as
  is a GPU cell that disagrees with the name's count;
- GPU RAM is the hardware's total ("160GB" on a 2x row): per GPU it is total / count, and must be
  a whole share, else the row's layout is wrong; the H100 rows print none (the catalog's);
- the price is the per-hour line of the Price cell, USD per instance-hour (price_unit
  ``instance_hour``, "$10.08/hr" as printed); the per-second line times 3600 must agree with it
  to 1 %, else that row is held, as is a cell without a readable "$X/hr" ("TBD", "€5.04/hr");
  "Contact sales" / "Contact us" is an offer without a public price; "—" / "N/A" no offer; a "$"
  amount per another unit ("$5.04/mo") fails the page;
- rows under "Additional hardware" are priced but not open to everyone (their capacity "is
  reserved for committed spend contracts"): tier ``additional hardware``, not self-service; the
  note is kept as the fact ``additional_hardware_note``. Another section title is a layout error.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of

COLUMNS = ("Hardware", "Price", "GPU", "CPU", "GPU RAM", "RAM")
REQUIRED = ("Hardware", "Price", "GPU")
NAME = re.compile(r"^(?:(\d+)x )?Nvidia (.+?)(?: \(([^)]+)\))? GPU$")
MEMORY = re.compile(r"^\d+\s*GB$")
COUNT = re.compile(r"^(\d+)x$")
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB$")
HOURLY = re.compile(r"^\$(\d+(?:\.\d+)?)/hr$")
PER_SECOND = re.compile(r"^\$(\d+(?:\.\d+)?)/sec$")
OTHER_UNIT = re.compile(r"^\$\d+(?:\.\d+)?\s*/\s*(?!sec$|hr$)\S+$")
CONTACT = re.compile(r"^contact (sales|us)$", re.I)
NOT_OFFERED = {"n/a", "na", "-", "—", "–"}
SECTIONS = {"Additional hardware": "additional hardware"}
SECONDS_PER_HOUR, AGREE = 3600, 0.01


def _headers(table) -> list[str]:
    return [text_of(th) for th in table.xpath("./thead/tr/th")]


def _cells(tr) -> list[list[str]]:
    """Each cell's lines (its <p> texts, or its whole text when it has none)."""
    out = []
    for td in tr.xpath("./td"):
        lines = [text_of(p) for p in td.xpath("./p")]
        out.append([line for line in lines if line] or [text_of(td)])
    return out


def parse_pricing(body: str, url: str) -> Parsed:
    """One offer per GPU row of the hardware table, per instance-hour."""
    parsed = Parsed()
    tables = [t for t in Selector(text=body).xpath("//table") if "Hardware" in _headers(t)]
    if not tables:
        parsed.error("no table with a Hardware column (the hardware price table)")
        return parsed
    table = parsed.one_copy(tables, "hardware tables", lambda t: (tuple(_headers(t)), tuple(
        tuple(map(tuple, _cells(tr))) for tr in t.xpath("./tbody/tr"))))
    if table is None:
        return parsed
    headers = _headers(table)
    if set(headers) - set(COLUMNS) or any(h not in headers for h in REQUIRED) or len(set(headers)) != len(headers):
        parsed.error(f"column headings are not {' | '.join(COLUMNS)} ({' | '.join(headers)!r})")
        return parsed
    problems: dict[str, list[str]] = {}
    section, cpu_only, notes = None, [], set()
    for tr in table.xpath("./tbody/tr"):
        cells = _cells(tr)
        if len(cells) == 1:
            title = " ".join(cells[0])
            if title not in SECTIONS:
                problems.setdefault("section row(s) we do not know", []).append(title)
            section = SECTIONS.get(title)
            continue
        name = cells[0][0] if cells else "?"
        if len(cells) == len(headers):
            row = {h: c for h, c in zip(headers, cells)}
        elif section and len(cells) == 3 and headers[:2] == ["Hardware", "Price"]:
            row = {"Hardware": cells[0], "Price": cells[1]}   # the note stands for the spec cells
            notes.add(" ".join(cells[2]))
        else:
            problems.setdefault(f"row(s) with {len(cells)} cells under {len(headers)} columns", []).append(name)
            continue
        if name == "CPU":
            cpu_only.append(row["Hardware"][-1])
            continue
        problem = _row(parsed, row, section)
        if problem:
            problems.setdefault(problem, []).append(name)
    parsed.errors_by_problem("hardware table", problems)
    if cpu_only:
        parsed.facts.append({"fact": "cpu_only_hardware", "value_num": len(cpu_only), "value_text": ", ".join(cpu_only)})
    for note in sorted(notes):
        parsed.facts.append({"fact": "additional_hardware_note", "value_num": None, "value_text": note})
    if not parsed.offers and not parsed.errors:
        parsed.error("no GPU offer in the hardware table")
    return parsed


def _row(parsed: Parsed, row: dict[str, list[str]], section: str | None) -> str | None:
    """Adds the row's offer (or holds it); a layout problem of the row is returned instead."""
    hardware = row["Hardware"]
    kind = NAME.match(hardware[0])
    if not kind or len(hardware) != 2:
        return "hardware name(s) not like '[<n>x ]Nvidia <GPU> GPU' with an id"
    count = int(kind.group(1) or 1)
    label, bracket = kind.group(2), kind.group(3)
    variant = None
    if bracket and MEMORY.match(bracket):
        label = f"{label} ({bracket})"
    elif bracket:
        variant = bracket
    if "GPU" in row:
        stated = COUNT.match(" ".join(row["GPU"]))
        if not stated or int(stated.group(1)) != count:
            return "GPU cell(s) disagree with the hardware name's count"
    vram = None
    if "GPU RAM" in row:
        m = VRAM.match(" ".join(row["GPU RAM"]))
        if not m or float(m.group(1)) / count != int(float(m.group(1)) / count):
            return "GPU RAM cell(s) not a whole share per GPU like '160GB'"
        vram = float(m.group(1)) / count
    fields = dict(gpu_label=label, gpu_count=count, vram_gb=vram, variant=variant, billing="on-demand",
                  tier=section or "on-demand", reserved_term=None, region=None, currency="USD",
                  price_unit="instance_hour", sku=hardware[1], availability=None)
    self_service = section is None
    lines = row["Price"]
    hourly = next((line for line in lines if HOURLY.match(line)), None)
    if hourly:
        disagree = _disagrees(lines, float(HOURLY.match(hourly).group(1)))
        if disagree:
            parsed.hold(disagree, price_raw=hourly, self_service=self_service, **fields)
        else:
            parsed.offer(price_raw=hourly, self_service=self_service, **fields)
        return None
    text = " ".join(lines)
    if CONTACT.match(text):
        parsed.offer(price_raw=text, self_service=False, **fields)
    elif text.lower() in NOT_OFFERED:
        return None
    elif any(OTHER_UNIT.match(line) for line in lines):
        return f"Price cell(s) not '$X/sec' and '$X/hr' ({text!r})"
    else:
        parsed.hold(f"Price cell unreadable: {text!r}", price_raw=text or None, self_service=self_service, **fields)
    return None


def _disagrees(lines: list[str], hourly: float) -> str | None:
    """Why a row's printed per-second price does not agree with its hourly one (None if it does,
    or when the row prints none)."""
    per_second = next((PER_SECOND.match(line) for line in lines if PER_SECOND.match(line)), None)
    if per_second and abs(float(per_second.group(1)) * SECONDS_PER_HOUR - hourly) > AGREE * hourly:
        return f"{per_second.group(0)!r} x 3600 disagrees with ${hourly:g}/hr"
    return None


class ReplicateSpider(PriceSpider):
    name = "replicate"
    allowed_domains = ["replicate.com"]
    pricing_url = "https://replicate.com/pricing"
    family = "neocloud"
    unit = "USD per instance-hour (the '$X/hr' line; billed by the second, '$X/sec' checked)"
    capture = "composed"
    robots = ("unknown: no stored copy of replicate.com/robots.txt found (searched the pages corpus 2026-12-02 "
              "for Replicate's robots.txt); robots.txt is obeyed at every crawl if served")
    terms = ("Terms of service on automated collection: no stored copy of Replicate's terms found (searched the "
             "pages corpus 2026-12-02 for 'Replicate terms of service scrape automated means crawler': only "
             "other sites' terms). We read only the public pricing page, once a day, with our contact "
             "User-Agent and robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_pricing)

"""Jarvislabs: the pricing page, rendered in Chromium because its spot and term prices load by script.

The table ``table#gpu-pricing`` has one row per GPU and region (``data-gpu-type`` is the
backend's gpu_type, our ``sku``; ``data-region`` its region id) with the on-demand price per
GPU-hour printed in the page ("Prices are per GPU per hour", cells "$3.49/hr"). The page's
script fetches ``/misc/server_meta`` from the backend and fills the spot cell and one cell per
commitment term (columns ``th[data-term]``, header text "1 month"), then marks the table
``data-live-prices="loaded"`` (or ``"error"`` with ``data-live-error``). A spot or term cell
reading "—" means that tier is not offered for the GPU; a term may read "Contact sales" (an
unpriced offer, not self-service). A price cell reading anything else ("€4.59/hr", "$2513/mo",
a struck-through price alone) holds that offer (spiders/base.py Parsed.hold); the other cells load.

:func:`parse_rendered` reads the rendered DOM (what the browser shows once the script ran).
The spider points on-demand offers to the page's record and spot/term offers to the
server_meta record the script loaded (see spiders/playwright_replay.py).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from parsel import Selector

from spiders.base import Parsed, PriceSpider, text_of
from spiders.playwright_replay import BROWSER_SETTINGS, browser_request

PRICE_DATA_PATH = "/misc/server_meta"
WAIT_FOR = "#gpu-pricing[data-live-prices]"
# The page's own unit statement; every price cell is "$<amount>/hr".
UNIT_STATEMENT = re.compile(r"prices are per GPU per hour", re.I)
PRICE = re.compile(r"^\$\d+(?:\.\d+)?/hr$")
UNPRICED = re.compile(r"^contact sales$", re.I)
NOT_OFFERED = {"—", "–", "-", "N/A"}  # the tier is not offered for this GPU
VRAM = re.compile(r"^(\d+(?:\.\d+)?)\s*GB$", re.I)
TERM = re.compile(r"^\d+\s+(?:months?|years?)$", re.I)
# Header text of the columns the parser reads (the term columns are th[data-term]).
GPU, VRAM_COL, REGION, ON_DEMAND, SPOT = "GPU", "vRAM", "Region", "On-demand", "Spot"
REQUIRED = (GPU, VRAM_COL, ON_DEMAND, SPOT)


def parse_rendered(html: str, url: str) -> Parsed:
    """Offers of the rendered pricing page: on-demand from the page's own HTML, spot and terms
    as the page's script filled them in. One layout error per distinct problem."""
    parsed = Parsed()
    sel = Selector(text=html)
    table = sel.css("table#gpu-pricing")
    if not table:
        parsed.error(f"{url}: no table#gpu-pricing (the GPU price table)")
        return parsed
    table = table[0]
    page_text = " ".join(sel.xpath("//body//text()[not(ancestor::script) and not(ancestor::style)]").getall())
    if not UNIT_STATEMENT.search(" ".join(page_text.split())):
        parsed.error(f"{url}: the page no longer says 'Prices are per GPU per hour' (price unit unknown)")
        return parsed

    headers = [text_of(th) for th in table.css("thead th")]
    missing = [name for name in REQUIRED if name not in headers]
    if missing:
        parsed.error(f"{url}: table#gpu-pricing has no {', '.join(repr(m) for m in missing)} column "
                     f"(headers: {', '.join(headers) or 'none'})")
        if GPU in missing or ON_DEMAND in missing:
            return parsed
    col = {name: headers.index(name) for name in (GPU, VRAM_COL, REGION, ON_DEMAND, SPOT) if name in headers}
    terms = {i: (th.attrib["data-term"], text_of(th)) for i, th in enumerate(table.css("thead th"))
             if "data-term" in th.attrib}
    bad_terms = [label for _, label in terms.values() if not TERM.match(label)]
    if bad_terms:
        parsed.error(f"{url}: term column(s) {', '.join(map(repr, bad_terms))} are not a commitment term")
        terms = {i: t for i, t in terms.items() if TERM.match(t[1])}

    rows = table.css("tbody tr")
    if not rows:
        parsed.error(f"{url}: table#gpu-pricing has no rows")
        return parsed

    state = table.attrib.get("data-live-prices")
    script_ok = state == "loaded"
    if not script_ok:
        why = table.attrib.get("data-live-error") or "the page's script never finished"
        parsed.error(f"{url}: spot and term prices were not filled in by the page's script "
                     f"(data-live-prices={state!r}: {why}); they load from {PRICE_DATA_PATH}")

    unread: list[str] = []     # vRAM and term cells that cannot be read (a price cell holds its offer)
    unfilled: list[str] = []   # script cells still empty after the script finished
    misshapen: set[int] = set()  # cell counts of rows that do not match the header
    for row in rows:
        cells = row.css("td")
        if len(cells) != len(headers):
            misshapen.add(len(cells))
            continue
        cell = {i: text_of(td) for i, td in enumerate(cells)}
        label = cell[col[GPU]]
        vram = None
        if VRAM_COL in col:
            m = VRAM.match(cell[col[VRAM_COL]])
            if m:
                vram = float(m[1])
            else:
                unread.append(f"{label} vRAM {cell[col[VRAM_COL]]!r}")
        region = row.attrib.get("data-region") or (cell[col[REGION]] if REGION in col else None)
        common = dict(gpu_label=label, gpu_count=1, vram_gb=vram, sku=row.attrib.get("data-gpu-type"),
                      region=region, currency="USD", price_unit="gpu_hour")

        def priced(printed: str, what: str, **fields) -> None:
            if printed in NOT_OFFERED:
                return
            if UNPRICED.match(printed):
                parsed.offer(**common, **fields, price_raw=printed, self_service=False)
            elif PRICE.match(printed):
                parsed.offer(**common, **fields, price_raw=printed)
            elif not printed:
                unfilled.append(f"{label} {what}")
            else:   # one cell that cannot be read: its offer is held, the other cells load
                parsed.hold(f"{what} price cell unreadable: {printed!r} (not '$x.xx/hr', 'Contact sales' or '—')",
                            **common, **fields, price_raw=printed)

        priced(cell[col[ON_DEMAND]], ON_DEMAND, billing="on-demand", tier="on-demand",
               availability=row.attrib.get("data-free"))
        if not script_ok:
            continue
        if SPOT in col:
            priced(cell[col[SPOT]], SPOT, billing="spot", tier="spot",
                   availability=cells[col[SPOT]].attrib.get("data-free"))
        for i, (term_id, term) in terms.items():
            if cells[i].attrib.get("data-term", term_id) != term_id:
                unread.append(f"{label} {term} (cell of term {cells[i].attrib['data-term']!r})")
                continue
            priced(cell[i], term, billing="reserved", tier="reserved", reserved_term=term)

    if misshapen:
        parsed.error(f"{url}: table#gpu-pricing rows have {'/'.join(map(str, sorted(misshapen)))} cells "
                     f"for {len(headers)} column headers (rows not read)")
    if unfilled:
        parsed.error(f"{url}: {len(unfilled)} spot/term cell(s) still empty after the page's script: "
                     f"{', '.join(unfilled[:3])}{' ...' if len(unfilled) > 3 else ''}")
    if unread:
        parsed.error(f"{url}: {len(unread)} cell(s) not read as '$x.xx/hr', 'Contact sales' or '—': "
                     f"{', '.join(unread[:3])}{' ...' if len(unread) > 3 else ''}")
    return parsed


class JarvislabsSpider(PriceSpider):
    name = "jarvislabs"
    allowed_domains = ["jarvislabs.ai", "jarvislabs.net"]
    family = "neocloud"
    robots = ("no stored copy of jarvislabs.ai/robots.txt found (searched the pages corpus 2026-12-02; it "
              "cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of Jarvislabs' terms found (searched the pages corpus 2026-12-02 for 'Jarvislabs "
             "terms of service'; only other 'Jarvis' products' terms came back). We read the public pricing "
             "page rendered in Chromium, once a day, no login.")
    cadence = "daily"
    unit = "USD per GPU-hour"
    capture = "composed"
    custom_settings = BROWSER_SETTINGS
    pricing_url = "https://jarvislabs.ai/pricing"

    def __init__(self, *args, pricing_url: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if pricing_url:
            self.pricing_url = pricing_url

    async def start(self):
        yield browser_request(self.pricing_url, self.parse, self.request_failed, wait_for=WAIT_FOR)

    def parse(self, response):
        parsed = parse_rendered(response.text, response.url)
        data_ref = next((ref for url, ref in response.meta.get("browser_captures", {}).items()
                         if urlsplit(url).path == PRICE_DATA_PATH), None)
        from_script = [o for o in parsed.offers if o["billing"] != "on-demand"]
        if from_script and data_ref is None:
            # Prices the script showed without the browser having loaded their source: no evidence.
            parsed.error(f"{response.url}: the page shows script-loaded prices but the browser "
                         f"loaded no {PRICE_DATA_PATH}")
            parsed.offers = [o for o in parsed.offers if o["billing"] == "on-demand"]
        for offer in from_script:
            offer["capture"] = data_ref
        yield from self.emit(parsed)

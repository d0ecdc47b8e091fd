"""Hetzner: the dedicated GPU servers (GEX line) in the website's own price feed,
www.hetzner.com/_resources/app/data/app/live_data_prices.json.

The GPU matrix page (hetzner.com/dedicated-rootserver/matrix-gpu/) prints no amount: each price
cell is a ``<ho-price-container product-key="ROBOT_1768">`` web component filled from that feed
(public readers' notes in the search tool's code corpus, 2026-09/10, say so). The feed is one
object ``{"products": {<product key>: {"locations": [{"countryCode", "datacenter", "active",
"prices": {...}}]}}}`` (the shape a public test fixture quotes). On 2026-10-08 a reader of the feed
noted, per key: GEX45 (ROBOT_1768) EUR 212.30 a month, EUR 0.3402 an hour, setup EUR 209; GEX63
(ROBOT_1767) EUR 997.30 / 1.5982 / 999; GEX131 (ROBOT_1747) EUR 1,497.30 / 2.3995 / 1,499 (net, ex
VAT). captures/src/2026-10-08/hetzner/ says what of the capture is real and what composed. So:

- our three product keys name the server, its GPU and VRAM (from the matrix page as the note
  read it: GEX45 "RTX PRO 4000 Blackwell SFF, 24GB", GEX63 and GEX131 "RTX PRO 6000 Blackwell
  Max-Q, 96GB"); one of them gone from the feed is a layout error (a new key is not read: the
  feed prices every Hetzner product and names none);
- one offer per server and datacenter (``region`` HEL1, FSN1, NBG1) whose location is active;
  an inactive location is no offer; a server with no active location is a layout error;
- the price is the feed's hourly EUR figure (``prices.hourly.EUR``, price_unit ``instance_hour``,
  the whole server, billing ``on-demand``: billed by the hour up to the monthly price); a server
  whose hourly figure is missing or unreadable is held (its monthly price is never divided into
  hours); a feed that states USD only is not read as EUR;
- the monthly cap (``prices.monthly.EUR``) and the one-off setup fee (``prices.setup.EUR``) are
  source facts ``monthly_eur/<server>`` and ``setup_fee_eur/<server>``, never added to a price.
"""

from __future__ import annotations

from spiders.base import Parsed, PriceSpider, json_member, json_price, load_json

#: product key -> (server, GPU label, VRAM per GPU), as the GPU matrix page names them.
PRODUCTS = {
    "ROBOT_1768": ("GEX45", "RTX PRO 4000 Blackwell SFF", 24),
    "ROBOT_1767": ("GEX63", "RTX PRO 6000 Blackwell Max-Q", 96),
    "ROBOT_1747": ("GEX131", "RTX PRO 6000 Blackwell Max-Q", 96),
}


def parse_prices(body: str, url: str) -> Parsed:
    """One offer per GEX server and active datacenter, EUR per server-hour."""
    parsed = Parsed()
    document = load_json(body, "live_data_prices.json", parsed)
    products = json_member(document, "products", dict, "live_data_prices.json", parsed) if document is not None else None
    if products is None:
        return parsed
    gone = [f"{PRODUCTS[k][0]} ({k})" for k in PRODUCTS if k not in products]
    if gone:
        parsed.error(f"product key(s) no longer in the feed: {', '.join(gone)}")
    problems: dict[str, list[str]] = {}
    for key, (server, gpu, vram) in PRODUCTS.items():
        if key not in products:
            continue
        problem = _product(parsed, products[key], server, gpu, vram)
        if problem:
            problems.setdefault(problem, []).append(server)
    parsed.errors_by_problem("live_data_prices.json", problems)
    return parsed


def _product(parsed: Parsed, product, server: str, gpu: str, vram: int) -> str | None:
    """Adds the server's offers (one per active location) and facts; a layout problem is returned."""
    locations = product.get("locations") if isinstance(product, dict) else None
    if not isinstance(locations, list) or not all(isinstance(loc, dict) for loc in locations):
        return "product(s) without a 'locations' list"
    active = [loc for loc in locations if loc.get("active") is True]
    if not active:
        return "product(s) with no active location"
    facts: dict[str, set] = {"monthly_eur": set(), "setup_fee_eur": set()}
    for loc in active:
        prices = loc.get("prices")
        centre = loc.get("datacenter")
        if not isinstance(prices, dict) or not isinstance(centre, str) or not centre:
            return "location(s) without a 'datacenter' and a 'prices' object"
        fields = dict(gpu_label=gpu, gpu_count=1, vram_gb=vram, billing="on-demand", tier="dedicated server",
                      reserved_term=None, region=centre, currency="EUR", price_unit="instance_hour",
                      sku=server, availability=None, self_service=True)
        hourly = prices.get("hourly")
        raw = hourly.get("EUR") if isinstance(hourly, dict) else None
        price, why = json_price(raw, "EUR")
        if why:
            stated = "no hourly EUR price" if raw is None else f"hourly EUR price unreadable: {raw!r}"
            parsed.hold(f"{server} in {centre}: {stated}", price_raw=None if raw is None else str(raw), **fields)
        else:
            parsed.offer(price_raw=price, **fields)
        for fact, name in (("monthly_eur", "monthly"), ("setup_fee_eur", "setup")):
            amount = prices.get(name, {}).get("EUR") if isinstance(prices.get(name), dict) else None
            value, bad = json_price(amount, "EUR")
            if not bad:
                facts[fact].add((float(value), centre))
    for fact, seen in facts.items():
        for value in sorted({v for v, _ in seen}):
            centres = sorted(c for v, c in seen if v == value)
            parsed.facts.append({"fact": f"{fact}/{server}", "value_num": value,
                                 "value_text": f"EUR {value:.2f} net in {', '.join(centres)}"})
    return None


class HetznerSpider(PriceSpider):
    name = "hetzner"
    allowed_domains = ["www.hetzner.com"]
    pricing_url = "https://www.hetzner.com/_resources/app/data/app/live_data_prices.json"
    family = "neocloud"
    unit = "EUR per server-hour, net of VAT (the feed's hourly price; monthly cap and setup fee are facts)"
    capture = "composed"
    robots = ("unknown: no stored copy of www.hetzner.com/robots.txt found (searched the pages corpus "
              "2026-12-02 for 'hetzner.com robots.txt'); robots.txt is obeyed at every crawl if served")
    terms = ("Hetzner's customer Terms and Conditions (https://www.hetzner.com/legal/terms-and-conditions, named by "
             "its stored Digital Services Act page, undated) were not found stored; the stored service agreements "
             "(hetzner.com/legal/webhosting/, /legal/managed-server/, undated) govern customers' accounts and say "
             "nothing of reading the website. The feed is the public file Hetzner's own pricing pages load in "
             "every visitor's browser; we read that one file once a day, with our contact User-Agent and "
             "robots.txt obeyed.")
    cadence = "daily"

    page_parser = staticmethod(parse_prices)

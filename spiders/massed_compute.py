"""Massed Compute: the public pricing page, read from its server-rendered Next.js flight data.

The page streams React Server Components as ``self.__next_f.push([1,"..."])`` strings. Each
offer is a React element whose key is ``"<GPU label>-x <count>-<n>"`` (the mobile card:
``"<GPU label>-mobile-x <count>-<n>"``); its price is a string inside that element, with
RSC's escape for a literal dollar: ``"$$43.46"``. Prices are per instance-hour.
Every offer is printed twice (mobile card + desktop row); the duplicate pipeline folds them.
"""

from __future__ import annotations

import json
import re

from spiders.base import PriceSpider
from spiders.items import OfferItem

PUSH = re.compile(r'self\.__next_f\.push\(\[1,("(?:[^"\\]|\\.)*")\]\)')
ROW_KEY = re.compile(r"^(?P<label>.+?)(?P<mobile>-mobile)?-x (?P<count>\d+)-(?P<index>\d+)$")
LINE = re.compile(r"^([0-9a-f]+):(.*)$")
RSC_REFERENCE = re.compile(r"^\$[A-Za-z@]?[0-9a-f]+$")  # "$L2f", "$@3", "$5": chunks sent elsewhere


def flight_stream(html: str) -> str:
    return "".join(json.loads(s) for s in PUSH.findall(html))


def flight_rows(stream: str):
    """Parsed JSON payload of each flight line (module and hint lines are skipped)."""
    for line in stream.split("\n"):
        m = LINE.match(line)
        if not m or not m.group(2)[:1] in "[{":
            continue
        try:
            yield json.loads(m.group(2))
        except json.JSONDecodeError:
            continue


def keyed_elements(node):
    """Every React element ``["$", type, key, props]`` whose key looks like an offer row."""
    if isinstance(node, list):
        if len(node) == 4 and node[0] == "$" and isinstance(node[2], str) and ROW_KEY.match(node[2]):
            yield node
            return  # a row's own subtree holds no further rows
        for child in node:
            yield from keyed_elements(child)
    elif isinstance(node, dict):
        for child in node.values():
            yield from keyed_elements(child)


def strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for c in node:
            yield from strings(c)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k not in ("className", "href", "id"):
                yield from strings(v)


def row_price(element) -> str | None:
    """The row's own price text, RSC-unescaped; a reference or "Contact us" when no number."""
    texts = list(strings(element[3]))
    for t in texts:
        if t.startswith("$$") and re.match(r"^\$\$\s*\d", t):
            return t[1:]  # "$$43.46" -> "$43.46"
    for t in texts:
        if RSC_REFERENCE.match(t) and t != "$L12":
            return f"{t} (unresolved RSC reference)"
    for t in texts:
        if "contact" in t.lower() or t.strip() in ("—", "-", "N/A"):
            return t
    return None


class MassedComputeSpider(PriceSpider):
    name = "massed_compute"
    allowed_domains = ["vm.massedcompute.com", "massedcompute.com"]
    pricing_url = "https://vm.massedcompute.com/pricing"

    def parse(self, response):
        stream = flight_stream(response.text)
        if not stream:
            self.layout_error(f"{response.url}: no Next.js flight data (self.__next_f.push) in the page")
            return
        seen_keys: dict[tuple[str, int], set[str]] = {}
        found = 0
        for payload in flight_rows(stream):
            for element in keyed_elements(payload):
                m = ROW_KEY.match(element[2])
                label, count, index = m["label"], int(m["count"]), m["index"]
                price = row_price(element)
                found += 1
                # Distinct configurations of one GPU/count are told apart by the row index.
                indexes = seen_keys.setdefault((label, count), set())
                indexes.add(index)
                key = f"{label} x{count}" + (f" #{index}" if len(indexes) > 1 and index != min(indexes) else "")
                yield OfferItem(
                    provider=self.name, offer_key=key, gpu_label=label, gpu_count=count,
                    billing="on-demand", tier="on-demand", region=None, currency="USD",
                    price_raw=price, price_unit="instance_hour", availability=None,
                )
        if not found:
            self.layout_error(
                f"{response.url}: flight data has no offer rows keyed '<GPU>-x <count>-<n>'")

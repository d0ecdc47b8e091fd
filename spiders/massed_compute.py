"""Massed Compute: the public pricing page, read from its server-rendered Next.js flight data.

The page streams React Server Components as ``self.__next_f.push([1,"..."])`` strings; joined,
they are the flight stream: lines ``<hex id>:<payload>``. Each offer is a React element keyed
``"<GPU label>-x <count>-<n>"`` (the desktop table row) and again ``"<GPU label>-mobile-x
<count>-<n>"`` (the mobile card). Its price is a string inside that element with RSC's escape
for a literal dollar (``"$$43.46"``), followed by ``"/hr"``: USD per instance-hour for the row's
quantity (``×8``). No per-GPU price is printed.

A row's cells are often not inline: React defers them to later chunks, and the row only holds
a reference string (``"$L2f"``, ``"$2f"``, ``"$@2f"``) to the flight line ``2f:<json>``. A row's
price is read from the row's own content *with its references resolved*; it is never taken
from whatever text happens to follow the row in the stream (a deferred chunk of another row
can sit there). A reference that resolves to a module line (``13:I[...]``) is a client
component (a link, a layout wrapper), not content; so is an element's type (``["$", "$L13",
...]``). A reference to a chunk the document does not contain is unresolved: that copy of the
row says nothing, and the row's other copy (mobile vs desktop) must carry the price.

A copy of a row whose price cannot be read (another currency, two prices, a unit other than
"/hr", only a struck-through price, a badge that is not the row's quantity, no price at all)
holds that row (spiders/base.py Parsed.hold: kept unpriced with the text printed); the other
rows load. A row whose every copy is deferred to chunks the document lacks is an incomplete
page, a layout error.

Labels print memory in parentheses ("H100 (80GB)") and some carry a configuration suffix
("[ALT Config]", "[Premium]", "NVLink"): the suffix goes to ``variant`` (so those offers keep
distinct keys) and ``gpu_label`` is the GPU as printed without it, which the catalog resolves.
"""

from __future__ import annotations

import json
import re

from spiders.base import (
    STRICT_JSON,
    STRUCK_CLASSES,
    STRUCK_ONLY,
    Parsed,
    PriceSpider,
    no_duplicate_keys,
)
from spiders.nextjs import flight_strings

# A row element's key, then its props object: "H100 (80GB)-mobile-x 8-3",{...}
ROW_KEY = re.compile(r'"(?P<label>[^"\\]+?)(?P<mobile>-mobile)?-x (?P<count>\d+)-(?P<index>\d+)",(?=\{)')
FLIGHT_LINE = re.compile(rb"([0-9a-f]+):")
REFERENCE = re.compile(r"^\$[L@]?(?P<id>[0-9a-f]+)$")  # "$L2f", "$@2f", "$2f"
PRICE = re.compile(r"^\$\s*(?P<amount>\d[\d,]*(?:\.\d+)?)$")  # after RSC unescaping "$$" -> "$"
UNPRICED = re.compile(r"^(request|contact us|contact sales)$", re.IGNORECASE)
FOREIGN_PRICE = re.compile(r"^(?:[€£¥₹]|EUR|GBP|JPY|INR)\s*\d[\d,]*(?:\.\d+)?$")  # not the page's "$"
UNIT = "/hr"
VRAM = re.compile(r"\((?P<gb>\d+(?:\.\d+)?)\s*GB\)", re.IGNORECASE)
SUFFIX = re.compile(r"^(?P<base>.+?)\s+(?:\[(?P<bracket>[^\]]+)\]|(?P<word>NVLink))$")
SKIPPED_PROPS = {"className", "style", "href", "src", "id"}
MAX_DEPTH = 40
STRUCK_TAGS = {"s", "del", "strike"}


class Struck(str):
    """Text inside struck-through markup (``["$","s",...]``, a ``line-through`` class): a "was"
    price, never read as the price."""


def _struck(element_type: str, props) -> bool:
    if element_type in STRUCK_TAGS:
        return True
    if not isinstance(props, dict):
        return False
    cls = props.get("className")
    style = props.get("style")
    decoration = " ".join(str(style.get(k, "")) for k in ("textDecoration", "textDecorationLine")) \
        if isinstance(style, dict) else str(style or "")
    return (isinstance(cls, str) and any(c in cls for c in STRUCK_CLASSES)) or "line-through" in decoration.lower()


def flight_stream(html: str) -> str:
    """The RSC flight stream: every ``self.__next_f.push([1, "..."])`` string, joined."""
    return "".join(flight_strings(html)[0])


def flight_chunks(stream: str) -> dict[str, str]:
    """Payload text of each flight line ``<hex>:<payload>`` (a text line ``<hex>:T<len>,<text>``
    is read by its byte length, since it may hold newlines, and kept as a JSON string). Text that is not at a line
    start (an excerpt's spliced fragment) is not a chunk."""
    data = stream.encode("utf-8")
    chunks: dict[str, str] = {}
    pos = 0
    while pos < len(data):
        m = FLIGHT_LINE.match(data, pos)
        if m:
            start = m.end()
            t = re.match(rb"T([0-9a-f]+),", data[start:start + 20])
            if t:
                end = start + t.end() + int(t.group(1), 16)
                text = data[start + t.end():end].decode("utf-8", "replace")
                chunks[m.group(1).decode()] = json.dumps(text)  # a string, read like any JSON chunk
                pos = end
                continue
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            chunks[m.group(1).decode()] = data[start:end].decode("utf-8", "replace")
            pos = end + 1
            continue
        nl = data.find(b"\n", pos)
        pos = len(data) if nl < 0 else nl + 1
    return chunks


class _Reader:
    """The texts of a row in reading order, RSC references resolved against the stream."""

    def __init__(self, chunks: dict[str, str]):
        self.chunks = chunks
        self._decoded: dict[str, object] = {}
        self.duplicated: dict[str, str] = {}   # flight line -> "duplicate key(s) 'x'"

    def _chunk(self, cid: str):
        """("content", value) | ("component", None) | ("missing", None)."""
        if cid not in self.chunks:
            return "missing", None
        payload = self.chunks[cid]
        if payload.startswith("I"):  # a client module: a component used for layout
            return "component", None
        if cid not in self._decoded:
            try:
                self._decoded[cid] = json.loads(payload, object_pairs_hook=no_duplicate_keys)
            except json.JSONDecodeError:
                self._decoded[cid] = None  # hints, errors: no row content
            except ValueError as exc:      # an object naming a key twice: not content we can read
                self.duplicated[cid] = str(exc)
                self._decoded[cid] = None
        value = self._decoded[cid]
        return ("content", value) if value is not None else ("component", None)

    def texts(self, node, unresolved: list[str], seen: frozenset = frozenset(), depth: int = 0,
              struck: bool = False):
        if depth > MAX_DEPTH:
            return
        if isinstance(node, str):
            ref = REFERENCE.match(node)
            if ref:
                cid = ref["id"]
                kind, value = self._chunk(cid)
                if kind == "missing":
                    unresolved.append(node)
                elif kind == "content" and cid not in seen:
                    yield from self.texts(value, unresolved, seen | {cid}, depth + 1, struck)
                return
            text = node[1:] if node.startswith("$$") else node
            yield Struck(text) if struck else text
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            yield Struck(node) if struck else str(node)
        elif isinstance(node, list):
            if len(node) >= 4 and node[0] == "$" and isinstance(node[1], str):
                # A React element ["$", type, key, props]: the type ("div", "$L13") is not content.
                yield from self.texts(node[3], unresolved, seen, depth + 1, struck or _struck(node[1], node[3]))
                return
            for child in node:
                yield from self.texts(child, unresolved, seen, depth + 1, struck)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k not in SKIPPED_PROPS:
                    yield from self.texts(v, unresolved, seen, depth + 1, struck)


def split_label(printed: str) -> tuple[str, str | None, float | None]:
    """(GPU label without its configuration suffix, the suffix, VRAM in GB if printed)."""
    m = SUFFIX.match(printed)
    base, variant = (m["base"], m["bracket"] or m["word"]) if m else (printed, None)
    vram = VRAM.search(base)
    return base, variant, float(vram["gb"]) if vram else None


def read_copy(texts: list[str]) -> dict:
    """What one copy of a row says: its prices (with the unit text after each), its unpriced
    text ("Request"), the quantity on its "×" badge, and any struck-through ("was") price, which
    is not read."""
    was = [t.strip() for t in texts if isinstance(t, Struck) and PRICE.match(t.strip())]
    texts = [t for t in texts if not isinstance(t, Struck)]
    prices, units, unpriced, badge, foreign = [], [], None, None, []
    for i, t in enumerate(texts):
        s = t.strip()
        nxt = texts[i + 1].strip() if i + 1 < len(texts) else ""
        if PRICE.match(s):
            prices.append(s)
            units.append(nxt)
        elif FOREIGN_PRICE.match(s):
            foreign.append(s)
        elif UNPRICED.match(s) and unpriced is None:
            unpriced = s
        elif s == "×" and nxt.isdigit() and badge is None:
            badge = int(nxt)
    return {"prices": prices, "units": units, "unpriced": unpriced, "badge": badge, "struck": was,
            "foreign": foreign}


def _unreadable(copy: dict) -> tuple[str | None, str | None]:
    """(why, the text printed) when one copy of a row has a price that cannot be read: a quantity
    badge that is not the row's, a price in another currency, two prices, a unit that is not
    "/hr", only a struck-through price, or neither a price nor "Request"; (None, None) else."""
    if copy["badge"] is not None and copy["badge"] != copy.get("count", copy["badge"]):
        return f"quantity badge ×{copy['badge']} differs from the row key's {copy['count']}", \
            (copy["prices"] or [None])[0]
    if copy["foreign"]:
        return f"price in another currency ({copy['foreign'][0]!r}), the page was USD '$'", copy["foreign"][0]
    if len(set(copy["prices"])) > 1:
        return f"several prices in one row ({', '.join(copy['prices'][:3])})", " ".join(copy["prices"])
    if copy["prices"] and copy["units"][0] != UNIT:
        return f"price unit {copy['units'][0]!r}, not {UNIT!r}", copy["prices"][0] + copy["units"][0]
    if not copy["prices"] and not copy["unpriced"]:
        if copy["struck"]:
            return (f"only a struck-through price ({copy['struck'][0]!r}), no current one",
                    STRUCK_ONLY + copy["struck"][0])
        if not copy["unresolved"]:
            return "no price ('$$<amount>' + '/hr') and no 'Request'", None
    return None, None


def parse_pricing(text: str, url: str) -> Parsed:
    """Offers of the pricing page (``vm.massedcompute.com/pricing``) from its flight data."""
    parsed = Parsed()
    stream = flight_stream(text)
    if not stream:
        parsed.error(f"{url}: no Next.js flight data (self.__next_f.push) in the page")
        return parsed
    reader = _Reader(flight_chunks(stream))
    decoder = STRICT_JSON
    problems: dict[str, list[str]] = {}  # problem -> row keys (one message per distinct problem)
    rows: dict[tuple[str, int, str], list[tuple[str, dict, list[str]]]] = {}
    for m in ROW_KEY.finditer(stream):
        row = m.group(0)[1:-2]
        try:
            props, _ = decoder.raw_decode(stream, m.end())
        except json.JSONDecodeError:
            problems.setdefault("row element is not readable flight JSON", []).append(row)
            continue
        except ValueError as exc:   # a key printed twice: which of its values is the row's?
            problems.setdefault(f"row element names a key twice ({exc})", []).append(row)
            continue
        unresolved: list[str] = []
        before = set(reader.duplicated)
        texts = list(reader.texts(props, unresolved))
        for cid in sorted(set(reader.duplicated) - before):
            problems.setdefault(f"flight line {cid} names a key twice ({reader.duplicated[cid]})", []).append(row)
        copy = {**read_copy(texts), "count": int(m["count"]), "unresolved": unresolved}
        rows.setdefault((m["label"], int(m["count"]), m["index"]), []).append((row, copy, unresolved))
    if not rows:
        parsed.error(f"{url}: flight data has no offer rows keyed '<GPU>-x <count>-<n>'")
        return parsed

    for (printed, count, index), copies in rows.items():
        label, variant, vram = split_label(printed)
        readings, held = [], None  # held: (why, text printed) of a copy whose price cannot be read
        for row, copy, unresolved in copies:
            why, text = _unreadable(copy)
            if why:
                held = held or (why, text)
                continue
            if copy["prices"]:
                readings.append((copy["prices"][0], True))
            elif copy["unpriced"]:
                readings.append((copy["unpriced"], False))
            # else: this copy's cells are in chunks the document does not hold; the other copy speaks.
        offer = dict(gpu_label=label, gpu_count=count, billing="on-demand", tier="on-demand",
                     currency="USD", price_unit="instance_hour")
        if variant:
            offer["variant"] = variant
        if vram:
            offer["vram_gb"] = vram
        if held:
            # One copy of the row cannot be read: the row is held (whatever its other copy says),
            # the other rows load.
            parsed.hold(held[0], **offer, price_raw=held[1])
            continue
        if not readings:
            # every copy is deferred to chunks that are not in the document: an incomplete page
            missing = sorted({r for _, _, unresolved in copies for r in unresolved})
            problems.setdefault("price only in RSC chunks the page does not contain", []).append(
                f"{printed}-x {count}-{index} ({', '.join(missing[:4])})")
            continue
        for price_raw, priced in readings:
            fields = dict(offer, price_raw=price_raw)
            if not priced:
                fields["self_service"] = False  # "Request" + a Contact button, no Deploy
            parsed.offer(**fields)
    for problem, keys in problems.items():  # the problem first: a long message is cut at its end
        more = f" (+{len(keys) - 1} more)" if len(keys) > 1 else ""
        parsed.error(f"{problem}: row {keys[0]!r}{more}")
    return parsed


class MassedComputeSpider(PriceSpider):
    name = "massed_compute"
    allowed_domains = ["vm.massedcompute.com", "massedcompute.com"]
    family = "neocloud"
    robots = ("no stored copy of vm.massedcompute.com/robots.txt found (searched the pages corpus 2026-12-02; "
              "it cannot be searched by address: 'lambda.ai robots.txt' and 'cloud.google.com robots.txt "
              "Disallow' found only other sites' files); robots.txt is obeyed at every crawl (ROBOTSTXT_OBEY)")
    terms = ("No stored copy of Massed Compute's terms found (searched the pages corpus 2026-12-02 for 'Massed"
             " Compute terms of service website'). We read the public pricing page, once a day, no login.")
    cadence = "daily"
    unit = "USD per instance-hour"
    capture = "real"
    pricing_url = "https://vm.massedcompute.com/pricing"

    page_parser = staticmethod(parse_pricing)

"""Item pipelines: normalize each offer onto the canonical catalog, then drop duplicates."""

from __future__ import annotations

from scrapy.exceptions import DropItem

from pricewatch.record.catalog import load_catalog
from pricewatch.record.offer import nominal_vram, offer_key
from pricewatch.record.prices import HELD_PRICE_MARK, fits_currency, parse_price, per_hour_prices, price_in
from spiders.items import OfferItem


class NormalizeOfferPipeline:
    """Offer key, canonical GPU model, VRAM, form factor; prices per instance-hour and per GPU-hour.

    The key is built from the offer's identity fields (pricewatch/record/offer.py offer_key over
    IDENTITY_FIELDS of pricewatch/record/fields.py), with the VRAM the source states read as its
    nominal size (269 -> 288 GB, 81559 MiB -> 80 GB). An unknown GPU label is kept (gpu_model
    None) and listed in the crawl report; a price that is not a number is kept as unpriced with
    its raw text, and so is a held row (spiders/base.py Parsed.hold: its price_raw comes marked,
    and leaves as the text the page printed). A "$" price is read only as USD; a quoted price
    naming its currency ("1.09 USD", "US$ 1.09") is read when that is the offer's currency. The
    fields it fills are those whose ``filled_by`` is "pipeline".
    """

    def __init__(self, stats):
        self.stats = stats
        self.catalog = load_catalog()

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.stats)

    def process_item(self, item):
        if not isinstance(item, OfferItem):
            return item
        item.setdefault("currency", "USD")
        item.setdefault("region", None)
        item.setdefault("availability", None)
        item.setdefault("is_aggregator", False)
        item.setdefault("self_service", True)
        item.setdefault("reserved_term", None)
        if not item.get("tier"):
            item["tier"] = item.get("billing")
        vram_hint = nominal_vram(item.get("vram_gb"))
        item["vram_gb"] = vram_hint
        item["offer_key"] = offer_key(item)
        match = self.catalog.resolve(item["gpu_label"], vram_hint)
        if match is None:
            item["gpu_model"] = None
            labels = self.stats.get_value("pricewatch/unknown_labels", [])
            if item["gpu_label"] not in labels:
                self.stats.set_value("pricewatch/unknown_labels", labels + [item["gpu_label"]])
        else:
            item["gpu_model"] = match.model
            # The VRAM rule (docs/catalog.md), one for every provider: the memory the provider
            # prints (read as a nominal size: 81559 MiB is 80 GB, a 143 GB H200 is 141; Verda's and
            # AWS's 268 GB B300 stays 268), else the catalog's value for the label's variant (an
            # "H100 NVL" is 94 GB, a bare "B300" 288).
            item["vram_gb"] = vram_hint or match.vram_gb
            if not item.get("form_factor"):
                item["form_factor"] = match.form_factor
        item.setdefault("form_factor", "unknown")
        if item.get("form_factor") is None:
            item["form_factor"] = "unknown"
        raw = item.get("price_raw")
        held = isinstance(raw, str) and raw.startswith(HELD_PRICE_MARK)
        if held:
            item["price_raw"] = raw[len(HELD_PRICE_MARK):] or None
            price = None
        elif not fits_currency(raw, item["currency"]):
            price = None
        else:
            price = parse_price(raw)
            if price is None and isinstance(raw, str):
                price = price_in(raw, item["currency"], per_hour=True)[0]
        per_hour, per_gpu = per_hour_prices(price, item["price_unit"], int(item["gpu_count"] or 0))
        item["price_per_hour"] = float(per_hour) if per_hour is not None else None
        item["price_per_gpu_hour"] = float(per_gpu) if per_gpu is not None else None
        item["is_priced"] = per_hour is not None
        item["price_text"] = None if item["is_priced"] else _as_text(item.get("price_raw"))
        return item


class DuplicateOfferPipeline:
    """The same offer printed twice (mobile + desktop markup, a repeated row) is one offer.
    The same key with two different prices is an error: we cannot tell which one is true."""

    def __init__(self, stats):
        self.stats = stats
        self.seen: dict[tuple, object] = {}

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.stats)

    def process_item(self, item):
        if not isinstance(item, OfferItem):
            return item
        key = (item["provider"], item["offer_key"])
        price = (item.get("price_per_hour"), item.get("price_text"))
        if key in self.seen:
            if self.seen[key] == price:
                self.stats.inc_value("pricewatch/duplicates_dropped")
                # Expected for pages that print each offer twice: not worth a warning.
                raise DropItem(f"duplicate offer {item['offer_key']}", log_level="DEBUG")
            conflicts = self.stats.get_value("pricewatch/conflicting_duplicates", [])
            self.stats.set_value("pricewatch/conflicting_duplicates",
                                 conflicts + [f"{item['offer_key']}: {self.seen[key]} vs {price}"])
            raise DropItem(f"conflicting duplicate offer {item['offer_key']}")
        self.seen[key] = price
        return item


def _as_text(raw) -> str:
    if raw is None:
        return "(no price)"
    return str(raw).strip() or "(empty)"

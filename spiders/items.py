"""The one record every provider spider produces: ``OfferItem``, built from the offer's field
table (pricewatch/record/fields.py OFFER_FIELDS: its "item" fields; each Field carries its
meaning, who fills it and, where it helps, how a spider fills it)."""

import scrapy

from pricewatch.record.fields import FIELDS_BY_NAME, ITEM_FIELDS


def _field(name: str) -> scrapy.Field:
    f = FIELDS_BY_NAME[name]
    return scrapy.Field(meaning=f.meaning, filled_by=f.filled_by, note=f.note)


#: Spiders fill the fields whose ``filled_by`` is "spider"; NormalizeOfferPipeline the others
#: (offer_key, gpu_model, the prices per hour, price_text, is_priced). Built with Scrapy's own
#: metaclass, so it is an ordinary ``scrapy.Item`` subclass (``OfferItem.fields``).
OfferItem = type(scrapy.Item)("OfferItem", (scrapy.Item,), {
    "__module__": __name__, "__qualname__": "OfferItem",
    "__doc__": "One offer as a provider's source states it (fields: pricewatch/record/fields.py).",
    **{name: _field(name) for name in ITEM_FIELDS}})


class SourceFactItem(scrapy.Item):
    """A fact the source states besides offers, e.g. a marketplace's "688 GPUs on 201 machines"."""

    provider = scrapy.Field()
    fact = scrapy.Field()          # a stable name, e.g. "listed_gpus"
    value_num = scrapy.Field()
    value_text = scrapy.Field()
    capture = scrapy.Field()

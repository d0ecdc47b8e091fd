"""The one record every provider spider produces."""

import scrapy


class OfferItem(scrapy.Item):
    # Filled by the provider spider, straight from the source:
    provider = scrapy.Field()        # spider name, e.g. "massed_compute"
    offer_key = scrapy.Field()       # built by the normalize pipeline (pricewatch/offers.py); never set by a spider
    sku = scrapy.Field()             # the provider's own id of the offer, when it has one ("a100xl", a plan id)
    variant = scrapy.Field()         # what else tells two rows apart (a vCPU/RAM config), when the page has it
    gpu_label = scrapy.Field()       # the GPU name exactly as the source prints it
    gpu_count = scrapy.Field()       # GPUs in the offered instance
    vram_gb = scrapy.Field()         # per GPU, if the source says (GB; MiB figures are recognised), else from the catalog
    form_factor = scrapy.Field()     # only if the source states it apart from the label
    billing = scrapy.Field()         # on-demand | spot | reserved | marketplace (how it is paid for)
    tier = scrapy.Field()            # the provider's own tier: prototyping, production, secure, community, 1-month, ... (default: billing)
    reserved_term = scrapy.Field()   # for billing=reserved: the commitment, e.g. "1 month", "3 years"
    self_service = scrapy.Field()    # False when the source requires sales contact or a large minimum
    region = scrapy.Field()
    currency = scrapy.Field()
    price_raw = scrapy.Field()       # number or text as printed ("$$43.46", 1.09, "Contact us")
    price_unit = scrapy.Field()      # instance_hour | gpu_hour
    stated_per_gpu = scrapy.Field()  # a per-GPU price the source prints beside an instance price (checked)
    availability = scrapy.Field()    # as the source says ("available", "sold out", a count), or None
    is_aggregator = scrapy.Field()   # re-published from another cloud (never "a provider" in cheapest claims)
    capture = scrapy.Field()         # CaptureRef.as_meta() of the response the price came from
    # Filled by NormalizeOfferPipeline:
    gpu_model = scrapy.Field()
    price_per_hour = scrapy.Field()
    price_per_gpu_hour = scrapy.Field()
    price_text = scrapy.Field()
    is_priced = scrapy.Field()


class SourceFactItem(scrapy.Item):
    """A fact the source states besides offers, e.g. a marketplace's "688 GPUs on 201 machines"."""

    provider = scrapy.Field()
    fact = scrapy.Field()          # a stable name, e.g. "listed_gpus"
    value_num = scrapy.Field()
    value_text = scrapy.Field()
    capture = scrapy.Field()

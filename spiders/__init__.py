"""Scrapy project: one module per provider, plus the shared item, pipelines and middlewares.

Provider spiders live beside the infrastructure so `scrapy list` finds them; every provider
module only turns that provider's raw responses into ``OfferItem``s.
"""

-- The sources pricewatch reads (issue 13): one row per spider, written from the spider classes'
-- own declarations (spiders/<provider>.py: family, robots, terms, cadence, unit, capture,
-- enabled_by_default) by pricewatch/sources.py at every load, so the table always says what the
-- code that produced the offers says. Reports and claims read `family` so they never blend
-- hyperscalers, neoclouds, marketplaces, aggregators and our own pages without saying so.
CREATE TABLE IF NOT EXISTS sources (
    provider           VARCHAR PRIMARY KEY,
    display_name       VARCHAR NOT NULL,
    family             VARCHAR NOT NULL CHECK (family IN ('hyperscaler', 'neocloud', 'marketplace', 'aggregator', 'own')),
    urls               VARCHAR[] NOT NULL,
    unit               VARCHAR,
    robots             VARCHAR NOT NULL,
    terms              VARCHAR NOT NULL,
    cadence            VARCHAR NOT NULL,
    enabled_by_default BOOLEAN NOT NULL,
    capture_kind       VARCHAR CHECK (capture_kind IN ('real', 'composed')),
    synced_at          TIMESTAMPTZ NOT NULL
);
COMMENT ON TABLE sources IS 'Every source a spider reads: family, URLs, unit as published, robots.txt status, terms-of-service note on automated collection, tolerated cadence, whether it runs by default, and whether its shipped capture is real or composed. Rewritten from the spider classes at each load.';
COMMENT ON COLUMN sources.provider IS 'the spider name, as in offers.provider and provider_runs.provider';
COMMENT ON COLUMN sources.display_name IS 'how reports name the provider (rules/providers.yaml; the spider name when absent)';
COMMENT ON COLUMN sources.family IS 'hyperscaler | neocloud | marketplace | aggregator | own (our own published pages)';
COMMENT ON COLUMN sources.urls IS 'the page(s) or API endpoint(s) the spider requests (an API that pages adds its own next links)';
COMMENT ON COLUMN sources.unit IS 'the price unit and currency as the source publishes them, e.g. USD per GPU-hour, US cents per instance-hour (NULL: not declared by the spider)';
COMMENT ON COLUMN sources.robots IS 'what robots.txt says about those URLs, or why it does not apply / was not checked; robots.txt is obeyed at every crawl regardless';
COMMENT ON COLUMN sources.terms IS 'what the terms of service say about automated collection and how pricewatch handles it ("not checked offline" where nobody has read them)';
COMMENT ON COLUMN sources.cadence IS 'how often the source tolerates being read (daily, hourly, ...)';
COMMENT ON COLUMN sources.enabled_by_default IS 'false: the terms forbid automated collection, so the source runs only when asked by name (pricewatch run --provider NAME)';
COMMENT ON COLUMN sources.capture_kind IS 'real: the shipped capture is a recorded response of the source; composed: built from documented shapes and real values (see captures/src/<date>/<provider>/exchanges.yaml); NULL: not declared';
COMMENT ON COLUMN sources.synced_at IS 'when this row was last written from the spider class';

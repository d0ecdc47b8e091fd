-- A source may price per GPU-second (issue 23 item 1: Modal prints "$0.001097 / sec" per GPU):
--   offers.price_unit  + 'gpu_second' (price per GPU-hour = the printed price x 3600;
--                        pricewatch/record/prices.py per_hour_prices)
-- DuckDB cannot alter a CHECK: offers is rebuilt with every column and row; its comments come back
-- with the repeatables (warehouse/tables/schema.yaml), applied again after every numbered migration.

CREATE TABLE offers_v4 (
    run_id VARCHAR NOT NULL,
    provider VARCHAR NOT NULL,
    offer_key VARCHAR NOT NULL,
    gpu_label VARCHAR NOT NULL,
    gpu_model VARCHAR,
    gpu_count INTEGER NOT NULL,
    vram_gb DOUBLE,
    form_factor VARCHAR NOT NULL,
    billing VARCHAR NOT NULL,
    tier VARCHAR NOT NULL,
    reserved_term VARCHAR,
    self_service BOOLEAN NOT NULL,
    region VARCHAR,
    currency VARCHAR NOT NULL,
    price_unit VARCHAR NOT NULL,
    price_per_hour DECIMAL(18,6),
    price_per_gpu_hour DECIMAL(18,6),
    is_priced BOOLEAN NOT NULL,
    price_text VARCHAR,
    availability VARCHAR,
    is_aggregator BOOLEAN NOT NULL,
    observed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    source_url VARCHAR NOT NULL,
    warc_file VARCHAR NOT NULL,
    warc_record_id VARCHAR NOT NULL,
    body_sha256 VARCHAR NOT NULL,
    held_reason VARCHAR,
    screen_note VARCHAR,
    price_raw VARCHAR,
    CHECK((form_factor IN ('SXM', 'PCIe', 'NVL', 'unknown'))),
    CHECK((billing IN ('on-demand', 'spot', 'reserved', 'marketplace'))),
    CHECK((price_unit IN ('instance_hour', 'gpu_hour', 'gpu_second'))),
    CHECK((is_priced = (price_per_hour IS NOT NULL))),
    CHECK(((price_per_hour IS NULL) OR (price_per_hour > 0))),
    CHECK((is_priced OR (price_text IS NOT NULL)))
);

INSERT INTO offers_v4 BY NAME SELECT * FROM offers;
DROP TABLE offers;
ALTER TABLE offers_v4 RENAME TO offers;

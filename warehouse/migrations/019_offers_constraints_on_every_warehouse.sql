-- offers with the constraints today's 001 declares, on every warehouse (issue 9).
--
-- A warehouse built by the first release got offers.billing / self_service from the repair
-- migration 018 as plain columns: DuckDB cannot add NOT NULL together with a backfill in one
-- transaction, nor a CHECK constraint to an existing table. As in 013 and 016, the table is
-- rebuilt with the same columns (in the order a new warehouse has them) and rows. BY NAME
-- fails loudly if a row or a column does not fit, it never drops one.
CREATE TABLE offers_v2 (
    run_id             VARCHAR NOT NULL,
    provider           VARCHAR NOT NULL,
    offer_key          VARCHAR NOT NULL,   -- the provider's own key for the offer
    gpu_label          VARCHAR NOT NULL,   -- as printed by the source
    gpu_model          VARCHAR,            -- canonical; NULL = label unknown to the catalog
    gpu_count          INTEGER NOT NULL,
    vram_gb            DOUBLE,             -- per GPU
    form_factor        VARCHAR NOT NULL CHECK (form_factor IN ('SXM', 'PCIe', 'NVL', 'unknown')),
    billing            VARCHAR NOT NULL CHECK (billing IN ('on-demand', 'spot', 'reserved', 'marketplace')),
    tier               VARCHAR NOT NULL,   -- the provider's own tier: prototyping, secure, community, ...
    reserved_term      VARCHAR,            -- billing = reserved: "1 month", "3 years", ...
    self_service       BOOLEAN NOT NULL,   -- false: sales contact or a large minimum required
    region             VARCHAR,
    currency           VARCHAR NOT NULL,
    price_unit         VARCHAR NOT NULL CHECK (price_unit IN ('instance_hour', 'gpu_hour')),
    price_per_hour     DECIMAL(18, 6),     -- whole instance; NULL when unpriced
    price_per_gpu_hour DECIMAL(18, 6),
    is_priced          BOOLEAN NOT NULL,
    price_text         VARCHAR,            -- the raw text when unpriced ("Contact us", ...)
    availability       VARCHAR,
    is_aggregator      BOOLEAN NOT NULL,
    observed_at        TIMESTAMPTZ NOT NULL,
    source_url         VARCHAR NOT NULL,
    warc_file          VARCHAR NOT NULL,
    warc_record_id     VARCHAR NOT NULL,
    body_sha256        VARCHAR NOT NULL,
    held_reason        VARCHAR,            -- 013: why the quality gate holds the reading (NULL: trusted)
    screen_note        VARCHAR,            -- 013: why a large move was let through
    price_raw          VARCHAR,            -- 017: the price cell's text, verbatim
    PRIMARY KEY (run_id, provider, offer_key),
    CHECK (is_priced = (price_per_hour IS NOT NULL)),
    CHECK (price_per_hour IS NULL OR price_per_hour > 0),
    CHECK (is_priced OR price_text IS NOT NULL)
);
INSERT INTO offers_v2 BY NAME SELECT * FROM offers;
DROP TABLE offers;
ALTER TABLE offers_v2 RENAME TO offers;

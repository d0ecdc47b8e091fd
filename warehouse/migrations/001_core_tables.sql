-- Raw layer: what each run observed. Rows are only ever added, one run per transaction.

-- One nightly (or replayed) run. observed_at is the snapshot time: when the prices were seen
-- (for a replay, the capture time in the WARC records, or --as-of).
CREATE TABLE runs (
    run_id        VARCHAR PRIMARY KEY,
    mode          VARCHAR NOT NULL CHECK (mode IN ('live', 'replay')),
    observed_at   TIMESTAMPTZ NOT NULL,
    snapshot_date DATE NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL,
    finished_at   TIMESTAMPTZ NOT NULL,
    status        VARCHAR NOT NULL CHECK (status IN ('ok', 'partial', 'failed')),
    replay_source VARCHAR,
    flow_run_id   VARCHAR,
    summary       VARCHAR
);

-- One provider within a run. A failed provider run stores no offers; its error says why.
-- A suspect one (it failed a run monitor) stores its offers as evidence, but they never become
-- the latest prices, move a "cheapest" claim or raise a price alert.
CREATE TABLE provider_runs (
    run_id             VARCHAR NOT NULL,
    provider           VARCHAR NOT NULL,
    status             VARCHAR NOT NULL CHECK (status IN ('ok', 'suspect', 'failed')),
    monitors           VARCHAR[],          -- monitor findings that made it suspect
    observed_at        TIMESTAMPTZ NOT NULL,
    item_count         INTEGER NOT NULL,
    priced_count       INTEGER NOT NULL,
    unpriced_count     INTEGER NOT NULL,
    duplicates_dropped INTEGER NOT NULL,
    http_error_count   INTEGER NOT NULL,
    retries            INTEGER NOT NULL,
    attempts           INTEGER NOT NULL,
    duration_s         DOUBLE,
    unknown_labels     VARCHAR[],
    warnings           VARCHAR[],
    error              VARCHAR,
    PRIMARY KEY (run_id, provider)
);

-- One offer as a provider published it in one run, normalized onto the GPU catalog.
CREATE TABLE offers (
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
    PRIMARY KEY (run_id, provider, offer_key),
    CHECK (is_priced = (price_per_hour IS NOT NULL)),
    CHECK (price_per_hour IS NULL OR price_per_hour > 0),
    CHECK (is_priced OR price_text IS NOT NULL)
);

-- Facts a source states besides offers (e.g. "688 GPUs on 201 machines listed").
CREATE TABLE source_facts (
    run_id         VARCHAR NOT NULL,
    provider       VARCHAR NOT NULL,
    fact           VARCHAR NOT NULL,
    value_num      DOUBLE,
    value_text     VARCHAR,
    observed_at    TIMESTAMPTZ NOT NULL,
    source_url     VARCHAR NOT NULL,
    warc_file      VARCHAR NOT NULL,
    warc_record_id VARCHAR NOT NULL,
    body_sha256    VARCHAR NOT NULL,
    PRIMARY KEY (run_id, provider, fact)
);

-- The canonical GPU catalog (source: warehouse/gpu_catalog.yaml, synced on every load).
CREATE TABLE gpu_catalog (
    gpu_model VARCHAR PRIMARY KEY,
    vendor    VARCHAR NOT NULL,
    vram_gb   DOUBLE NOT NULL
);

CREATE TABLE gpu_aliases (
    alias_key   VARCHAR NOT NULL,   -- normalized label (see pricewatch/catalog.py)
    gpu_model   VARCHAR NOT NULL,
    form_factor VARCHAR NOT NULL,
    vram_gb     DOUBLE NOT NULL,
    ambiguous   BOOLEAN NOT NULL,   -- family label resolved by the source's VRAM
    PRIMARY KEY (alias_key, gpu_model)
);

-- The tables of a new warehouse as every numbered migration up to the baseline leaves them (their
-- comments: warehouse/tables/schema.yaml; views: warehouse/views/; macros: warehouse/macros/).
-- warehouse/migrate.py runs this on an empty file, then records migrations 001 to the baseline as
-- applied; a warehouse that already has migrations gets the pending ones instead (docs/schema.md).
-- Never edit a table here alone: a table changes through a new numbered migration, and this file
-- is then brought to the same state (tests/test_schema_fresh.py compares the two).
-- baseline: 060

CREATE TABLE alert_acks (
    id VARCHAR PRIMARY KEY,
    acked_at TIMESTAMP WITH TIME ZONE NOT NULL,
    note VARCHAR
);

CREATE TABLE alert_deliveries (
    alert_id VARCHAR,
    "target" VARCHAR,
    "label" VARCHAR NOT NULL,
    delivered_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY(alert_id, "target")
);

CREATE TABLE alert_message_deliveries (
    message_id VARCHAR,
    "target" VARCHAR,
    "label" VARCHAR NOT NULL,
    delivered_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY(message_id, "target")
);

CREATE TABLE alert_messages (
    message_id VARCHAR PRIMARY KEY,
    run_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    subject VARCHAR NOT NULL,
    state VARCHAR NOT NULL,
    notify_type VARCHAR NOT NULL,
    title VARCHAR NOT NULL,
    body_text VARCHAR NOT NULL,
    body_markdown VARCHAR NOT NULL,
    body_html VARCHAR NOT NULL,
    payload JSON NOT NULL,
    alert_ids VARCHAR[] NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
    delivered_at TIMESTAMP WITH TIME ZONE,
    attempts INTEGER DEFAULT(0) NOT NULL,
    last_error VARCHAR,
    CHECK((kind IN ('page_digest', 'source_outage', 'source_recovered', 'rule_change', 'new_gpu_label'))),
    CHECK((state IN ('pending', 'sent', 'muted', 'acked'))),
    CHECK((notify_type IN ('info', 'success', 'warning', 'failure')))
);

CREATE TABLE alert_mutes (
    mute_id VARCHAR PRIMARY KEY,
    "scope" VARCHAR NOT NULL,
    "value" VARCHAR NOT NULL,
    "until" TIMESTAMP WITH TIME ZONE NOT NULL,
    reason VARCHAR,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    CHECK(("scope" IN ('provider', 'gpu', 'claim')))
);

CREATE TABLE alerts (
    alert_id VARCHAR PRIMARY KEY,
    run_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    subject VARCHAR NOT NULL,
    fingerprint VARCHAR NOT NULL UNIQUE,
    state VARCHAR NOT NULL,
    notify_type VARCHAR NOT NULL,
    title VARCHAR NOT NULL,
    body VARCHAR NOT NULL,
    details JSON NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
    delivered_at TIMESTAMP WITH TIME ZONE,
    attempts INTEGER DEFAULT(0) NOT NULL,
    last_error VARCHAR,
    message_id VARCHAR,
    CHECK((kind IN ('price_changed', 'offer_disappeared', 'undercut', 'claim_status', 'source_failing', 'source_recovered', 'new_gpu_label', 'rule_change', 'held_reading'))),
    CHECK((state IN ('pending', 'sent', 'suspect', 'suppressed', 'muted'))),
    CHECK((notify_type IN ('info', 'success', 'warning', 'failure')))
);

CREATE TABLE cheapest_offer_daily_stored (
    "day" DATE NOT NULL,
    gpu_model VARCHAR NOT NULL,
    gpu_count INTEGER NOT NULL,
    billing VARCHAR NOT NULL,
    min_price_per_hour DECIMAL(18,6) NOT NULL,
    median_price_per_hour DECIMAL(18,6) NOT NULL,
    min_price_per_gpu_hour DECIMAL(18,6),
    min_provider VARCHAR NOT NULL,
    min_offer_key VARCHAR NOT NULL,
    offers BIGINT NOT NULL,
    providers BIGINT NOT NULL
);

CREATE TABLE claim_evaluations (
    run_id VARCHAR,
    claim_id VARCHAR,
    claim_group VARCHAR NOT NULL,
    page VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    published_value DECIMAL(18,6),
    current_value DECIMAL(18,6),
    difference DECIMAL(18,6),
    tolerance VARCHAR NOT NULL,
    reason VARCHAR,
    snapshot_at TIMESTAMP WITH TIME ZONE NOT NULL,
    evaluated_at TIMESTAMP WITH TIME ZONE NOT NULL,
    published_text VARCHAR NOT NULL,
    current_text VARCHAR,
    pick VARCHAR,
    note VARCHAR,
    unverifiable_since TIMESTAMP WITH TIME ZONE,
    says_ja VARCHAR,
    says_en VARCHAR,
    cited_date VARCHAR,
    rules_version VARCHAR,
    "trigger" VARCHAR NOT NULL,
    CHECK((status IN ('holds', 'drifted', 'unverifiable'))),
    CHECK(("trigger" IN ('run', 'rules'))),
    PRIMARY KEY(run_id, claim_id, rules_version)
);

CREATE TABLE claim_history_last (
    claim_id VARCHAR NOT NULL,
    snapshot_at TIMESTAMP WITH TIME ZONE NOT NULL,
    run_id VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    current_value DECIMAL(18,6)
);

CREATE TABLE claim_history_state (
    id INTEGER DEFAULT(1) PRIMARY KEY,
    evaluated_through TIMESTAMP WITH TIME ZONE NOT NULL,
    evaluations BIGINT NOT NULL,
    snapshot_through TIMESTAMP WITH TIME ZONE NOT NULL,
    refreshed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    CHECK((id = 1))
);

CREATE TABLE claim_history_stored (
    snapshot_at TIMESTAMP WITH TIME ZONE NOT NULL,
    run_id VARCHAR NOT NULL,
    claim_id VARCHAR NOT NULL,
    claim_group VARCHAR,
    page VARCHAR,
    kind VARCHAR,
    status VARCHAR NOT NULL,
    published_value DECIMAL(18,6),
    current_value DECIMAL(18,6),
    difference DECIMAL(18,6),
    published_text VARCHAR,
    current_text VARCHAR,
    tolerance VARCHAR,
    reason VARCHAR,
    unverifiable_since TIMESTAMP WITH TIME ZONE,
    previous_status VARCHAR,
    previous_value DECIMAL(18,6),
    previous_run_id VARCHAR,
    status_changed BOOLEAN,
    rules_version VARCHAR NOT NULL,
    "trigger" VARCHAR,
    evaluated_at TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE claim_inputs (
    run_id VARCHAR,
    claim_id VARCHAR,
    input_name VARCHAR,
    "role" VARCHAR NOT NULL,
    provider VARCHAR NOT NULL,
    offer_key VARCHAR,
    gpu_model VARCHAR,
    gpu_count INTEGER,
    billing VARCHAR,
    price_per_hour DECIMAL(18,6),
    price_per_gpu_hour DECIMAL(18,6),
    observed_at TIMESTAMP WITH TIME ZONE,
    source_url VARCHAR,
    warc_file VARCHAR,
    warc_record_id VARCHAR,
    input_status VARCHAR NOT NULL,
    used BOOLEAN NOT NULL,
    offer_run_id VARCHAR,
    price_text VARCHAR,
    fact VARCHAR,
    value_num DOUBLE,
    value_text VARCHAR,
    rules_version VARCHAR,
    CHECK(("role" IN ('cited', 'cheapest', 'own'))),
    CHECK((input_status IN ('ok', 'unpriced', 'missing', 'failed', 'stale', 'never_seen'))),
    PRIMARY KEY(run_id, claim_id, rules_version, input_name)
);

CREATE TABLE current_offers (
    run_id VARCHAR,
    provider VARCHAR,
    offer_key VARCHAR,
    gpu_label VARCHAR,
    gpu_model VARCHAR,
    gpu_count INTEGER,
    vram_gb DOUBLE,
    form_factor VARCHAR,
    billing VARCHAR,
    tier VARCHAR,
    reserved_term VARCHAR,
    self_service BOOLEAN,
    region VARCHAR,
    currency VARCHAR,
    price_unit VARCHAR,
    price_per_hour DECIMAL(18,6),
    price_per_gpu_hour DECIMAL(18,6),
    is_priced BOOLEAN,
    price_text VARCHAR,
    availability VARCHAR,
    is_aggregator BOOLEAN,
    observed_at TIMESTAMP WITH TIME ZONE,
    source_url VARCHAR,
    warc_file VARCHAR,
    warc_record_id VARCHAR,
    body_sha256 VARCHAR,
    held_reason VARCHAR,
    screen_note VARCHAR,
    price_raw VARCHAR
);

CREATE TABLE daily_marts_days (
    "day" DATE PRIMARY KEY,
    runs BIGINT NOT NULL,
    refreshed_at TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE gpu_aliases (
    alias_key VARCHAR,
    gpu_model VARCHAR,
    form_factor VARCHAR NOT NULL,
    vram_gb DOUBLE NOT NULL,
    ambiguous BOOLEAN NOT NULL,
    PRIMARY KEY(alias_key, gpu_model)
);

CREATE TABLE gpu_catalog (
    gpu_model VARCHAR PRIMARY KEY,
    vendor VARCHAR NOT NULL,
    vram_gb DOUBLE NOT NULL
);

CREATE TABLE mart_settings (
    id INTEGER DEFAULT(1) PRIMARY KEY,
    stale_after_hours DOUBLE DEFAULT(48) NOT NULL,
    CHECK((id = 1)),
    CHECK((stale_after_hours > 0))
);

CREATE TABLE offer_decisions (
    provider VARCHAR NOT NULL,
    offer_key VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    decision VARCHAR NOT NULL,
    price_per_hour DECIMAL(18,6),
    price_text VARCHAR,
    observed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    held_reason VARCHAR,
    decided_by VARCHAR NOT NULL,
    decided_at TIMESTAMP WITH TIME ZONE NOT NULL,
    note VARCHAR,
    CHECK((decision IN ('accept', 'reject'))),
    PRIMARY KEY(provider, offer_key, run_id, decided_at)
);

CREATE TABLE offers (
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
    CHECK((price_unit IN ('instance_hour', 'gpu_hour'))),
    CHECK((is_priced = (price_per_hour IS NOT NULL))),
    CHECK(((price_per_hour IS NULL) OR (price_per_hour > 0))),
    CHECK((is_priced OR (price_text IS NOT NULL)))
);

CREATE TABLE price_spells (
    provider VARCHAR NOT NULL,
    offer_key VARCHAR NOT NULL,
    spell_no INTEGER NOT NULL,
    started_by VARCHAR NOT NULL,
    gpu_model VARCHAR,
    gpu_count INTEGER,
    billing VARCHAR,
    tier VARCHAR,
    price_per_hour DECIMAL(18,6),
    price_per_gpu_hour DECIMAL(18,6),
    price_text VARCHAR,
    valid_from TIMESTAMP WITH TIME ZONE NOT NULL,
    valid_to TIMESTAMP WITH TIME ZONE,
    last_seen_at TIMESTAMP WITH TIME ZONE NOT NULL,
    observations BIGINT NOT NULL,
    first_run_id VARCHAR NOT NULL,
    last_run_id VARCHAR NOT NULL,
    is_latest BOOLEAN NOT NULL,
    prev_price_per_hour DECIMAL(18,6),
    prev_price_text VARCHAR,
    prev_last_seen_at TIMESTAMP WITH TIME ZONE,
    prev_valid_to TIMESTAMP WITH TIME ZONE,
    currency VARCHAR,
    self_service BOOLEAN,
    is_aggregator BOOLEAN,
    CHECK((started_by IN ('first seen', 'changed', 'reappeared')))
);

CREATE TABLE provider_price_index_stored (
    "day" DATE NOT NULL,
    provider VARCHAR NOT NULL,
    gpu_model VARCHAR NOT NULL,
    billing VARCHAR NOT NULL,
    provider_min_per_gpu_hour DECIMAL(18,6),
    provider_median_per_gpu_hour DECIMAL(18,6),
    provider_offers BIGINT NOT NULL,
    market_median_per_gpu_hour DECIMAL(18,6),
    market_offers BIGINT NOT NULL,
    market_providers BIGINT NOT NULL,
    price_index DOUBLE
);

CREATE TABLE provider_runs (
    run_id VARCHAR,
    provider VARCHAR,
    status VARCHAR NOT NULL,
    monitors VARCHAR[],
    observed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    item_count INTEGER NOT NULL,
    priced_count INTEGER NOT NULL,
    unpriced_count INTEGER NOT NULL,
    duplicates_dropped INTEGER NOT NULL,
    http_error_count INTEGER NOT NULL,
    retries INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    duration_s DOUBLE,
    unknown_labels VARCHAR[],
    warnings VARCHAR[],
    "error" VARCHAR,
    trusted BOOLEAN,
    CHECK((status IN ('ok', 'suspect', 'failed', 'not attempted'))),
    PRIMARY KEY(run_id, provider)
);

CREATE TABLE resource_syncs (
    "resource" VARCHAR PRIMARY KEY,
    sha256 VARCHAR NOT NULL,
    synced_at TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE runs (
    run_id VARCHAR PRIMARY KEY,
    "mode" VARCHAR NOT NULL,
    observed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    snapshot_date DATE NOT NULL,
    started_at TIMESTAMP WITH TIME ZONE NOT NULL,
    finished_at TIMESTAMP WITH TIME ZONE NOT NULL,
    status VARCHAR NOT NULL,
    replay_source VARCHAR,
    flow_run_id VARCHAR,
    summary VARCHAR,
    CHECK(("mode" IN ('live', 'replay'))),
    CHECK((status IN ('ok', 'partial', 'failed')))
);

CREATE TABLE schema_migrations (
    "version" INTEGER PRIMARY KEY,
    "name" VARCHAR NOT NULL,
    applied_at TIMESTAMP WITH TIME ZONE DEFAULT(now()) NOT NULL,
    sha256 VARCHAR
);

CREATE TABLE schema_repeatables (
    kind VARCHAR,
    "name" VARCHAR,
    sha256 VARCHAR NOT NULL,
    applied_at TIMESTAMP WITH TIME ZONE DEFAULT(now()) NOT NULL,
    CHECK((kind IN ('table', 'view', 'macro'))),
    PRIMARY KEY(kind, "name")
);

CREATE TABLE source_facts (
    run_id VARCHAR,
    provider VARCHAR,
    fact VARCHAR,
    value_num DOUBLE,
    value_text VARCHAR,
    observed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    source_url VARCHAR NOT NULL,
    warc_file VARCHAR NOT NULL,
    warc_record_id VARCHAR NOT NULL,
    body_sha256 VARCHAR NOT NULL,
    PRIMARY KEY(run_id, provider, fact)
);

CREATE TABLE sources (
    provider VARCHAR PRIMARY KEY,
    display_name VARCHAR NOT NULL,
    "family" VARCHAR NOT NULL,
    urls VARCHAR[] NOT NULL,
    unit VARCHAR,
    robots VARCHAR NOT NULL,
    terms VARCHAR NOT NULL,
    cadence VARCHAR NOT NULL,
    enabled_by_default BOOLEAN NOT NULL,
    capture_kind VARCHAR,
    synced_at TIMESTAMP WITH TIME ZONE NOT NULL,
    CHECK(("family" IN ('hyperscaler', 'neocloud', 'marketplace', 'aggregator', 'own'))),
    CHECK((capture_kind IN ('real', 'composed')))
);

CREATE TABLE trusted_offers (
    run_id VARCHAR,
    provider VARCHAR,
    offer_key VARCHAR,
    gpu_label VARCHAR,
    gpu_model VARCHAR,
    gpu_count INTEGER,
    vram_gb DOUBLE,
    form_factor VARCHAR,
    billing VARCHAR,
    tier VARCHAR,
    reserved_term VARCHAR,
    self_service BOOLEAN,
    region VARCHAR,
    currency VARCHAR,
    price_unit VARCHAR,
    price_per_hour DECIMAL(18,6),
    price_per_gpu_hour DECIMAL(18,6),
    is_priced BOOLEAN,
    price_text VARCHAR,
    availability VARCHAR,
    is_aggregator BOOLEAN,
    observed_at TIMESTAMP WITH TIME ZONE,
    source_url VARCHAR,
    warc_file VARCHAR,
    warc_record_id VARCHAR,
    body_sha256 VARCHAR,
    held_reason VARCHAR,
    screen_note VARCHAR,
    price_raw VARCHAR
);

-- Rows the migrations seed (040: the one settings row; 052: claim_history's refresh state).
INSERT INTO mart_settings (id) VALUES (1);
INSERT INTO claim_history_state (id, evaluated_through, evaluations, snapshot_through, refreshed_at)
VALUES (1, '-infinity'::TIMESTAMPTZ, 0, '-infinity'::TIMESTAMPTZ, now());

-- Staleness is its own status (issue 21 item 2): claim_inputs.input_status gains 'stale', a source
-- whose last good data is older than the staleness limit (it did not fail: it was not read, or
-- not lately); 'failed' stays for a source whose latest attempt failed or was held back. This
-- rebuild (DuckDB cannot alter a CHECK) keeps every column and row.
CREATE TABLE claim_inputs_v2 (
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
INSERT INTO claim_inputs_v2 BY NAME SELECT * FROM claim_inputs;
DROP TABLE claim_inputs;
ALTER TABLE claim_inputs_v2 RENAME TO claim_inputs;
-- The table's comments, as warehouse/tables/schema.yaml states them.
COMMENT ON TABLE claim_inputs IS 'What each claim evaluation used: offers (keys, prices, evidence) and source facts.';
COMMENT ON COLUMN claim_inputs.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN claim_inputs.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN claim_inputs.input_name IS 'the input''s name within the claim ("cited offer", "cheapest pick", ...)';
COMMENT ON COLUMN claim_inputs."role" IS 'cited (the offer the page cites) | cheapest (current cheapest match) | own (the publisher''s own price or fact)';
COMMENT ON COLUMN claim_inputs.provider IS 'provider (spider name)';
COMMENT ON COLUMN claim_inputs.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN claim_inputs.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN claim_inputs.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN claim_inputs.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN claim_inputs.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN claim_inputs.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN claim_inputs.observed_at IS 'when this offer was observed (its provider run)';
COMMENT ON COLUMN claim_inputs.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN claim_inputs.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN claim_inputs.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN claim_inputs.input_status IS 'ok | unpriced | missing | failed (its latest attempt failed or was held back) | stale (its last good data is older than the staleness limit) | never_seen';
COMMENT ON COLUMN claim_inputs.used IS 'this input gave the value (e.g. the cheapest named GPU)';
COMMENT ON COLUMN claim_inputs.offer_run_id IS 'the run that stored the offer reading used';
COMMENT ON COLUMN claim_inputs.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN claim_inputs.fact IS 'the fact''s name (listed_machines, topup_min_usd, ...)';
COMMENT ON COLUMN claim_inputs.value_num IS 'the fact''s value, when a number';
COMMENT ON COLUMN claim_inputs.value_text IS 'the fact''s value, when text';
COMMENT ON COLUMN claim_inputs.rules_version IS 'the rules_version of the evaluation this input belongs to';

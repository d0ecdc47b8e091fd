-- Rules are data that take effect (issue 10): an evaluation records the version of rules/ it
-- used, and a snapshot may be evaluated again when the rules change.
--
--   rules_version  sha256 (first 16 hex digits) of every file under rules/, as loaded
--                  (pricewatch/claims/rules.py rules_version); 'unrecorded' for evaluations
--                  stored before this migration
--   trigger        'run'   = evaluated after a run was loaded (nightly, replay, backfill)
--                  'rules' = the same snapshot evaluated again because rules/ changed (the
--                            next run, or `pricewatch claims --reevaluate`); a claim whose
--                            status or value changed there changed because of the rules, not
--                            because a price moved
--
-- The key becomes (run_id, claim_id, rules_version). DuckDB cannot change a primary key in
-- place: both tables are rebuilt with the same columns and rows (BY NAME fails loudly rather
-- than drop anything), then the new columns.
CREATE TABLE claim_evaluations_v2 (
    run_id             VARCHAR NOT NULL,
    claim_id           VARCHAR NOT NULL,
    claim_group        VARCHAR NOT NULL,
    page               VARCHAR NOT NULL,
    kind               VARCHAR NOT NULL,
    status             VARCHAR NOT NULL CHECK (status IN ('holds', 'drifted', 'unverifiable')),
    published_value    DECIMAL(18, 6),
    current_value      DECIMAL(18, 6),
    difference         DECIMAL(18, 6),
    tolerance          VARCHAR NOT NULL,
    reason             VARCHAR,
    snapshot_at        TIMESTAMPTZ NOT NULL,
    evaluated_at       TIMESTAMPTZ NOT NULL,
    published_text     VARCHAR NOT NULL,
    current_text       VARCHAR,
    pick               VARCHAR,
    note               VARCHAR,
    unverifiable_since TIMESTAMPTZ,
    says_ja            VARCHAR,
    says_en            VARCHAR,
    cited_date         VARCHAR,
    rules_version      VARCHAR NOT NULL,
    trigger            VARCHAR NOT NULL CHECK (trigger IN ('run', 'rules')),
    PRIMARY KEY (run_id, claim_id, rules_version)
);
INSERT INTO claim_evaluations_v2 BY NAME
    SELECT *, 'unrecorded' AS rules_version, 'run' AS trigger FROM claim_evaluations;
DROP TABLE claim_evaluations;
ALTER TABLE claim_evaluations_v2 RENAME TO claim_evaluations;

CREATE TABLE claim_inputs_v2 (
    run_id             VARCHAR NOT NULL,
    claim_id           VARCHAR NOT NULL,
    input_name         VARCHAR NOT NULL,
    role               VARCHAR NOT NULL CHECK (role IN ('cited', 'cheapest', 'own')),
    provider           VARCHAR NOT NULL,
    offer_key          VARCHAR,
    gpu_model          VARCHAR,
    gpu_count          INTEGER,
    billing            VARCHAR,
    price_per_hour     DECIMAL(18, 6),
    price_per_gpu_hour DECIMAL(18, 6),
    observed_at        TIMESTAMPTZ,
    source_url         VARCHAR,
    warc_file          VARCHAR,
    warc_record_id     VARCHAR,
    input_status       VARCHAR NOT NULL CHECK (input_status IN ('ok', 'unpriced', 'missing', 'failed', 'never_seen')),
    used               BOOLEAN NOT NULL,
    offer_run_id       VARCHAR,
    price_text         VARCHAR,
    fact               VARCHAR,
    value_num          DOUBLE,
    value_text         VARCHAR,
    rules_version      VARCHAR NOT NULL,
    PRIMARY KEY (run_id, claim_id, rules_version, input_name)
);
INSERT INTO claim_inputs_v2 BY NAME
    SELECT *, 'unrecorded' AS rules_version FROM claim_inputs;
DROP TABLE claim_inputs;
ALTER TABLE claim_inputs_v2 RENAME TO claim_inputs;

COMMENT ON TABLE claim_evaluations IS 'Every published claim (rules/) evaluated as of one run''s snapshot under one version of rules/; rows are only added.';
COMMENT ON COLUMN claim_evaluations.rules_version IS 'sha256 (16 hex) of rules/ as used; ''unrecorded'' before migration 035';
COMMENT ON COLUMN claim_evaluations.trigger IS '''run'': evaluated after the run loaded; ''rules'': the snapshot evaluated again because rules/ changed';
COMMENT ON TABLE claim_inputs IS 'What each claim evaluation used: offers (keys, prices, evidence) and source facts.';
COMMENT ON COLUMN claim_inputs.rules_version IS 'the rules_version of the evaluation this input belongs to';

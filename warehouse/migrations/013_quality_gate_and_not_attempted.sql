-- Quality gate and a status for every known provider in every run (issue 8).
--
-- provider_runs.status gains 'not attempted': every provider pricewatch knows appears in every
-- run's record, so "no row" never has to be read as "fine" or "failed". DuckDB cannot alter a
-- CHECK constraint, so the table is rebuilt with the same columns and rows.
CREATE TABLE provider_runs_v2 (
    run_id             VARCHAR NOT NULL,
    provider           VARCHAR NOT NULL,
    status             VARCHAR NOT NULL CHECK (status IN ('ok', 'suspect', 'failed', 'not attempted')),
    monitors           VARCHAR[],
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
INSERT INTO provider_runs_v2 BY NAME SELECT * FROM provider_runs;
DROP TABLE provider_runs;
ALTER TABLE provider_runs_v2 RENAME TO provider_runs;

-- The quality gate's verdict on each stored offer (pricewatch/quality.py):
--   held_reason  NULL: the reading may become the latest price. Otherwise why it is held
--                (outside the model's plausible per-GPU band; a move of 25 % or more that
--                neither the provider's next run nor the market has confirmed yet). A held
--                reading is kept as evidence; the offer's last trusted reading stays current.
--   screen_note  why a large move was let through (confirmed by the next run, or the same
--                GPU moved the same way at other providers).
ALTER TABLE offers ADD COLUMN held_reason VARCHAR;
ALTER TABLE offers ADD COLUMN screen_note VARCHAR;

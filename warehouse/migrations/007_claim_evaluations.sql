-- Claims layer: every published claim (rules/*.yaml) evaluated as of one run's snapshot.
-- Rows are only added: evaluating a run again adds nothing (pricewatch/claims/store.py).

-- One claim as of one run. A row describes itself (page, wording, published value, tolerance),
-- so the history stays readable after the rules change.
CREATE TABLE claim_evaluations (
    run_id             VARCHAR NOT NULL,
    claim_id           VARCHAR NOT NULL,   -- e.g. g-fit-table.h200x8.full-adamw
    claim_group        VARCHAR NOT NULL,   -- the CLAIMS.md id the claim belongs to (g-fit-table)
    page               VARCHAR NOT NULL,   -- rules file stem = published page id
    kind               VARCHAR NOT NULL,   -- computation kind: cited_offer, cheapest_offer, ratio, ...
    status             VARCHAR NOT NULL CHECK (status IN ('holds', 'drifted', 'unverifiable')),
    published_value    DECIMAL(18, 6),     -- numbers; ✓/✗ as 1/0; NULL for text
    current_value      DECIMAL(18, 6),     -- NULL when unverifiable or text
    difference         DECIMAL(18, 6),     -- current - published (numbers only)
    tolerance          VARCHAR NOT NULL,   -- "cents", "rounds to 0 decimals", "±5%", "exact"
    reason             VARCHAR,            -- why drifted / unverifiable (which input, since when)
    snapshot_at        TIMESTAMPTZ NOT NULL,  -- the run's observed_at: no later data is used
    evaluated_at       TIMESTAMPTZ NOT NULL,
    published_text     VARCHAR NOT NULL,   -- as the page shows it: "$43.46", "✓", "1,260 GB"
    current_text       VARCHAR,            -- the same, recomputed
    pick               VARCHAR,            -- cheapest/from claims: what the value comes from now
    note               VARCHAR,            -- e.g. a cheaper fitting configuration exists
    unverifiable_since TIMESTAMPTZ,        -- when the missing/failed input was first missing
    says_ja            VARCHAR,            -- the published sentence or table cell (original)
    says_en            VARCHAR,
    cited_date         VARCHAR,            -- the date the page cited for its prices
    PRIMARY KEY (run_id, claim_id)
);

-- What each evaluation used: the offers (keys, prices, evidence) and source facts.
--   role 'cited'    the provider offer the page cites
--        'cheapest' the current cheapest offer matching the claim's filter
--        'own'      the publisher's own price list (or a fact from its own page)
CREATE TABLE claim_inputs (
    run_id             VARCHAR NOT NULL,
    claim_id           VARCHAR NOT NULL,
    input_name         VARCHAR NOT NULL,   -- e.g. "cited offer", "cheapest pick", "own price H100"
    role               VARCHAR NOT NULL CHECK (role IN ('cited', 'cheapest', 'own')),
    provider           VARCHAR NOT NULL,
    offer_key          VARCHAR,            -- NULL for a source fact
    gpu_model          VARCHAR,
    gpu_count          INTEGER,
    billing            VARCHAR,
    price_per_hour     DECIMAL(18, 6),
    price_per_gpu_hour DECIMAL(18, 6),
    observed_at        TIMESTAMPTZ,        -- when this offer was observed (its provider run)
    source_url         VARCHAR,
    warc_file          VARCHAR,
    warc_record_id     VARCHAR,
    input_status       VARCHAR NOT NULL CHECK (input_status IN ('ok', 'unpriced', 'missing', 'failed', 'never_seen')),
    used               BOOLEAN NOT NULL,   -- this input gave the value (e.g. the cheapest named GPU)
    offer_run_id       VARCHAR,            -- the run the offer was stored by
    price_text         VARCHAR,            -- unpriced offers: the printed text
    fact               VARCHAR,            -- source facts: the fact name
    value_num          DOUBLE,
    value_text         VARCHAR,
    PRIMARY KEY (run_id, claim_id, input_name)
);

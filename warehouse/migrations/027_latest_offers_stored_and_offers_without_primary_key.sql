-- Latest offers stored, and offers without its primary key (issue 11).
--
-- 1. offers loses PRIMARY KEY (run_id, provider, offer_key). Measured (benchmarks/bench_scale.py,
--    README "Speed"): the key's index was ~75 % of the warehouse file and a third of each insert,
--    and no read uses it (DuckDB's ART index serves point look-ups on its whole key, which no
--    query makes; history reads use the stored spells and the observed_at zone maps). The
--    guarantee stays, enforced at load (warehouse/load.py): a run already stored is never
--    loaded again (run_exists, inside the load's transaction, one writer per file), and a
--    run's offers are checked for a duplicated (provider, offer_key) before the insert, which
--    fails naming them. The CHECK constraints and NOT NULLs stay. As in 019, the table is
--    rebuilt with the same columns, in the same order, and rows (BY NAME fails loudly if
--    anything does not fit).
-- 2. current_offers / trusted_offers: each provider's latest successful run's offers, and each
--    offer's latest trusted reading, kept by the load (warehouse/spells.py) so latest_offers,
--    cheapest_offer, held_offers and the quality gate's previous readings read a few thousand
--    rows instead of joining every observation (458 ms at 1M offer rows, growing with history).
CREATE TABLE offers_v3 (
    run_id             VARCHAR NOT NULL,
    provider           VARCHAR NOT NULL,
    offer_key          VARCHAR NOT NULL,
    gpu_label          VARCHAR NOT NULL,
    gpu_model          VARCHAR,
    gpu_count          INTEGER NOT NULL,
    vram_gb            DOUBLE,
    form_factor        VARCHAR NOT NULL CHECK (form_factor IN ('SXM', 'PCIe', 'NVL', 'unknown')),
    billing            VARCHAR NOT NULL CHECK (billing IN ('on-demand', 'spot', 'reserved', 'marketplace')),
    tier               VARCHAR NOT NULL,
    reserved_term      VARCHAR,
    self_service       BOOLEAN NOT NULL,
    region             VARCHAR,
    currency           VARCHAR NOT NULL,
    price_unit         VARCHAR NOT NULL CHECK (price_unit IN ('instance_hour', 'gpu_hour')),
    price_per_hour     DECIMAL(18, 6),
    price_per_gpu_hour DECIMAL(18, 6),
    is_priced          BOOLEAN NOT NULL,
    price_text         VARCHAR,
    availability       VARCHAR,
    is_aggregator      BOOLEAN NOT NULL,
    observed_at        TIMESTAMPTZ NOT NULL,
    source_url         VARCHAR NOT NULL,
    warc_file          VARCHAR NOT NULL,
    warc_record_id     VARCHAR NOT NULL,
    body_sha256        VARCHAR NOT NULL,
    held_reason        VARCHAR,
    screen_note        VARCHAR,
    price_raw          VARCHAR,
    CHECK (is_priced = (price_per_hour IS NOT NULL)),
    CHECK (price_per_hour IS NULL OR price_per_hour > 0),
    CHECK (is_priced OR price_text IS NOT NULL)
);
-- In snapshot order, so the zone maps of observed_at prune the reads of one run.
INSERT INTO offers_v3 BY NAME SELECT * FROM offers ORDER BY observed_at, run_id, provider, offer_key;
DROP TABLE offers;
ALTER TABLE offers_v3 RENAME TO offers;

-- The comments of offers (migration 049), again: the table was rebuilt.
COMMENT ON TABLE offers IS 'One offer as a provider published it in one run, normalized onto the GPU catalog, with the quality gate''s verdict and the evidence (WARC file, record id, body sha256). Rows are only added.';
COMMENT ON COLUMN offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN offers.gpu_label IS 'the GPU label as the source printed it';
COMMENT ON COLUMN offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN offers.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN offers.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN offers.reserved_term IS 'billing reserved: the term ("1 month", "3 years", ...)';
COMMENT ON COLUMN offers.self_service IS 'false when a sales contact or a large minimum is required';
COMMENT ON COLUMN offers.region IS 'region, when the price is per region';
COMMENT ON COLUMN offers.currency IS 'ISO currency of the price';
COMMENT ON COLUMN offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour';
COMMENT ON COLUMN offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN offers.is_priced IS 'false for Contact sales, placeholders, unresolved text';
COMMENT ON COLUMN offers.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN offers.availability IS 'availability as the source states it (regions, stock)';
COMMENT ON COLUMN offers.is_aggregator IS 'true for re-sellers of other clouds (never the cheapest)';
COMMENT ON COLUMN offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN offers.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN offers.body_sha256 IS 'sha256 of the response body';
COMMENT ON COLUMN offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN offers.screen_note IS 'why a large move was let through (confirmed, market moved)';
COMMENT ON COLUMN offers.price_raw IS 'the price cell''s text, verbatim (NULL for rows loaded before migration 017)';

CREATE TABLE current_offers AS SELECT * FROM offers LIMIT 0;
CREATE TABLE trusted_offers AS SELECT * FROM offers LIMIT 0;
-- Backfill: each provider's latest successful run (as latest_provider_runs orders them) ...
INSERT INTO current_offers
SELECT o.* FROM offers o
JOIN (SELECT provider, arg_max(run_id, (observed_at, run_id)) AS run_id
      FROM provider_runs WHERE status = 'ok' GROUP BY provider) l USING (provider, run_id);
-- ... and each offer's latest trusted (not held) reading of a successful run.
INSERT INTO trusted_offers
SELECT o.* FROM offers o JOIN provider_runs pr USING (run_id, provider)
WHERE pr.status = 'ok' AND o.held_reason IS NULL
QUALIFY row_number() OVER (PARTITION BY o.provider, o.offer_key ORDER BY o.observed_at DESC, o.run_id DESC) = 1;
COMMENT ON TABLE current_offers IS 'The offers of each provider''s latest successful run (the rows of offers, copied), kept by each load (warehouse/spells.py); latest_offers and held_offers read it.';
COMMENT ON TABLE trusted_offers IS 'Each offer''s latest trusted (not held) reading of a successful run (the row of offers, copied), kept by each load; latest_offers shows it while the offer''s latest reading is held.';
COMMENT ON COLUMN current_offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN current_offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN current_offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN current_offers.gpu_label IS 'the GPU label as the source printed it';
COMMENT ON COLUMN current_offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN current_offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN current_offers.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN current_offers.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN current_offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN current_offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN current_offers.reserved_term IS 'billing reserved: the term ("1 month", "3 years", ...)';
COMMENT ON COLUMN current_offers.self_service IS 'false when a sales contact or a large minimum is required';
COMMENT ON COLUMN current_offers.region IS 'region, when the price is per region';
COMMENT ON COLUMN current_offers.currency IS 'ISO currency of the price';
COMMENT ON COLUMN current_offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour';
COMMENT ON COLUMN current_offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN current_offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN current_offers.is_priced IS 'false for Contact sales, placeholders, unresolved text';
COMMENT ON COLUMN current_offers.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN current_offers.availability IS 'availability as the source states it (regions, stock)';
COMMENT ON COLUMN current_offers.is_aggregator IS 'true for re-sellers of other clouds (never the cheapest)';
COMMENT ON COLUMN current_offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN current_offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN current_offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN current_offers.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN current_offers.body_sha256 IS 'sha256 of the response body';
COMMENT ON COLUMN current_offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN current_offers.screen_note IS 'why a large move was let through (confirmed, market moved)';
COMMENT ON COLUMN current_offers.price_raw IS 'the price cell''s text, verbatim (NULL for rows loaded before migration 017)';
COMMENT ON COLUMN trusted_offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN trusted_offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN trusted_offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN trusted_offers.gpu_label IS 'the GPU label as the source printed it';
COMMENT ON COLUMN trusted_offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN trusted_offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN trusted_offers.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN trusted_offers.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN trusted_offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN trusted_offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN trusted_offers.reserved_term IS 'billing reserved: the term ("1 month", "3 years", ...)';
COMMENT ON COLUMN trusted_offers.self_service IS 'false when a sales contact or a large minimum is required';
COMMENT ON COLUMN trusted_offers.region IS 'region, when the price is per region';
COMMENT ON COLUMN trusted_offers.currency IS 'ISO currency of the price';
COMMENT ON COLUMN trusted_offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour';
COMMENT ON COLUMN trusted_offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN trusted_offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN trusted_offers.is_priced IS 'false for Contact sales, placeholders, unresolved text';
COMMENT ON COLUMN trusted_offers.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN trusted_offers.availability IS 'availability as the source states it (regions, stock)';
COMMENT ON COLUMN trusted_offers.is_aggregator IS 'true for re-sellers of other clouds (never the cheapest)';
COMMENT ON COLUMN trusted_offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN trusted_offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN trusted_offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN trusted_offers.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN trusted_offers.body_sha256 IS 'sha256 of the response body';
COMMENT ON COLUMN trusted_offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN trusted_offers.screen_note IS 'why a large move was let through (confirmed, market moved)';
COMMENT ON COLUMN trusted_offers.price_raw IS 'the price cell''s text, verbatim (NULL for rows loaded before migration 017)';

-- latest_offers and held_offers as in migration 014, read from the stored tables.
CREATE OR REPLACE VIEW latest_offers AS
SELECT *, NULL::VARCHAR AS held_reading_reason FROM current_offers WHERE held_reason IS NULL
UNION ALL BY NAME
SELECT t.*, h.held_reason AS held_reading_reason
FROM trusted_offers t JOIN current_offers h USING (provider, offer_key)
WHERE h.held_reason IS NOT NULL AND t.observed_at < h.observed_at;

CREATE OR REPLACE VIEW held_offers AS
SELECT provider, offer_key, gpu_model, gpu_count, billing, tier, price_per_hour, price_per_gpu_hour, held_reason,
       observed_at, run_id, source_url, warc_file, warc_record_id
FROM current_offers WHERE held_reason IS NOT NULL;

-- Their comments (migration 049), again: CREATE OR REPLACE VIEW drops them.
COMMENT ON VIEW latest_offers IS 'Each provider''s offers from its latest successful run, as trusted prices (a reading the quality gate holds shows the offer''s last trusted reading, flagged by held_reading_reason).';
COMMENT ON COLUMN latest_offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN latest_offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN latest_offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN latest_offers.gpu_label IS 'the GPU label as the source printed it';
COMMENT ON COLUMN latest_offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN latest_offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN latest_offers.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN latest_offers.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN latest_offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN latest_offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN latest_offers.reserved_term IS 'billing reserved: the term ("1 month", "3 years", ...)';
COMMENT ON COLUMN latest_offers.self_service IS 'false when a sales contact or a large minimum is required';
COMMENT ON COLUMN latest_offers.region IS 'region, when the price is per region';
COMMENT ON COLUMN latest_offers.currency IS 'ISO currency of the price';
COMMENT ON COLUMN latest_offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour';
COMMENT ON COLUMN latest_offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN latest_offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN latest_offers.is_priced IS 'false for Contact sales, placeholders, unresolved text';
COMMENT ON COLUMN latest_offers.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN latest_offers.availability IS 'availability as the source states it (regions, stock)';
COMMENT ON COLUMN latest_offers.is_aggregator IS 'true for re-sellers of other clouds (never the cheapest)';
COMMENT ON COLUMN latest_offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN latest_offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN latest_offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN latest_offers.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN latest_offers.body_sha256 IS 'sha256 of the response body';
COMMENT ON COLUMN latest_offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN latest_offers.screen_note IS 'why a large move was let through (confirmed, market moved)';
COMMENT ON COLUMN latest_offers.price_raw IS 'the price cell''s text, verbatim (NULL for rows loaded before migration 017)';
COMMENT ON COLUMN latest_offers.held_reading_reason IS 'the held reading''s reason when this row is the offer''s last trusted reading instead';
COMMENT ON VIEW held_offers IS 'Readings of each provider''s latest successful run that the quality gate holds, and why.';
COMMENT ON COLUMN held_offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN held_offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN held_offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN held_offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN held_offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN held_offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN held_offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN held_offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN held_offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN held_offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN held_offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN held_offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN held_offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN held_offers.warc_record_id IS 'WARC-Record-ID of the archived response';

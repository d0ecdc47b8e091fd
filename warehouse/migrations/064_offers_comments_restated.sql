-- Migration 063 rebuilt offers (its price_unit CHECK now admits 'gpu_second') and left its comments
-- to the repeatables; a warehouse is the same whichever way it was built only when the migrations
-- write them too (tests/test_schema_fresh.py): they are restated here, as warehouse/tables/schema.yaml
-- states them (offers.price_unit: 'instance_hour | gpu_hour | gpu_second').
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
COMMENT ON COLUMN offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour | gpu_second';
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

-- The view held_offers, as it is now (its docs: held_offers.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW held_offers AS
SELECT provider, offer_key, gpu_model, gpu_count, billing, tier, price_per_hour, price_per_gpu_hour, held_reason,
       observed_at, run_id, source_url, warc_file, warc_record_id
FROM current_offers WHERE held_reason IS NOT NULL;

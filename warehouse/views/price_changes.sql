-- The view price_changes, as it is now (its docs: price_changes.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW price_changes AS
SELECT provider, offer_key, gpu_model, gpu_count, billing, tier,
    started_by AS event,
    prev_price_per_hour AS old_price_per_hour,
    price_per_hour AS new_price_per_hour,
    prev_price_text AS old_price_text,
    price_text AS new_price_text,
    round(100 * (price_per_hour - prev_price_per_hour) / prev_price_per_hour, 2) AS change_pct,
    prev_last_seen_at AS last_seen_old_at,
    prev_valid_to AS absent_since,
    valid_from AS changed_at,
    first_run_id AS run_id
FROM price_spells
WHERE spell_no > 1;

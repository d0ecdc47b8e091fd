-- The view offer_price_history, as it is now (its docs: offer_price_history.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW offer_price_history AS
SELECT provider, offer_key, gpu_model, form_factor, comparable_class(gpu_model, form_factor) AS comparable_class,
       gpu_count, billing, tier, price_per_hour, price_per_gpu_hour,
       price_text, started_by, valid_from, valid_to, last_seen_at, observations, first_run_id
FROM price_spells;

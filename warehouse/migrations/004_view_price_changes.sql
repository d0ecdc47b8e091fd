-- Every change of an offer's price between two successful observations (old, new, when).
-- A price that turns into "Contact us" is a change too (new_price_per_hour NULL).
CREATE OR REPLACE VIEW price_changes AS
SELECT * FROM (
    SELECT provider, offer_key, gpu_model, gpu_count, billing, tier,
        lag(price_per_hour) OVER w AS old_price_per_hour,
        price_per_hour AS new_price_per_hour,
        lag(price_text) OVER w AS old_price_text,
        price_text AS new_price_text,
        round(100 * (price_per_hour - lag(price_per_hour) OVER w) / lag(price_per_hour) OVER w, 2) AS change_pct,
        lag(last_seen_at) OVER w AS last_seen_old_at,
        valid_from AS changed_at,
        first_run_id AS run_id
    FROM offer_price_history
    WINDOW w AS (PARTITION BY provider, offer_key ORDER BY valid_from)
) WHERE last_seen_old_at IS NOT NULL;

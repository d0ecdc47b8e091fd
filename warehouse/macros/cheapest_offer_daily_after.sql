-- The macro cheapest_offer_daily_after, as it is now (its docs: cheapest_offer_daily_after.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE MACRO cheapest_offer_daily_after(since_day, open_spells := false) AS TABLE
SELECT day, gpu_model, gpu_count, billing,
       min(price_per_hour) AS min_price_per_hour,
       median(price_per_hour) AS median_price_per_hour,
       arg_min(price_per_gpu_hour, (price_per_hour, provider, offer_key)) AS min_price_per_gpu_hour,
       arg_min(provider, (price_per_hour, provider, offer_key)) AS min_provider,
       arg_min(offer_key, (price_per_hour, provider, offer_key)) AS min_offer_key,
       count(*) AS offers,
       count(DISTINCT provider) AS providers
FROM daily_marts_in_force(since_day, open_spells := open_spells)
GROUP BY day, gpu_model, gpu_count, billing;

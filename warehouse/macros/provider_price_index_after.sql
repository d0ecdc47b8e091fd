-- The macro provider_price_index_after, as it is now (its docs: provider_price_index_after.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE MACRO provider_price_index_after(since_day, open_spells := false) AS TABLE
WITH base AS (
    SELECT day, gpu_model, billing, provider, price_per_gpu_hour FROM daily_marts_in_force(since_day, open_spells := open_spells)
),
per_provider AS (
    SELECT day, gpu_model, billing, provider,
           min(price_per_gpu_hour) AS provider_min_per_gpu_hour,
           median(price_per_gpu_hour) AS provider_median_per_gpu_hour,
           count(*) AS provider_offers
    FROM base
    GROUP BY day, gpu_model, billing, provider
),
market AS (
    SELECT day, gpu_model, billing,
           median(price_per_gpu_hour) AS market_median_per_gpu_hour,
           count(*) AS market_offers,
           count(DISTINCT provider) AS market_providers
    FROM base
    GROUP BY day, gpu_model, billing
)
SELECT p.day, p.provider, p.gpu_model, p.billing,
       p.provider_min_per_gpu_hour, p.provider_median_per_gpu_hour, p.provider_offers,
       m.market_median_per_gpu_hour, m.market_offers, m.market_providers,
       round(100 * p.provider_median_per_gpu_hour / m.market_median_per_gpu_hour, 1)::DOUBLE AS price_index
FROM per_provider p
JOIN market m USING (day, gpu_model, billing);

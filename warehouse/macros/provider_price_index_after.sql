-- The macro provider_price_index_after, as it is now (its docs: provider_price_index_after.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- Per comparable class (issue 23). The market median leaves stale sources out (issue 21 item 6:
-- a 70-day-old price no longer sits in it); the *_with_stale columns are the same figures with
-- every source, asked for by name. A stale provider keeps its row, flagged, indexed against the
-- market of the fresh ones.
CREATE OR REPLACE MACRO provider_price_index_after(since_day, open_spells := false) AS TABLE
WITH base AS (
    SELECT day, gpu_model, comparable_class, billing, provider, price_per_gpu_hour, reading_age_days, source_stale
    FROM daily_marts_in_force(since_day, open_spells := open_spells)
),
per_provider AS (
    SELECT day, gpu_model, comparable_class, billing, provider,
           min(price_per_gpu_hour) AS provider_min_per_gpu_hour,
           median(price_per_gpu_hour) AS provider_median_per_gpu_hour,
           count(*) AS provider_offers,
           max(reading_age_days) AS reading_age_days,
           bool_or(source_stale) AS source_stale
    FROM base
    GROUP BY day, gpu_model, comparable_class, billing, provider
),
market AS (
    SELECT day, gpu_model, comparable_class, billing,
           median(price_per_gpu_hour) FILTER (WHERE NOT source_stale) AS market_median_per_gpu_hour,
           count(*) FILTER (WHERE NOT source_stale) AS market_offers,
           count(DISTINCT provider) FILTER (WHERE NOT source_stale) AS market_providers,
           median(price_per_gpu_hour) AS market_median_with_stale_per_gpu_hour,
           count(*) AS market_offers_with_stale,
           count(DISTINCT provider) AS market_providers_with_stale
    FROM base
    GROUP BY day, gpu_model, comparable_class, billing
)
SELECT p.day, p.provider, p.gpu_model, p.comparable_class, p.billing,
       p.provider_min_per_gpu_hour, p.provider_median_per_gpu_hour, p.provider_offers,
       p.reading_age_days, p.source_stale,
       m.market_median_per_gpu_hour, m.market_offers, m.market_providers,
       round(100 * p.provider_median_per_gpu_hour / m.market_median_per_gpu_hour, 1)::DOUBLE AS price_index,
       m.market_median_with_stale_per_gpu_hour, m.market_offers_with_stale, m.market_providers_with_stale,
       round(100 * p.provider_median_per_gpu_hour / m.market_median_with_stale_per_gpu_hour, 1)::DOUBLE
           AS price_index_with_stale
FROM per_provider p
JOIN market m USING (day, gpu_model, comparable_class, billing);

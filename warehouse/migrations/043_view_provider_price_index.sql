-- provider_price_index: each provider against the market, per snapshot day, canonical GPU and
-- billing, on the price per GPU-hour (so 1x and 8x instances compare). The market median is
-- the median per-GPU-hour price of every comparable offer of that GPU and billing in force at
-- the end of the day (offers_in_force_daily, all providers, this one included); the provider's
-- price is the median of its own offers of that GPU and billing. price_index = 100 * provider
-- median / market median: 100 is the market median, 80 is 20 % cheaper, 125 is 25 % dearer.
--
-- Stored, then computed: the days loaded are kept in provider_price_index_stored (written by
-- warehouse/sql/refresh_daily_marts.sql after each load); the view reads them while they are
-- valid (daily_marts_valid_through(), migration 040) and computes the days after them on read
-- with provider_price_index_after(since_day), the one definition of the figures.
CREATE OR REPLACE MACRO provider_price_index_after(since_day) AS TABLE
WITH base AS (
    SELECT day, gpu_model, billing, provider, price_per_gpu_hour FROM offers_in_force_after(since_day)
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

CREATE TABLE provider_price_index_stored (
    day                            DATE NOT NULL,
    provider                       VARCHAR NOT NULL,
    gpu_model                      VARCHAR NOT NULL,
    billing                        VARCHAR NOT NULL,
    provider_min_per_gpu_hour      DECIMAL(18, 6),
    provider_median_per_gpu_hour   DECIMAL(18, 6),
    provider_offers                BIGINT NOT NULL,
    market_median_per_gpu_hour     DECIMAL(18, 6),
    market_offers                  BIGINT NOT NULL,
    market_providers               BIGINT NOT NULL,
    price_index                    DOUBLE
);

CREATE OR REPLACE VIEW provider_price_index AS
SELECT * FROM provider_price_index_stored WHERE day <= daily_marts_valid_through()
UNION ALL
SELECT * FROM provider_price_index_after(daily_marts_valid_through());

COMMENT ON MACRO TABLE provider_price_index_after IS 'provider_price_index computed for the snapshot days after since_day: provider_price_index_after(since_day DATE).';
COMMENT ON VIEW provider_price_index IS 'Each provider against the market median for the same GPU and billing, per snapshot day, on USD per GPU-hour: price_index 100 = market median, below 100 cheaper.';
COMMENT ON COLUMN provider_price_index.day IS 'snapshot date (UTC); prices in force at that day''s last run';
COMMENT ON COLUMN provider_price_index.provider IS 'provider (spider name)';
COMMENT ON COLUMN provider_price_index.gpu_model IS 'canonical GPU model (gpu_catalog)';
COMMENT ON COLUMN provider_price_index.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN provider_price_index.provider_min_per_gpu_hour IS 'the provider''s cheapest USD per GPU-hour for this GPU and billing';
COMMENT ON COLUMN provider_price_index.provider_median_per_gpu_hour IS 'median USD per GPU-hour over the provider''s own offers of this GPU and billing';
COMMENT ON COLUMN provider_price_index.provider_offers IS 'the provider''s offers of this GPU and billing';
COMMENT ON COLUMN provider_price_index.market_median_per_gpu_hour IS 'median USD per GPU-hour over every comparable offer of this GPU and billing (all providers)';
COMMENT ON COLUMN provider_price_index.market_offers IS 'offers in the market median';
COMMENT ON COLUMN provider_price_index.market_providers IS 'providers in the market median (1 = this provider alone: the index says nothing)';
COMMENT ON COLUMN provider_price_index.price_index IS '100 * provider_median_per_gpu_hour / market_median_per_gpu_hour, one decimal';
COMMENT ON TABLE provider_price_index_stored IS 'The stored days of provider_price_index (refreshed by warehouse/sql/refresh_daily_marts.sql); read provider_price_index, not this.';
COMMENT ON COLUMN provider_price_index_stored.day IS 'snapshot date (UTC); prices in force at that day''s last run';
COMMENT ON COLUMN provider_price_index_stored.provider IS 'provider (spider name)';
COMMENT ON COLUMN provider_price_index_stored.gpu_model IS 'canonical GPU model (gpu_catalog)';
COMMENT ON COLUMN provider_price_index_stored.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN provider_price_index_stored.provider_min_per_gpu_hour IS 'the provider''s cheapest USD per GPU-hour for this GPU and billing';
COMMENT ON COLUMN provider_price_index_stored.provider_median_per_gpu_hour IS 'median USD per GPU-hour over the provider''s own offers of this GPU and billing';
COMMENT ON COLUMN provider_price_index_stored.provider_offers IS 'the provider''s offers of this GPU and billing';
COMMENT ON COLUMN provider_price_index_stored.market_median_per_gpu_hour IS 'median USD per GPU-hour over every comparable offer of this GPU and billing (all providers)';
COMMENT ON COLUMN provider_price_index_stored.market_offers IS 'offers in the market median';
COMMENT ON COLUMN provider_price_index_stored.market_providers IS 'providers in the market median (1 = this provider alone: the index says nothing)';
COMMENT ON COLUMN provider_price_index_stored.price_index IS '100 * provider_median_per_gpu_hour / market_median_per_gpu_hour, one decimal';

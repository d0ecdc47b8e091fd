-- cheapest_offer_daily: per canonical GPU, GPU count, billing and snapshot day, the market at
-- the end of that day (offers_in_force_daily): the cheapest price, the median, who offers the
-- cheapest (ties: provider, then offer key, alphabetically, as in cheapest_offer) and how many
-- offers and providers were compared. The latest day agrees with cheapest_offer.
--
-- Stored, then computed: the days loaded are kept in cheapest_offer_daily_stored (written by
-- warehouse/sql/refresh_daily_marts.sql after each load); the view reads them while they are
-- valid (daily_marts_valid_through(), migration 040) and computes the days after them on read
-- with cheapest_offer_daily_after(since_day), the one definition of the figures.
CREATE OR REPLACE MACRO cheapest_offer_daily_after(since_day) AS TABLE
SELECT day, gpu_model, gpu_count, billing,
       min(price_per_hour) AS min_price_per_hour,
       median(price_per_hour) AS median_price_per_hour,
       arg_min(price_per_gpu_hour, (price_per_hour, provider, offer_key)) AS min_price_per_gpu_hour,
       arg_min(provider, (price_per_hour, provider, offer_key)) AS min_provider,
       arg_min(offer_key, (price_per_hour, provider, offer_key)) AS min_offer_key,
       count(*) AS offers,
       count(DISTINCT provider) AS providers
FROM offers_in_force_after(since_day)
GROUP BY day, gpu_model, gpu_count, billing;

CREATE TABLE cheapest_offer_daily_stored (
    day                            DATE NOT NULL,
    gpu_model                      VARCHAR NOT NULL,
    gpu_count                      INTEGER NOT NULL,
    billing                        VARCHAR NOT NULL,
    min_price_per_hour             DECIMAL(18, 6) NOT NULL,
    median_price_per_hour          DECIMAL(18, 6) NOT NULL,
    min_price_per_gpu_hour         DECIMAL(18, 6),
    min_provider                   VARCHAR NOT NULL,
    min_offer_key                  VARCHAR NOT NULL,
    offers                         BIGINT NOT NULL,
    providers                      BIGINT NOT NULL
);

CREATE OR REPLACE VIEW cheapest_offer_daily AS
SELECT * FROM cheapest_offer_daily_stored WHERE day <= daily_marts_valid_through()
UNION ALL
SELECT * FROM cheapest_offer_daily_after(daily_marts_valid_through());

COMMENT ON MACRO TABLE cheapest_offer_daily_after IS 'cheapest_offer_daily computed for the snapshot days after since_day: cheapest_offer_daily_after(since_day DATE).';
COMMENT ON VIEW cheapest_offer_daily IS 'Per canonical GPU, GPU count, billing and snapshot day: the cheapest and median price in force at the end of the day, the provider and offer of the cheapest, and how many offers/providers were compared (no aggregators, self-service, USD).';
COMMENT ON COLUMN cheapest_offer_daily.day IS 'snapshot date (UTC); the prices in force at that day''s last run';
COMMENT ON COLUMN cheapest_offer_daily.gpu_model IS 'canonical GPU model (gpu_catalog)';
COMMENT ON COLUMN cheapest_offer_daily.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN cheapest_offer_daily.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN cheapest_offer_daily.min_price_per_hour IS 'cheapest USD per instance-hour';
COMMENT ON COLUMN cheapest_offer_daily.median_price_per_hour IS 'median USD per instance-hour over the offers compared';
COMMENT ON COLUMN cheapest_offer_daily.min_price_per_gpu_hour IS 'USD per GPU-hour of the cheapest offer';
COMMENT ON COLUMN cheapest_offer_daily.min_provider IS 'provider of the cheapest offer (ties: alphabetical provider, then offer key)';
COMMENT ON COLUMN cheapest_offer_daily.min_offer_key IS 'offer_key of the cheapest offer';
COMMENT ON COLUMN cheapest_offer_daily.offers IS 'offers compared';
COMMENT ON COLUMN cheapest_offer_daily.providers IS 'distinct providers among the offers compared';
COMMENT ON TABLE cheapest_offer_daily_stored IS 'The stored days of cheapest_offer_daily (refreshed by warehouse/sql/refresh_daily_marts.sql); read cheapest_offer_daily, not this.';
COMMENT ON COLUMN cheapest_offer_daily_stored.day IS 'snapshot date (UTC); the prices in force at that day''s last run';
COMMENT ON COLUMN cheapest_offer_daily_stored.gpu_model IS 'canonical GPU model (gpu_catalog)';
COMMENT ON COLUMN cheapest_offer_daily_stored.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN cheapest_offer_daily_stored.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_price_per_hour IS 'cheapest USD per instance-hour';
COMMENT ON COLUMN cheapest_offer_daily_stored.median_price_per_hour IS 'median USD per instance-hour over the offers compared';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_price_per_gpu_hour IS 'USD per GPU-hour of the cheapest offer';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_provider IS 'provider of the cheapest offer (ties: alphabetical provider, then offer key)';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_offer_key IS 'offer_key of the cheapest offer';
COMMENT ON COLUMN cheapest_offer_daily_stored.offers IS 'offers compared';
COMMENT ON COLUMN cheapest_offer_daily_stored.providers IS 'distinct providers among the offers compared';

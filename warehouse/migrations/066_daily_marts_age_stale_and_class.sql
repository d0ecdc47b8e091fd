-- Migration 066: the daily marts carry each row's age and a stale flag (issue 21 item 6) and group by
-- comparable class (issue 23 item 3): cheapest_offer_daily_stored and provider_price_index_stored
-- rebuilt with comparable_class, the reading's age and the stale flag; the market median (and
-- cheapest_offer_daily's median) leave stale sources out, a *_with_stale column keeps them
-- (warehouse/macros/cheapest_offer_daily_after.sql, provider_price_index_after.sql,
-- daily_marts_in_force.sql). The stored days are emptied, not converted: the views compute every
-- day on read until the next load's refresh stores them again (warehouse/sql/refresh_daily_marts.sql,
-- once: slower, never wrong). The tables' comments are restated here as
-- warehouse/tables/schema.yaml states them. The two views are dropped first: their old text (a
-- UNION of the stored rows with the old macros' 11 columns) cannot read the new tables, and the
-- repeatables create them again from warehouse/views/ with the macros (a numbered migration ran).
DROP VIEW IF EXISTS cheapest_offer_daily;
DROP VIEW IF EXISTS provider_price_index;
DROP TABLE cheapest_offer_daily_stored;
CREATE TABLE cheapest_offer_daily_stored (
    "day" DATE NOT NULL,
    gpu_model VARCHAR NOT NULL,
    comparable_class VARCHAR NOT NULL,
    gpu_count INTEGER NOT NULL,
    billing VARCHAR NOT NULL,
    min_price_per_hour DECIMAL(18,6) NOT NULL,
    median_price_per_hour DECIMAL(18,6),
    min_price_per_gpu_hour DECIMAL(18,6),
    min_provider VARCHAR NOT NULL,
    min_offer_key VARCHAR NOT NULL,
    offers BIGINT NOT NULL,
    providers BIGINT NOT NULL,
    min_reading_age_days DOUBLE,
    min_source_stale BOOLEAN NOT NULL,
    stale_offers BIGINT NOT NULL,
    median_price_with_stale_per_hour DECIMAL(18,6) NOT NULL
);
DROP TABLE provider_price_index_stored;
CREATE TABLE provider_price_index_stored (
    "day" DATE NOT NULL,
    provider VARCHAR NOT NULL,
    gpu_model VARCHAR NOT NULL,
    comparable_class VARCHAR NOT NULL,
    billing VARCHAR NOT NULL,
    provider_min_per_gpu_hour DECIMAL(18,6),
    provider_median_per_gpu_hour DECIMAL(18,6),
    provider_offers BIGINT NOT NULL,
    reading_age_days DOUBLE,
    source_stale BOOLEAN NOT NULL,
    market_median_per_gpu_hour DECIMAL(18,6),
    market_offers BIGINT NOT NULL,
    market_providers BIGINT NOT NULL,
    price_index DOUBLE,
    market_median_with_stale_per_gpu_hour DECIMAL(18,6),
    market_offers_with_stale BIGINT NOT NULL,
    market_providers_with_stale BIGINT NOT NULL,
    price_index_with_stale DOUBLE
);
DELETE FROM daily_marts_days;
COMMENT ON TABLE cheapest_offer_daily_stored IS 'The stored days of cheapest_offer_daily (stored by the load: warehouse/sql/store_latest_day.sql, refresh_daily_marts.sql); read cheapest_offer_daily, not this.';
COMMENT ON COLUMN cheapest_offer_daily_stored."day" IS 'snapshot date (UTC); the prices in force at that day''s last run';
COMMENT ON COLUMN cheapest_offer_daily_stored.gpu_model IS 'canonical GPU model (gpu_catalog)';
COMMENT ON COLUMN cheapest_offer_daily_stored.comparable_class IS 'the offers'' comparable class (macro comparable_class: H100 SXM, H100 PCIe, H100 NVL, ...; a model that does not split is its own class): only offers of one class are compared';
COMMENT ON COLUMN cheapest_offer_daily_stored.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN cheapest_offer_daily_stored.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_price_per_hour IS 'cheapest USD per instance-hour (every source, stale ones too, as cheapest_offer ranks them: see min_source_stale)';
COMMENT ON COLUMN cheapest_offer_daily_stored.median_price_per_hour IS 'median USD per instance-hour over the offers of sources not stale that day (NULL: every source stale); median_price_with_stale_per_hour keeps them';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_price_per_gpu_hour IS 'USD per GPU-hour of the cheapest offer';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_provider IS 'provider of the cheapest offer (ties: alphabetical provider, then offer key)';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_offer_key IS 'offer_key of the cheapest offer';
COMMENT ON COLUMN cheapest_offer_daily_stored.offers IS 'offers compared (stale sources'' included)';
COMMENT ON COLUMN cheapest_offer_daily_stored.providers IS 'distinct providers among the offers compared';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_reading_age_days IS 'days from the cheapest offer''s source''s last trusted reading to the day''s end';
COMMENT ON COLUMN cheapest_offer_daily_stored.min_source_stale IS 'the cheapest offer''s source was stale that day (its last trusted reading older than mart_settings.stale_after_hours at the day''s end)';
COMMENT ON COLUMN cheapest_offer_daily_stored.stale_offers IS 'offers compared whose source was stale that day (left out of median_price_per_hour)';
COMMENT ON COLUMN cheapest_offer_daily_stored.median_price_with_stale_per_hour IS 'median USD per instance-hour over every offer compared, stale sources'' included';
COMMENT ON TABLE provider_price_index_stored IS 'The stored days of provider_price_index (stored by the load: warehouse/sql/store_latest_day.sql, refresh_daily_marts.sql); read provider_price_index, not this.';
COMMENT ON COLUMN provider_price_index_stored."day" IS 'snapshot date (UTC); prices in force at that day''s last run';
COMMENT ON COLUMN provider_price_index_stored.provider IS 'provider (spider name)';
COMMENT ON COLUMN provider_price_index_stored.gpu_model IS 'canonical GPU model (gpu_catalog)';
COMMENT ON COLUMN provider_price_index_stored.comparable_class IS 'the offers'' comparable class (macro comparable_class): the provider and the market are compared within one class';
COMMENT ON COLUMN provider_price_index_stored.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN provider_price_index_stored.provider_min_per_gpu_hour IS 'the provider''s cheapest USD per GPU-hour for this class and billing';
COMMENT ON COLUMN provider_price_index_stored.provider_median_per_gpu_hour IS 'median USD per GPU-hour over the provider''s own offers of this class and billing';
COMMENT ON COLUMN provider_price_index_stored.provider_offers IS 'the provider''s offers of this class and billing';
COMMENT ON COLUMN provider_price_index_stored.reading_age_days IS 'days from the provider''s last trusted reading to the day''s end';
COMMENT ON COLUMN provider_price_index_stored.source_stale IS 'the provider was stale that day (its last trusted reading older than mart_settings.stale_after_hours at the day''s end): left out of the market figures';
COMMENT ON COLUMN provider_price_index_stored.market_median_per_gpu_hour IS 'median USD per GPU-hour over every comparable offer of this class and billing from sources not stale that day (NULL: every source stale)';
COMMENT ON COLUMN provider_price_index_stored.market_offers IS 'offers in the market median (sources not stale)';
COMMENT ON COLUMN provider_price_index_stored.market_providers IS 'providers in the market median (sources not stale; 1 = this provider alone: the index says nothing)';
COMMENT ON COLUMN provider_price_index_stored.price_index IS '100 * provider_median_per_gpu_hour / market_median_per_gpu_hour, one decimal';
COMMENT ON COLUMN provider_price_index_stored.market_median_with_stale_per_gpu_hour IS 'the market median with every source, stale ones included';
COMMENT ON COLUMN provider_price_index_stored.market_offers_with_stale IS 'offers in market_median_with_stale_per_gpu_hour';
COMMENT ON COLUMN provider_price_index_stored.market_providers_with_stale IS 'providers in market_median_with_stale_per_gpu_hour';
COMMENT ON COLUMN provider_price_index_stored.price_index_with_stale IS '100 * provider_median_per_gpu_hour / market_median_with_stale_per_gpu_hour, one decimal';

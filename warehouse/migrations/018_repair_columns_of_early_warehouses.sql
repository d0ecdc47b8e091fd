-- Repair of warehouses built by an early release (issue 9). Migrations 001 and 005 were edited
-- after they had been applied (commits 102d717 and 247824a), so a warehouse built by the first
-- release (beb3d71) or the second (102d717) lacks what today's 001/005 create:
--   offers.billing, offers.reserved_term, offers.self_service   (001 as of 102d717)
--   provider_runs.monitors                                       (001 as of 247824a)
--   cheapest_offer by billing and self-service only              (005 as of 102d717)
-- and migration 014 (held_offers reads offers.billing) could not be applied to it.
--
-- A repair migration (NNN_repair_*) runs BEFORE the other pending migrations of a warehouse
-- that already has migrations recorded (warehouse/db.py migrate), so it may use only the
-- tables of 001 and the latest_offers view of 002, and it changes nothing on a warehouse
-- that already has these columns (every statement is IF NOT EXISTS / WHERE ... IS NULL).
ALTER TABLE offers ADD COLUMN IF NOT EXISTS billing VARCHAR;
ALTER TABLE offers ADD COLUMN IF NOT EXISTS reserved_term VARCHAR;
ALTER TABLE offers ADD COLUMN IF NOT EXISTS self_service BOOLEAN;
ALTER TABLE provider_runs ADD COLUMN IF NOT EXISTS monitors VARCHAR[];

-- Rows stored by the first release carry billing inside tier ("on-demand", "spot",
-- "reserved-<term>", "marketplace", or a provider tier such as "prototyping", which was billed
-- on demand). self_service was not recorded then: the loader's default when a source says
-- nothing (true, pricewatch/collect.py build_run) is what those rows would have got.
UPDATE offers SET
    billing = CASE WHEN tier IN ('spot', 'marketplace') THEN tier
                   WHEN tier LIKE 'reserved%' THEN 'reserved'
                   ELSE 'on-demand' END,
    reserved_term = CASE WHEN tier LIKE 'reserved-%' THEN substr(tier, length('reserved-') + 1) END
WHERE billing IS NULL;
UPDATE offers SET self_service = true WHERE self_service IS NULL;

-- 005 as it is today (cheapest per GPU, count and billing; self-service only). No later
-- migration replaces this view, so recreating it is a no-op where 005 was already this text.
CREATE OR REPLACE VIEW cheapest_offer AS
SELECT gpu_model, gpu_count, billing, provider, offer_key, tier, price_per_hour, price_per_gpu_hour,
       currency, region, observed_at, source_url, offers_compared
FROM (
    SELECT *,
        row_number() OVER (PARTITION BY gpu_model, gpu_count, billing
                           ORDER BY price_per_hour, provider, offer_key) AS rank,
        count(*) OVER (PARTITION BY gpu_model, gpu_count, billing) AS offers_compared
    FROM latest_offers
    WHERE is_priced AND gpu_model IS NOT NULL AND NOT is_aggregator AND self_service
      AND currency = 'USD'
) WHERE rank = 1;

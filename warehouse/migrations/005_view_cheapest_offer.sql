-- The cheapest priced offer per canonical GPU, GPU count and billing tier, across the latest
-- successful snapshot of every provider. Aggregators (re-sellers of other clouds) and
-- labels unknown to the catalog are left out.
CREATE OR REPLACE VIEW cheapest_offer AS
SELECT gpu_model, gpu_count, tier, provider, offer_key, price_per_hour, price_per_gpu_hour,
       currency, region, observed_at, source_url, offers_compared
FROM (
    SELECT *,
        row_number() OVER (PARTITION BY gpu_model, gpu_count, tier
                           ORDER BY price_per_hour, provider, offer_key) AS rank,
        count(*) OVER (PARTITION BY gpu_model, gpu_count, tier) AS offers_compared
    FROM latest_offers
    WHERE is_priced AND gpu_model IS NOT NULL AND NOT is_aggregator AND currency = 'USD'
) WHERE rank = 1;

-- The view cheapest_offer, as it is now (its docs: cheapest_offer.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- Like is compared with like: offers of one comparable class (latest_offers.comparable_class).
CREATE OR REPLACE VIEW cheapest_offer AS
SELECT comparable_class, gpu_model, gpu_count, billing, provider, offer_key, tier, price_per_hour, price_per_gpu_hour,
       currency, region, observed_at, source_url, offers_compared
FROM (
    SELECT *,
        row_number() OVER (PARTITION BY comparable_class, gpu_count, billing
                           ORDER BY price_per_hour, provider, offer_key) AS rank,
        count(*) OVER (PARTITION BY comparable_class, gpu_count, billing) AS offers_compared
    FROM latest_offers
    WHERE is_priced AND gpu_model IS NOT NULL AND NOT is_aggregator AND self_service
      AND currency = 'USD'
) WHERE rank = 1;

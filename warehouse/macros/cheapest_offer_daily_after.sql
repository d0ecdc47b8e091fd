-- The macro cheapest_offer_daily_after, as it is now (its docs: cheapest_offer_daily_after.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- Per comparable class (issue 23: an H100 SXM is not compared with an H100 PCIe): the cheapest of
-- every offer in force, as cheapest_offer ranks them, flagged with its source's age and staleness;
-- the median, a market-wide figure, leaves stale sources out (median_price_with_stale_per_hour
-- keeps them, issue 21 item 6).
CREATE OR REPLACE MACRO cheapest_offer_daily_after(since_day, open_spells := false) AS TABLE
SELECT day, gpu_model, comparable_class, gpu_count, billing, min_price_per_hour, median_price_per_hour,
       cheapest.price_per_gpu_hour AS min_price_per_gpu_hour, cheapest.provider AS min_provider,
       cheapest.offer_key AS min_offer_key, offers, providers,
       cheapest.reading_age_days AS min_reading_age_days, cheapest.source_stale AS min_source_stale,
       stale_offers, median_price_with_stale_per_hour
FROM (
    SELECT day, gpu_model, comparable_class, gpu_count, billing,
           min(price_per_hour) AS min_price_per_hour,
           median(price_per_hour) FILTER (WHERE NOT source_stale) AS median_price_per_hour,
           -- the cheapest offer's fields, one arg_min (ties: alphabetical provider, then offer key)
           arg_min({'price_per_gpu_hour': price_per_gpu_hour, 'provider': provider, 'offer_key': offer_key,
                    'reading_age_days': reading_age_days, 'source_stale': source_stale},
                   (price_per_hour, provider, offer_key)) AS cheapest,
           count(*) AS offers,
           count(DISTINCT provider) AS providers,
           count(*) FILTER (WHERE source_stale) AS stale_offers,
           median(price_per_hour) AS median_price_with_stale_per_hour
    FROM daily_marts_in_force(since_day, open_spells := open_spells)
    GROUP BY day, gpu_model, comparable_class, gpu_count, billing
);

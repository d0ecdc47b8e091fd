-- export_cheapest_offer_daily: the mart cheapest_offer_daily from day $1 on, amounts as DOUBLE,
-- for `pricewatch export` (column set in pricewatch/export/datasets.py).
SELECT day, gpu_model, comparable_class, gpu_count, billing, CAST(min_price_per_hour AS DOUBLE) AS min_price_per_hour,
       CAST(median_price_per_hour AS DOUBLE) AS median_price_per_hour,
       CAST(min_price_per_gpu_hour AS DOUBLE) AS min_price_per_gpu_hour, min_provider, min_offer_key, offers, providers
FROM cheapest_offer_daily WHERE day >= $1
ORDER BY day, gpu_model, comparable_class, gpu_count, billing

-- export_provider_price_index: the mart provider_price_index from day $1 on, amounts as DOUBLE,
-- for `pricewatch export` (column set in pricewatch/export/datasets.py).
SELECT day, provider, gpu_model, comparable_class, billing, CAST(provider_min_per_gpu_hour AS DOUBLE) AS provider_min_per_gpu_hour,
       CAST(provider_median_per_gpu_hour AS DOUBLE) AS provider_median_per_gpu_hour, provider_offers,
       CAST(market_median_per_gpu_hour AS DOUBLE) AS market_median_per_gpu_hour, market_offers, market_providers,
       price_index
FROM provider_price_index WHERE day >= $1
ORDER BY day, provider, gpu_model, comparable_class, billing

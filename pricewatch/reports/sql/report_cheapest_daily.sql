-- cheapest_offer_daily of the GPU models the report charts, per comparable class. $1 = list of gpu_model.
SELECT day, gpu_model, comparable_class, gpu_count, billing, min_price_per_hour, min_price_per_gpu_hour,
       median_price_per_hour, min_provider, min_offer_key, offers, providers
FROM cheapest_offer_daily
WHERE list_contains($1, gpu_model)
ORDER BY gpu_model, comparable_class, day, billing, gpu_count;

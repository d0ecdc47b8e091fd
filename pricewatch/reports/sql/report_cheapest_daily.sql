-- cheapest_offer_daily of the GPU models the report charts. $1 = list of gpu_model. Every column:
-- the charts group by the mart's comparable class (pricewatch/reports/charts.py class_of).
SELECT *
FROM cheapest_offer_daily
WHERE list_contains($1, gpu_model)
ORDER BY gpu_model, day, billing, gpu_count;

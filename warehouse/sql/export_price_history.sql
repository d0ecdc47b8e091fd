-- export_price_history: every price spell (offer_price_history) still in force on snapshot
-- date $1 or later (valid_to NULL, or not before $1), dated by the snapshot date of the run
-- that started it, for `pricewatch export` (dataset "price_history"; column set in
-- pricewatch/export/datasets.py).
SELECT r.snapshot_date,
       h.provider, h.offer_key, h.gpu_model, h.form_factor, h.comparable_class, h.gpu_count, h.billing, h.tier,
       CAST(h.price_per_hour AS DOUBLE) AS price_per_hour, CAST(h.price_per_gpu_hour AS DOUBLE) AS price_per_gpu_hour, h.price_text, h.started_by,
       h.valid_from, h.valid_to, h.last_seen_at, CAST(h.observations AS BIGINT) AS observations, h.first_run_id
FROM offer_price_history h
JOIN runs r ON r.run_id = h.first_run_id
WHERE h.valid_to IS NULL OR CAST(h.valid_to AT TIME ZONE 'UTC' AS DATE) >= $1
ORDER BY r.snapshot_date, h.provider, h.offer_key, h.valid_from

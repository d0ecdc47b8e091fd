-- The macro offers_in_force_after, as it is now (its docs: offers_in_force_after.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE MACRO offers_in_force_after(since_day) AS TABLE
WITH days AS (
    SELECT snapshot_date AS day, max(observed_at) AS day_end
    FROM runs
    WHERE snapshot_date > since_day
    GROUP BY snapshot_date
),
latest AS (
    SELECT day, day_end FROM days WHERE day = (SELECT max(snapshot_date) FROM runs)
),
earlier AS (
    SELECT d.day, d.day_end, h.provider, h.offer_key, h.gpu_model, h.gpu_count, h.billing, h.tier,
           h.price_per_hour, h.price_per_gpu_hour, h.first_run_id AS evidence_run_id
    FROM price_spells h
    JOIN (SELECT * FROM days WHERE day < (SELECT max(snapshot_date) FROM runs)) d
      ON h.valid_from <= d.day_end AND coalesce(h.valid_to, 'infinity'::TIMESTAMPTZ) > d.day_end
    WHERE h.price_per_hour IS NOT NULL AND h.gpu_model IS NOT NULL
      AND h.currency = 'USD' AND h.self_service AND NOT h.is_aggregator
)
SELECT * FROM earlier
UNION ALL
SELECT l.day, l.day_end, o.provider, o.offer_key, o.gpu_model, o.gpu_count, o.billing, o.tier,
       o.price_per_hour, o.price_per_gpu_hour, o.run_id AS evidence_run_id
FROM latest_offers o CROSS JOIN latest l
WHERE o.is_priced AND o.gpu_model IS NOT NULL
  AND o.currency = 'USD' AND o.self_service AND NOT o.is_aggregator;

-- The macro offers_in_force_between, as it is now (its docs: offers_in_force_between.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- offers_in_force_daily for the snapshot days from_day .. to_day (issue 24 item 2): a day range
-- reads only the spells in force at some day's end within it, and each spell is expanded to the
-- days it covers by position (two ASOF joins on the days' ends, then a range of day numbers),
-- instead of a range join of every spell with every day. Days are numbered by their end
-- (dense_rank: days ending at the same instant share a number), so a day whose last run is
-- earlier than an earlier day's (an archive replayed late) still gets the spells in force then.
CREATE OR REPLACE MACRO offers_in_force_between(from_day, to_day) AS TABLE
WITH latest_day AS (
    SELECT max(snapshot_date) AS day FROM runs
),
days AS (
    SELECT snapshot_date AS day, max(observed_at) AS day_end
    FROM runs
    WHERE snapshot_date BETWEEN from_day AND to_day
    GROUP BY snapshot_date
),
earlier AS (
    SELECT day, day_end, dense_rank() OVER (ORDER BY day_end) AS i
    FROM days WHERE day < (SELECT day FROM latest_day)
),
ends AS (
    SELECT DISTINCT i, day_end FROM earlier
),
spells AS (
    SELECT h.* FROM price_spells h
    WHERE h.valid_from <= (SELECT max(day_end) FROM ends)
      AND coalesce(h.valid_to, 'infinity'::TIMESTAMPTZ) > (SELECT min(day_end) FROM ends)
      AND h.price_per_hour IS NOT NULL AND h.gpu_model IS NOT NULL
      AND h.currency = 'USD' AND h.self_service AND NOT h.is_aggregator
),
spans AS (   -- the first day ending at or after the spell opened, the last ending before it closed
    SELECT s.provider, s.offer_key, s.gpu_model, s.gpu_count, s.billing, s.tier, s.price_per_hour,
           s.price_per_gpu_hour, s.first_run_id, f.i AS first_i, l.i AS last_i
    FROM spells s
    ASOF JOIN ends f ON s.valid_from <= f.day_end
    ASOF JOIN (SELECT i, day_end AS last_end FROM ends) l
           ON coalesce(s.valid_to, 'infinity'::TIMESTAMPTZ) > l.last_end
    WHERE f.i <= l.i
),
per_day AS (
    SELECT unnest(range(first_i, last_i + 1)) AS i, * EXCLUDE (first_i, last_i) FROM spans
)
SELECT e.day, e.day_end, p.provider, p.offer_key, p.gpu_model, p.gpu_count, p.billing, p.tier,
       p.price_per_hour, p.price_per_gpu_hour, p.first_run_id AS evidence_run_id
FROM per_day p JOIN earlier e USING (i)
UNION ALL
SELECT d.day, d.day_end, o.provider, o.offer_key, o.gpu_model, o.gpu_count, o.billing, o.tier,
       o.price_per_hour, o.price_per_gpu_hour, o.run_id AS evidence_run_id
FROM latest_offers o
CROSS JOIN (SELECT * FROM days WHERE day = (SELECT day FROM latest_day)) d
WHERE o.is_priced AND o.gpu_model IS NOT NULL
  AND o.currency = 'USD' AND o.self_service AND NOT o.is_aggregator;

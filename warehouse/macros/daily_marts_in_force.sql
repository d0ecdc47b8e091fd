-- The macro daily_marts_in_force, as it is now (its docs: daily_marts_in_force.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- The rows the daily marts aggregate: offers_in_force_after(since_day), or, open_spells, the latest
-- snapshot day's rows read off the open price spells alone. The load stores the latest day that way
-- just before the first run of a new day (warehouse/sql/store_latest_day.sql): no run after that
-- day's end is stored yet, so the spells in force at its end are exactly the open ones (valid_to
-- NULL), read without joining the day to every spell. The comparability filter is
-- offers_in_force_after's (warehouse/macros/offers_in_force_after.sql); tests/test_marts_load.py
-- checks that both give the same rows.
CREATE OR REPLACE MACRO daily_marts_in_force(since_day, open_spells := false) AS TABLE
SELECT * FROM offers_in_force_after(since_day) WHERE NOT open_spells
UNION ALL
SELECT d.day, d.day_end, h.provider, h.offer_key, h.gpu_model, h.gpu_count, h.billing, h.tier,
       h.price_per_hour, h.price_per_gpu_hour, h.first_run_id AS evidence_run_id
FROM price_spells h
CROSS JOIN (SELECT snapshot_date AS day, max(observed_at) AS day_end FROM runs
            WHERE snapshot_date = (SELECT max(snapshot_date) FROM runs) GROUP BY snapshot_date) d
WHERE open_spells AND d.day > since_day
  AND h.valid_to IS NULL AND h.valid_from <= d.day_end
  AND h.price_per_hour IS NOT NULL AND h.gpu_model IS NOT NULL
  AND h.currency = 'USD' AND h.self_service AND NOT h.is_aggregator;

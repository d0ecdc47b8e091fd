-- The macro daily_marts_in_force, as it is now (its docs: daily_marts_in_force.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- The rows the daily marts aggregate: each comparable offer in force at the end of each snapshot
-- day after since_day (offers_in_force_after's rows, warehouse/macros/offers_in_force_after.sql:
-- the days before the latest from the price spells, the latest from latest_offers), with its
-- comparable class and how old its source's reading was that day. open_spells: the latest day
-- only, read off the open price spells; the load stores the latest day that way just before the
-- first run of a new day (warehouse/sql/store_latest_day.sql): no run after that day's end is
-- stored yet, so the spells in force at its end are exactly the open ones (valid_to NULL), read
-- without joining the day to every spell. tests/test_marts_load.py checks that both give the same rows.
-- source_read_at: the provider's last trusted reading at or before the day's end (for the latest
-- day, the run its current_offers come from); source_stale: older than mart_settings.stale_after_hours
-- (source_freshness's limit, default 48 h) at the day's end.
CREATE OR REPLACE MACRO daily_marts_in_force(since_day, open_spells := false) AS TABLE
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
    SELECT d.day, d.day_end, h.provider, h.offer_key, h.gpu_model, h.form_factor, h.gpu_count, h.billing, h.tier,
           h.price_per_hour, h.price_per_gpu_hour, h.first_run_id AS evidence_run_id
    FROM price_spells h
    JOIN (SELECT * FROM days WHERE day < (SELECT max(snapshot_date) FROM runs)) d
      ON h.valid_from <= d.day_end AND coalesce(h.valid_to, 'infinity'::TIMESTAMPTZ) > d.day_end
    WHERE NOT open_spells
      AND h.price_per_hour IS NOT NULL AND h.gpu_model IS NOT NULL
      AND h.currency = 'USD' AND h.self_service AND NOT h.is_aggregator
),
earlier_read AS (   -- each provider's last trusted reading at or before each earlier day's end
    SELECT k.provider, k.day_end, r.observed_at AS source_read_at
    FROM (SELECT DISTINCT provider, day_end FROM earlier) k
    ASOF JOIN (SELECT provider, observed_at FROM provider_runs WHERE trusted) r
      ON r.provider = k.provider AND r.observed_at <= k.day_end
),
latest_rows AS (
    SELECT l.day, l.day_end, o.provider, o.offer_key, o.gpu_model, o.form_factor, o.gpu_count, o.billing, o.tier,
           o.price_per_hour, o.price_per_gpu_hour, o.run_id AS evidence_run_id
    FROM latest_offers o CROSS JOIN latest l
    WHERE NOT open_spells AND o.is_priced AND o.gpu_model IS NOT NULL
      AND o.currency = 'USD' AND o.self_service AND NOT o.is_aggregator
    UNION ALL
    SELECT l.day, l.day_end, h.provider, h.offer_key, h.gpu_model, h.form_factor, h.gpu_count, h.billing, h.tier,
           h.price_per_hour, h.price_per_gpu_hour, h.first_run_id AS evidence_run_id
    FROM price_spells h CROSS JOIN latest l
    WHERE open_spells AND h.valid_to IS NULL AND h.valid_from <= l.day_end
      AND h.price_per_hour IS NOT NULL AND h.gpu_model IS NOT NULL
      AND h.currency = 'USD' AND h.self_service AND NOT h.is_aggregator
),
latest_read AS (    -- the run each provider's latest offers come from: its last trusted reading
    SELECT provider, max(observed_at) AS source_read_at FROM current_offers GROUP BY provider
),
rows AS (
    SELECT e.*, r.source_read_at FROM earlier e LEFT JOIN earlier_read r USING (provider, day_end)
    UNION ALL
    SELECT l.*, r.source_read_at FROM latest_rows l LEFT JOIN latest_read r USING (provider)
),
lim AS (
    SELECT s.stale_after_hours AS hours FROM mart_settings s
)
SELECT w.day, w.day_end, w.provider, w.offer_key, w.gpu_model, comparable_class(w.gpu_model, w.form_factor) AS comparable_class,
       w.gpu_count, w.billing, w.tier, w.price_per_hour, w.price_per_gpu_hour, w.evidence_run_id, w.source_read_at,
       round((epoch(w.day_end) - epoch(w.source_read_at)) / 86400, 2) AS reading_age_days,
       coalesce(epoch(w.day_end) - epoch(w.source_read_at) > lim.hours * 3600, true) AS source_stale
FROM rows w CROSS JOIN lim;

-- offers_in_force_daily: the market as it stood at the end of each snapshot day, the base of the
-- daily marts. One row per day and comparable offer: its trusted price in force at the day's
-- last run (a price spell of offer_price_history that started at or before it and had not
-- ended). Comparable as in cheapest_offer: priced, a catalog GPU, USD, self-service, no
-- aggregator (re-sellers of other clouds). A provider that failed or was not attempted that
-- day keeps its last trusted prices (see source_freshness for how old they are); readings the
-- quality gate holds never count.
--
-- offers_in_force_after(since_day): the same for the days after since_day only (what the daily
-- marts compute on read, and what their refresh stores). The latest day is latest_offers (the
-- same offers and prices, cheaper to read: no spell of every offer's history is scanned); an
-- earlier day is read off the spells, each with its evidence run's offer row for the filters.
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
    FROM offer_price_history h
    JOIN days d ON h.valid_from <= d.day_end AND (h.valid_to IS NULL OR h.valid_to > d.day_end)
    JOIN offers o ON o.run_id = h.first_run_id AND o.provider = h.provider AND o.offer_key = h.offer_key
    WHERE d.day < (SELECT max(snapshot_date) FROM runs)
      AND h.price_per_hour IS NOT NULL AND h.gpu_model IS NOT NULL
      AND o.currency = 'USD' AND o.self_service AND NOT o.is_aggregator
)
SELECT * FROM earlier
UNION ALL
SELECT l.day, l.day_end, o.provider, o.offer_key, o.gpu_model, o.gpu_count, o.billing, o.tier,
       o.price_per_hour, o.price_per_gpu_hour, o.run_id AS evidence_run_id
FROM latest_offers o CROSS JOIN latest l
WHERE o.is_priced AND o.gpu_model IS NOT NULL
  AND o.currency = 'USD' AND o.self_service AND NOT o.is_aggregator;

CREATE OR REPLACE VIEW offers_in_force_daily AS
SELECT * FROM offers_in_force_after(DATE '0001-01-01');

COMMENT ON MACRO TABLE offers_in_force_after IS 'offers_in_force_daily for the snapshot days after since_day only: offers_in_force_after(since_day DATE).';
COMMENT ON VIEW offers_in_force_daily IS 'Each comparable offer (priced, catalog GPU, USD, self-service, no aggregator) with its trusted price in force at the end of each snapshot day; the base of cheapest_offer_daily and provider_price_index.';
COMMENT ON COLUMN offers_in_force_daily.day IS 'snapshot date (UTC) of the runs of that day';
COMMENT ON COLUMN offers_in_force_daily.day_end IS 'observed_at of the day''s last run: the prices are those in force then';
COMMENT ON COLUMN offers_in_force_daily.provider IS 'provider (spider name)';
COMMENT ON COLUMN offers_in_force_daily.offer_key IS 'the offer''s key within its provider (offers.offer_key)';
COMMENT ON COLUMN offers_in_force_daily.gpu_model IS 'canonical GPU model (gpu_catalog)';
COMMENT ON COLUMN offers_in_force_daily.gpu_count IS 'GPUs in the offered instance';
COMMENT ON COLUMN offers_in_force_daily.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN offers_in_force_daily.tier IS 'the provider''s own tier (prototyping, secure, community, ...)';
COMMENT ON COLUMN offers_in_force_daily.price_per_hour IS 'USD per instance-hour in force at day_end';
COMMENT ON COLUMN offers_in_force_daily.price_per_gpu_hour IS 'USD per GPU-hour in force at day_end';
COMMENT ON COLUMN offers_in_force_daily.evidence_run_id IS 'a run that stored this reading of the offer (its offers row is the evidence)';

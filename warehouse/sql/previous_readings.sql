-- previous_readings: what the quality gate compares a new run's offers with, per offer of each
-- provider's previous successful run (the latest one observed before $1, the new run's time):
--   last_price     the offer's reading in that run, and last_held whether the gate held it
--                  (the same price again in the new run confirms it);
--   trusted_price  the last reading that was not held: last_price itself, or for a held reading
--                  the offer's latest unheld reading before it.
-- Costs one provider run's offers, plus a look-up for the (few) held ones.
WITH last_ok AS (
    SELECT provider, arg_max(run_id, observed_at) AS run_id
    FROM provider_runs WHERE trusted AND observed_at < $1
    GROUP BY provider
),
last AS (
    SELECT o.provider, o.offer_key, o.price_per_hour AS last_price, o.held_reason IS NOT NULL AS last_held
    FROM offers o JOIN last_ok USING (provider, run_id)
),
trusted_of_held AS (
    SELECT o.provider, o.offer_key, arg_max(o.price_per_hour, o.observed_at) AS trusted_price
    FROM offers o
    JOIN (SELECT provider, offer_key FROM last WHERE last_held) h USING (provider, offer_key)
    JOIN provider_runs pr USING (run_id, provider)
    WHERE pr.trusted AND o.held_reason IS NULL AND o.observed_at < $1
    GROUP BY o.provider, o.offer_key
)
SELECT l.provider, l.offer_key,
       CASE WHEN l.last_held THEN t.trusted_price ELSE l.last_price END AS trusted_price,
       l.last_price, l.last_held
FROM last l LEFT JOIN trusted_of_held t USING (provider, offer_key)

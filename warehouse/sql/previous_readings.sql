-- previous_readings: what the quality gate compares a new run's offers with, per offer seen
-- in a successful run observed before $1 (the new run's snapshot time):
--   trusted_price  the last reading that was not held (price per hour; NULL if unpriced)
--   last_price     the reading in the provider's previous successful run, and last_held
--                  whether the gate held it (a repeat of a held price confirms it).
WITH ok AS (
    SELECT o.provider, o.offer_key, o.price_per_hour, o.held_reason, o.observed_at, o.run_id,
           max(o.observed_at) OVER (PARTITION BY o.provider) AS provider_last_at
    FROM offers o JOIN provider_runs pr USING (run_id, provider)
    WHERE pr.status = 'ok' AND o.observed_at < $1
),
trusted AS (
    SELECT provider, offer_key, arg_max(price_per_hour, observed_at) AS trusted_price
    FROM ok WHERE held_reason IS NULL GROUP BY provider, offer_key
),
last AS (
    SELECT provider, offer_key, price_per_hour AS last_price, held_reason IS NOT NULL AS last_held
    FROM ok WHERE observed_at = provider_last_at
)
SELECT coalesce(t.provider, l.provider) AS provider, coalesce(t.offer_key, l.offer_key) AS offer_key,
       t.trusted_price, l.last_price, coalesce(l.last_held, false) AS last_held
FROM trusted t FULL OUTER JOIN last l USING (provider, offer_key)

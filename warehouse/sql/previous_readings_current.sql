-- previous_readings_current: previous_readings (same columns, same meaning) for a run newer than
-- every successful provider run stored: then each provider's previous successful run is its
-- current one, and the trusted price of a held reading is the offer's latest trusted reading
-- (current_offers / trusted_offers, kept by the load: a few thousand rows, whatever the history).
-- $1: the run's providers (VARCHAR[]); only their readings are read.
SELECT c.provider, c.offer_key,
       CASE WHEN c.held_reason IS NOT NULL THEN t.price_per_hour ELSE c.price_per_hour END AS trusted_price,
       c.price_per_hour AS last_price, c.held_reason IS NOT NULL AS last_held
FROM current_offers c LEFT JOIN trusted_offers t USING (provider, offer_key)
WHERE list_contains($1::VARCHAR[], c.provider)

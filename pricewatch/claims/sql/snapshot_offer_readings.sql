-- snapshot_offer_readings: the runs in which an offer has a row ($1 provider, $2 offer_key), from
-- $3 on (NULL: all), and whether it was priced: the absence / unpriced streaks are read off them.
SELECT run_id, is_priced FROM offers
WHERE provider = $1 AND offer_key = $2 AND ($3::TIMESTAMPTZ IS NULL OR observed_at >= $3::TIMESTAMPTZ)

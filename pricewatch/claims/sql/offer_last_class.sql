-- offer_last_class: the comparable class of the latest stored reading of an offer ($1 provider,
-- $2 offer_key) observed by $3 (a cited offer the snapshot does not hold: its class is still known).
SELECT comparable_class(gpu_model, form_factor) FROM offers
WHERE provider = $1 AND offer_key = $2 AND observed_at <= $3
ORDER BY observed_at DESC
LIMIT 1

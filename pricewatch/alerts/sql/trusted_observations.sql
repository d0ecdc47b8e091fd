-- trusted_observations: the last two trusted readings (a successful provider run, not held by
-- the quality gate) at or before snapshot order $1 of each offer in the lists $2 (providers)
-- and $3 (offer keys, same positions). One pass over offers for every cited offer, instead of
-- one per offer.
WITH wanted AS (
    SELECT DISTINCT unnest($2::VARCHAR[]) AS provider, unnest($3::VARCHAR[]) AS offer_key
)
SELECT o.*, s.seq
FROM offers o
JOIN wanted w ON w.provider = o.provider AND w.offer_key = o.offer_key
JOIN provider_runs pr ON pr.run_id = o.run_id AND pr.provider = o.provider
JOIN run_sequence s ON s.run_id = o.run_id
WHERE pr.status = 'ok' AND o.held_reason IS NULL AND s.seq <= $1
QUALIFY row_number() OVER (PARTITION BY o.provider, o.offer_key ORDER BY s.seq DESC) <= 2
ORDER BY o.provider, o.offer_key, s.seq DESC;

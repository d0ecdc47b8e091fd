-- held_streak: the provider's last $4 successful runs before snapshot position $3 (newest first),
-- each with its reading of the offer $1 of provider $2: held or not,
-- its price (NULL columns: the run did not list the offer). The runs come from the small tables;
-- the offer's rows are then read by those runs' observed_at (an offers row carries its provider
-- run's), so the zone maps of offers skip every other run instead of scanning the history.
WITH recent AS (
    SELECT pr.run_id, pr.observed_at, s.seq
    FROM provider_runs pr JOIN run_sequence s USING (run_id)
    WHERE pr.provider = $2 AND pr.trusted AND s.seq < $3
    ORDER BY s.seq DESC
    LIMIT $4
),
readings AS (
    SELECT o.run_id, o.held_reason, o.price_per_hour, o.is_priced
    FROM offers o
    SEMI JOIN (SELECT DISTINCT observed_at FROM recent) t USING (observed_at)
    WHERE o.provider = $2 AND o.offer_key = $1 AND o.run_id IN (SELECT run_id FROM recent)
)
SELECT r.run_id, o.held_reason IS NOT NULL AS held, o.price_per_hour, o.is_priced
FROM recent r LEFT JOIN readings o USING (run_id)
ORDER BY r.seq DESC;

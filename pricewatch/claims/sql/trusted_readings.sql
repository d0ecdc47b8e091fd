-- trusted_readings: the trusted readings (not held by the quality gate) of the offers in the
-- lists $1 (providers), $2 (offer keys), $3 (run ids) and $4 (their observed_at), same
-- positions: the rows sql/reading_plan.sql names, with their snapshot order. The list of
-- observed_at lets the scan skip every other run's rows (zone maps).
WITH wanted AS (
    SELECT unnest($1::VARCHAR[]) AS provider, unnest($2::VARCHAR[]) AS offer_key,
           unnest($3::VARCHAR[]) AS run_id, unnest($4::TIMESTAMPTZ[]) AS observed_at
),
times AS (SELECT DISTINCT observed_at FROM wanted)   -- a join on one column: its values filter the scan
SELECT o.*, s.seq
FROM offers o
SEMI JOIN times USING (observed_at)
SEMI JOIN wanted w USING (provider, offer_key, run_id, observed_at)
JOIN run_sequence s ON s.run_id = o.run_id
WHERE o.held_reason IS NULL
ORDER BY o.provider, o.offer_key, s.seq DESC;

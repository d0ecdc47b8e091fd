-- trusted_reading_before: for the offers in the lists $1 (providers) and $2 (offer keys), the
-- latest trusted reading of a successful provider run observed in [$3, $4) (lists of the same
-- positions; to_at says which span a row answers): the rare case sql/reading_plan.sql leaves
-- (every reading in the window held by the quality gate). Reads only those spans of offers
-- (zone maps on observed_at).
WITH wanted AS (
    SELECT unnest($1::VARCHAR[]) AS provider, unnest($2::VARCHAR[]) AS offer_key,
           unnest($3::TIMESTAMPTZ[]) AS from_at, unnest($4::TIMESTAMPTZ[]) AS to_at
)
SELECT o.*, s.seq, w.to_at
FROM offers o
JOIN wanted w ON w.provider = o.provider AND w.offer_key = o.offer_key
     AND o.observed_at >= w.from_at AND o.observed_at < w.to_at
JOIN provider_runs pr ON pr.run_id = o.run_id AND pr.provider = o.provider
JOIN run_sequence s ON s.run_id = o.run_id
WHERE pr.trusted AND o.held_reason IS NULL
  AND o.observed_at >= (SELECT min(from_at) FROM wanted) AND o.observed_at < (SELECT max(to_at) FROM wanted)
QUALIFY row_number() OVER (PARTITION BY o.provider, o.offer_key, w.to_at ORDER BY s.seq DESC) = 1
ORDER BY o.provider, o.offer_key, w.to_at;

-- provider_history: for the providers attempted in run $2 (snapshot order $1), their provider
-- runs up to $1, newest first, back to (and with) their second-latest success: what
-- source_failing / source_recovered need (the current failure streak, or the streak the latest
-- success ended, and the last success), never the whole history.
WITH h AS (
    SELECT pr.provider, pr.run_id, pr.status, pr.trusted, pr.error, pr.observed_at, s.seq
    FROM provider_runs pr JOIN run_sequence s USING (run_id)
    WHERE pr.status <> 'not attempted' AND s.seq <= $1
      AND pr.provider IN (SELECT provider FROM provider_runs WHERE run_id = $2 AND status <> 'not attempted')
),
cut AS (       -- the second-latest success (its seq; NULL with fewer than two): a top-2, not a ranking
    SELECT provider, CASE WHEN len(max(seq, 2)) = 2 THEN max(seq, 2)[2] END AS from_seq
    FROM h WHERE trusted GROUP BY provider
)
SELECT h.provider, h.run_id, h.status, h.trusted, h.error, h.observed_at, h.seq
FROM h LEFT JOIN cut USING (provider)
WHERE h.seq >= coalesce(cut.from_seq, -1)
ORDER BY h.provider, h.seq DESC;

-- snapshot_ok_runs: a provider's successful runs ($1) from $2 on (NULL: all) up to the snapshot
-- ($3, with $4 the evaluated run), oldest first in the snapshot's order.
SELECT pr.run_id, pr.observed_at
FROM provider_runs pr JOIN runs r USING (run_id)
WHERE pr.provider = $1 AND pr.trusted AND r.observed_at <= $3
  AND ($2::TIMESTAMPTZ IS NULL OR pr.observed_at >= $2::TIMESTAMPTZ)
ORDER BY r.observed_at, (pr.run_id = $4), r.finished_at, pr.run_id

-- snapshot_attempts (pricewatch/claims/snapshot.py): each provider's attempts as of a snapshot ($1: its time, $2: the evaluated
-- run, which counts as the latest among runs of the same time), oldest first, from its latest
-- successful attempt on (all of them when it never succeeded): what a claim needs to know
-- (the last good run, and the failing streak after it).
WITH a AS (
    SELECT pr.provider, pr.run_id, pr.status, pr.observed_at, pr.error,
           row_number() OVER (PARTITION BY pr.provider
                              ORDER BY r.observed_at, (pr.run_id = $2), r.finished_at, pr.run_id) AS n
    FROM provider_runs pr JOIN runs r USING (run_id)
    WHERE r.observed_at <= $1 AND pr.status <> 'not attempted'
),
last_ok AS (SELECT provider, max(n) AS n FROM a WHERE status = 'ok' GROUP BY provider)
SELECT a.provider, a.run_id, a.status, a.observed_at, a.error
FROM a LEFT JOIN last_ok l USING (provider)
WHERE a.n >= coalesce(l.n, 0)
ORDER BY a.provider, a.n

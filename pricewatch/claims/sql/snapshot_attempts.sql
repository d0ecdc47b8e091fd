-- snapshot_attempts (pricewatch/claims/snapshot.py): each provider's attempts as of a snapshot ($1: its time, $2: the evaluated
-- run, which counts as the latest among runs of the same time), oldest first, from its latest
-- successful attempt on (all of them when it never succeeded): what a claim needs to know
-- (the last good run, and the failing streak after it). Only the attempts from the time of
-- each provider's last success on are read whole and ordered (issue 11), not its history.
WITH r AS (SELECT run_id, observed_at AS run_at, finished_at FROM runs WHERE observed_at <= $1),
last_ok_at AS (
    SELECT pr.provider, max(r.run_at) AS run_at
    FROM provider_runs pr JOIN r USING (run_id) WHERE pr.trusted GROUP BY pr.provider
),
tail AS (      -- the attempts from the time of the last success on, in the snapshot's order
    SELECT pr.provider, pr.run_id, pr.status, pr.trusted, pr.observed_at, pr.error,
           row_number() OVER (PARTITION BY pr.provider
                              ORDER BY r.run_at, (pr.run_id = $2), r.finished_at, pr.run_id) AS n
    FROM provider_runs pr JOIN r USING (run_id) LEFT JOIN last_ok_at l USING (provider)
    WHERE pr.status <> 'not attempted' AND (l.run_at IS NULL OR r.run_at >= l.run_at)
),
last_ok AS (SELECT provider, max(n) AS n FROM tail WHERE trusted GROUP BY provider)
SELECT t.provider, t.run_id, t.status, t.trusted, t.observed_at, t.error
FROM tail t LEFT JOIN last_ok l USING (provider)
WHERE t.n >= coalesce(l.n, 0)
ORDER BY t.provider, t.n

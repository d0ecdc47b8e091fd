-- claim_status_basis: what claim_status alerts compare, for run $1 (snapshot order $2), with
-- alerts.failed_runs_threshold $3 and the claims' dependencies $4 -> $5 (claim ids, same positions). One row per claim evaluated in run $1:
--   now_failing     the failing sources that alone make it unverifiable now (NULL: none)
--   now_quiet       unverifiable only because those sources failed fewer than $3 runs in a row
--                   (not news yet)
--   before_status   the status the claim last had that counts: not given by a short outage
--                   (quiet) nor by a suspect reading the next run refuted; NULL when the claim
--                   was never verified before (its first real status is like a new claim's)
--   before_run_id   the run of that status
-- A snapshot evaluated again under new rules (claim_evaluations.trigger 'rules') counts once,
-- by its latest evaluation. Set-based, and bounded: only the last $6 evaluated runs (the
-- caller passes failed_runs_threshold + 2: a short outage lasts fewer than the threshold runs,
-- a refuted reading one run) are read in detail; earlier ones only for the last status a claim
-- had before them and whether it was ever verified, and only for the claims the window does not
-- show verified. Nothing of the history is read into Python.
WITH RECURSIVE window_runs AS (     -- the last $6 evaluated runs up to this one
    SELECT s.run_id, s.seq FROM run_sequence s
    WHERE s.seq <= $2 AND EXISTS (SELECT 1 FROM claim_evaluations e WHERE e.run_id = s.run_id)
    ORDER BY s.seq DESC LIMIT $6
),
lo AS (SELECT min(seq) AS seq FROM window_runs),
evals AS (
    SELECT e.run_id, e.claim_id, e.status, e.rules_version, w.seq
    FROM claim_evaluations e JOIN window_runs w USING (run_id)
    QUALIFY row_number() OVER (PARTITION BY e.run_id, e.claim_id
                               ORDER BY e.evaluated_at DESC, e.rules_version DESC) = 1
),
pre AS (       -- per provider, before the window: its last success, and the failures since
    SELECT pr.provider,
           count(*) FILTER (WHERE NOT pr.trusted AND s.seq > coalesce(l.ok_seq, -1)) AS failed_since_ok
    FROM provider_runs pr JOIN run_sequence s USING (run_id)
    LEFT JOIN (SELECT pr2.provider, max(s2.seq) AS ok_seq FROM provider_runs pr2 JOIN run_sequence s2 USING (run_id)
               WHERE pr2.trusted AND s2.seq < (SELECT seq FROM lo) GROUP BY pr2.provider) l USING (provider)
    WHERE pr.status <> 'not attempted' AND s.seq < (SELECT seq FROM lo)
    GROUP BY pr.provider
),
provider_seq AS (
    SELECT pr.provider, pr.run_id, pr.status, pr.trusted, s.seq,
           count(*) FILTER (WHERE pr.trusted)
               OVER (PARTITION BY pr.provider ORDER BY s.seq ROWS UNBOUNDED PRECEDING) AS oks
    FROM provider_runs pr JOIN run_sequence s USING (run_id)
    WHERE pr.status <> 'not attempted' AND s.seq BETWEEN (SELECT seq FROM lo) AND $2
),
streaks AS (   -- how many runs in a row each provider had failed by each run of the window (0: it worked)
    SELECT p.provider, p.run_id,
           CASE WHEN p.trusted THEN 0
                ELSE row_number() OVER (PARTITION BY p.provider, p.oks ORDER BY p.seq)
                     - CASE WHEN p.oks > 0 THEN 1 ELSE 0 END
                     + CASE WHEN p.oks = 0 THEN coalesce(pre.failed_since_ok, 0) ELSE 0 END END AS failed_in_a_row
    FROM provider_seq p LEFT JOIN pre USING (provider)
),
direct AS (    -- the unusable inputs of unverifiable evaluations: a failed source, or another reason
    SELECT i.run_id, i.claim_id, CASE WHEN i.input_status IN ('failed', 'stale') THEN i.provider END AS provider,
           i.input_status NOT IN ('ok', 'failed', 'stale') AS other
    FROM claim_inputs i
    JOIN evals e ON e.run_id = i.run_id AND e.claim_id = i.claim_id AND e.rules_version = i.rules_version
    WHERE e.status = 'unverifiable' AND i.input_status <> 'ok'
),
edges AS (     -- claim -> a claim it is computed from ($4, $5: rules/, pricewatch.claims.rules.refs)
    SELECT unnest($4::VARCHAR[]) AS claim_id, unnest($5::VARCHAR[]) AS ref
),
spread AS (    -- a claim unverifiable only through the claims it is computed from inherits their causes
    SELECT run_id, claim_id, provider, other FROM direct
    UNION
    SELECT u.run_id, g.claim_id, s.provider, s.other
    FROM spread s
    JOIN edges g ON g.ref = s.claim_id
    JOIN evals u ON u.run_id = s.run_id AND u.claim_id = g.claim_id AND u.status = 'unverifiable'
    WHERE NOT EXISTS (SELECT 1 FROM direct d WHERE d.run_id = u.run_id AND d.claim_id = u.claim_id)
),
causes AS (    -- unverifiable evaluations: the failed sources, and whether anything else was unusable
    SELECT run_id, claim_id, list(DISTINCT provider ORDER BY provider) FILTER (WHERE provider IS NOT NULL) AS failing,
           bool_or(other) AS other
    FROM spread GROUP BY run_id, claim_id
),
failing AS (
    SELECT run_id, claim_id, failing, unnest(failing) AS provider
    FROM causes WHERE NOT other AND len(failing) > 0
),
quiet AS (
    SELECT f.run_id, f.claim_id, any_value(f.failing) AS failing,
           max(coalesce(st.failed_in_a_row, 0)) < $3 AS quiet
    FROM failing f LEFT JOIN streaks st ON st.provider = f.provider AND st.run_id = f.run_id
    GROUP BY f.run_id, f.claim_id
),
refuted AS (   -- statuses only a suspect reading gave, which the next run did not confirm
    SELECT a.run_id, j.value ->> 'claim_id' AS claim_id
    FROM alerts a JOIN window_runs w USING (run_id), json_each(a.details -> 'claims') j
    WHERE a.kind = 'claim_status' AND a.state = 'suppressed' AND a.details ->> 'suppressed_because' IS NULL
),
told AS (
    SELECT e.* FROM evals e
    WHERE e.seq < $2
      AND NOT EXISTS (SELECT 1 FROM refuted r WHERE r.run_id = e.run_id AND r.claim_id = e.claim_id)
      AND NOT EXISTS (SELECT 1 FROM quiet q WHERE q.run_id = e.run_id AND q.claim_id = e.claim_id AND q.quiet)
),
in_window AS (
    SELECT claim_id, arg_max(run_id, seq) AS run_id, arg_max(status, seq) AS status,
           bool_or(status <> 'unverifiable') AS verified
    FROM told GROUP BY claim_id
),
older AS (     -- before the window: each claim's last status and whether it was ever verified, read
               -- only for the claims of run $1 the window does not show verified (issue 11)
    SELECT e.claim_id, arg_max(e.status, s.seq) AS status, arg_max(e.run_id, s.seq) AS run_id,
           bool_or(e.status <> 'unverifiable') AS verified
    FROM claim_evaluations e JOIN run_sequence s USING (run_id)
    WHERE s.seq < (SELECT seq FROM lo)
      AND e.claim_id IN (SELECT claim_id FROM evals WHERE run_id = $1
                         EXCEPT SELECT claim_id FROM in_window WHERE verified)
    GROUP BY e.claim_id
),
before AS (
    SELECT claim_id, coalesce(w.run_id, o.run_id) AS run_id, coalesce(w.status, o.status) AS status,
           coalesce(w.verified, false) OR coalesce(o.verified, false) AS verified
    FROM in_window w FULL JOIN older o USING (claim_id)
)
SELECT e.claim_id, q.failing AS now_failing, coalesce(q.quiet, false) AS now_quiet,
       CASE WHEN b.verified THEN b.status END AS before_status,
       CASE WHEN b.verified THEN b.run_id END AS before_run_id
FROM evals e
LEFT JOIN quiet q ON q.run_id = e.run_id AND q.claim_id = e.claim_id
LEFT JOIN before b ON b.claim_id = e.claim_id
WHERE e.run_id = $1
ORDER BY e.claim_id;

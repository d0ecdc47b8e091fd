-- stale_claims: for runs $1 (a list), each claim left unverifiable because a source it reads is
-- stale (its last good data older than the staleness limit; claim_inputs.input_status 'stale',
-- migration 060) while that source is not failing: its latest attempt at or before the run was
-- trusted, or it was not attempted since (a failing source is told by its outage, sources.py).
WITH latest AS (
    SELECT run_id, claim_id, rules_version, page, status FROM claim_evaluations WHERE list_contains($1, run_id)
    QUALIFY row_number() OVER (PARTITION BY run_id, claim_id ORDER BY evaluated_at DESC, rules_version DESC) = 1
),
last_attempt AS (
    SELECT t.run_id, pr.provider, arg_max(pr.trusted, s.seq) AS trusted
    FROM run_sequence t JOIN run_sequence s ON s.seq <= t.seq JOIN provider_runs pr ON pr.run_id = s.run_id
    WHERE list_contains($1, t.run_id)
    GROUP BY t.run_id, pr.provider
)
SELECT DISTINCT l.run_id, l.page, l.claim_id, i.provider
FROM latest l JOIN claim_inputs i USING (run_id, claim_id, rules_version)
LEFT JOIN last_attempt a ON a.run_id = l.run_id AND a.provider = i.provider
WHERE l.status = 'unverifiable' AND i.input_status = 'stale' AND coalesce(a.trusted, true)
ORDER BY l.run_id, l.page, i.provider, l.claim_id;

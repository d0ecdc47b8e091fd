-- stale_claims: for runs $1 (a list), each claim left unverifiable because a source it reads is
-- stale (its last good data older than the staleness limit; claim_inputs.input_status 'stale',
-- migration 060), with that source: from each claim's latest evaluation of the run.
WITH latest AS (
    SELECT run_id, claim_id, rules_version, page, status FROM claim_evaluations WHERE list_contains($1, run_id)
    QUALIFY row_number() OVER (PARTITION BY run_id, claim_id ORDER BY evaluated_at DESC, rules_version DESC) = 1
)
SELECT DISTINCT l.run_id, l.page, l.claim_id, i.provider
FROM latest l JOIN claim_inputs i USING (run_id, claim_id, rules_version)
WHERE l.status = 'unverifiable' AND i.input_status = 'stale'
ORDER BY l.run_id, l.page, i.provider, l.claim_id;

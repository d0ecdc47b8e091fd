-- outage_claims: per page, how many claims of run $1 source $2 leaves unverifiable (an input
-- of that provider failed in the claim's latest evaluation of the run).
WITH latest AS (
    SELECT run_id, claim_id, page, status, rules_version FROM claim_evaluations WHERE run_id = $1
    QUALIFY row_number() OVER (PARTITION BY claim_id ORDER BY evaluated_at DESC, rules_version DESC) = 1
)
SELECT l.page, count(DISTINCT l.claim_id) AS claims
FROM latest l JOIN claim_inputs i USING (run_id, claim_id, rules_version)
WHERE l.status = 'unverifiable' AND i.provider = $2 AND i.input_status = 'failed'
GROUP BY l.page ORDER BY l.page;

-- run_inputs: the offers the claims of runs $1 (a list) used, from each claim's latest
-- evaluation of that run (the rules version run_claims picks).
WITH latest AS (
    SELECT run_id, claim_id, rules_version FROM claim_evaluations WHERE list_contains($1, run_id)
    QUALIFY row_number() OVER (PARTITION BY run_id, claim_id ORDER BY evaluated_at DESC, rules_version DESC) = 1
)
SELECT i.* FROM claim_inputs i JOIN latest l USING (run_id, claim_id, rules_version)
WHERE i.offer_key IS NOT NULL
ORDER BY i.run_id, i.claim_id, i.input_name;

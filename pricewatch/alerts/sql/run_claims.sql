-- run_claims: each claim's evaluation for run $1; a snapshot evaluated again under new rules
-- (trigger 'rules') gives its latest evaluation.
SELECT * FROM claim_evaluations WHERE run_id = $1
QUALIFY row_number() OVER (PARTITION BY claim_id ORDER BY evaluated_at DESC, rules_version DESC) = 1
ORDER BY claim_id;

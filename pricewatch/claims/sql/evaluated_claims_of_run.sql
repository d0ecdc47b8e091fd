-- The claims of run $1 already evaluated under rules version $2 (evaluating again adds nothing).
SELECT claim_id FROM claim_evaluations WHERE run_id = $1 AND rules_version = $2;

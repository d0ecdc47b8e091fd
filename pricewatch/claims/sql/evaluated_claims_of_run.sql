-- The claims of run $1 already evaluated, with the rules version of each evaluation (evaluating
-- again under the same version adds nothing; a run with none is evaluated for the first time).
SELECT claim_id, rules_version FROM claim_evaluations WHERE run_id = $1;

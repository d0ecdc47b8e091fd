-- rule_versions: the rules versions under which runs in list $1 were evaluated again
-- (trigger 'rules'), oldest first: each is one rule change to tell.
SELECT run_id, rules_version, min(evaluated_at) AS evaluated_at
FROM claim_evaluations
WHERE list_contains($1, run_id) AND trigger = 'rules'
GROUP BY run_id, rules_version ORDER BY evaluated_at;

-- Each claim of run $1 as its most recent evaluation (latest rules version used) has it.
SELECT claim_id, status, reason, current_text, rules_version, trigger
FROM claim_evaluations
WHERE run_id = $1
QUALIFY row_number() OVER (PARTITION BY claim_id ORDER BY evaluated_at DESC, rules_version) = 1
ORDER BY claim_id;

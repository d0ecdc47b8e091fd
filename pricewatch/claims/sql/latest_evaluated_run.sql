-- The run whose snapshot was evaluated last (newest snapshot_at), other than the run $1 about
-- to be evaluated, with the rules version of its most recent evaluation.
SELECT run_id, rules_version
FROM claim_evaluations
WHERE run_id <> $1
ORDER BY snapshot_at DESC, evaluated_at DESC, run_id DESC
LIMIT 1;

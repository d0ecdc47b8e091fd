-- The macro claim_history_valid, as it is now (its docs: claim_history_valid.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE MACRO claim_history_valid() AS (
    coalesce((
        SELECT (SELECT count(*) FROM claim_evaluations e WHERE e.evaluated_at <= s.evaluated_through) = s.evaluations
               AND NOT EXISTS (SELECT 1 FROM claim_evaluations e
                               WHERE e.evaluated_at > s.evaluated_through AND e.snapshot_at <= s.snapshot_through)
        FROM claim_history_state s), false)
);

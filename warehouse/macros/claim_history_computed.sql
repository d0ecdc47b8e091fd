-- The macro claim_history_computed, as it is now (its docs: claim_history_computed.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE MACRO claim_history_computed(use_stored) AS TABLE
WITH ev AS (
    SELECT e.* FROM claim_evaluations e
    WHERE NOT use_stored OR e.evaluated_at > (SELECT s.evaluated_through FROM claim_history_state s)
),
pick AS (
    SELECT run_id, claim_id, arg_max(rules_version, (evaluated_at, rules_version)) AS rules_version
    FROM ev GROUP BY run_id, claim_id
),
per_run AS (
    SELECT ev.* FROM ev SEMI JOIN pick USING (run_id, claim_id, rules_version)
),
chain AS (
    SELECT claim_id, run_id, snapshot_at, status, current_value, false AS seed FROM per_run
    UNION ALL
    SELECT claim_id, run_id, snapshot_at, status, current_value, true AS seed FROM claim_history_last WHERE use_stored
),
linked AS (
    SELECT run_id, claim_id, seed,
           lag(status) OVER w AS previous_status,
           lag(current_value) OVER w AS previous_value,
           lag(run_id) OVER w AS previous_run_id
    FROM chain
    WINDOW w AS (PARTITION BY claim_id ORDER BY snapshot_at, run_id)
)
SELECT p.snapshot_at, p.run_id, p.claim_id, p.claim_group, p.page, p.kind, p.status,
       p.published_value, p.current_value, p.difference, p.published_text, p.current_text,
       p.tolerance, p.reason, p.unverifiable_since,
       l.previous_status, l.previous_value, l.previous_run_id,
       (l.previous_status IS NOT NULL AND l.previous_status <> p.status) AS status_changed,
       p.rules_version, p.trigger, p.evaluated_at
FROM per_run p
JOIN linked l ON l.run_id = p.run_id AND l.claim_id = p.claim_id AND NOT l.seed;

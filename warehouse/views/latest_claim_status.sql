-- The view latest_claim_status, as it is now (its docs: latest_claim_status.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW latest_claim_status AS
WITH latest_snapshot AS (SELECT max(snapshot_at) AS latest_at FROM claim_evaluations),
at_latest AS (
    SELECT e.*, row_number() OVER (PARTITION BY e.claim_id ORDER BY e.evaluated_at DESC, e.run_id DESC) AS rn
    FROM claim_evaluations e
    WHERE e.snapshot_at = (SELECT latest_at FROM latest_snapshot)
),
before_at AS (
    SELECT claim_id, max(snapshot_at) AS prev_at FROM claim_evaluations
    WHERE snapshot_at < (SELECT latest_at FROM latest_snapshot)
    GROUP BY claim_id
),
before AS (
    SELECT e.claim_id, e.status, e.current_value, e.run_id
    FROM claim_evaluations e JOIN before_at b ON b.claim_id = e.claim_id AND e.snapshot_at = b.prev_at
    QUALIFY row_number() OVER (PARTITION BY e.claim_id ORDER BY e.evaluated_at DESC, e.run_id DESC) = 1
),
previous AS (
    SELECT claim_id, status, current_value, run_id FROM at_latest WHERE rn = 2
    UNION ALL
    SELECT b.claim_id, b.status, b.current_value, b.run_id FROM before b
    WHERE NOT EXISTS (SELECT 1 FROM at_latest a WHERE a.claim_id = b.claim_id AND a.rn = 2)
)
SELECT r.* EXCLUDE (rn),
    p.status AS previous_status, p.current_value AS previous_value, p.run_id AS previous_run_id
FROM at_latest r
LEFT JOIN previous p USING (claim_id)
WHERE r.rn = 1;

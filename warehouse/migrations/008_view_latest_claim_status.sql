-- Every claim as of the most recent snapshot that was evaluated (latest observed_at; a run
-- evaluated later for an older date does not count as newer), with the previous run's status
-- so a change is visible without a join.
CREATE OR REPLACE VIEW latest_claim_status AS
WITH ranked AS (
    SELECT e.*,
        row_number() OVER (PARTITION BY claim_id ORDER BY snapshot_at DESC, evaluated_at DESC, run_id DESC) AS rn
    FROM claim_evaluations e
),
latest_snapshot AS (SELECT max(snapshot_at) AS latest_at FROM claim_evaluations)
SELECT r.* EXCLUDE (rn),
    p.status AS previous_status, p.current_value AS previous_value, p.run_id AS previous_run_id
FROM ranked r
LEFT JOIN ranked p ON p.claim_id = r.claim_id AND p.rn = 2
WHERE r.rn = 1 AND r.snapshot_at = (SELECT latest_at FROM latest_snapshot);

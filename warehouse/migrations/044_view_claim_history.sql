-- claim_history: each claim's value and status per run, in snapshot order, with the status and
-- value of the claim's previous evaluated run (so a change reads without a self-join). When a
-- snapshot was evaluated again because rules/ changed (claim_evaluations.trigger 'rules'), the
-- run's row is its latest evaluation; rules_version says which rules it used.
CREATE OR REPLACE VIEW claim_history AS
WITH per_run AS (
    SELECT * EXCLUDE (rn) FROM (
        SELECT e.*, row_number() OVER (PARTITION BY e.run_id, e.claim_id
                                       ORDER BY e.evaluated_at DESC, e.rules_version DESC) AS rn
        FROM claim_evaluations e
    ) WHERE rn = 1
)
SELECT p.snapshot_at, p.run_id, p.claim_id, p.claim_group, p.page, p.kind, p.status,
       p.published_value, p.current_value, p.difference, p.published_text, p.current_text,
       p.tolerance, p.reason, p.unverifiable_since,
       lag(p.status) OVER w AS previous_status,
       lag(p.current_value) OVER w AS previous_value,
       lag(p.run_id) OVER w AS previous_run_id,
       (lag(p.status) OVER w IS NOT NULL AND lag(p.status) OVER w <> p.status) AS status_changed,
       p.rules_version, p.trigger, p.evaluated_at
FROM per_run p
WINDOW w AS (PARTITION BY p.claim_id ORDER BY p.snapshot_at, p.run_id);

COMMENT ON VIEW claim_history IS 'Each published claim''s value and status per evaluated run, in snapshot order, with the previous run''s status and value; a snapshot evaluated again under new rules shows its latest evaluation.';
COMMENT ON COLUMN claim_history.snapshot_at IS 'the run''s observed_at: the claim was evaluated on data observed at or before it';
COMMENT ON COLUMN claim_history.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN claim_history.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN claim_history.claim_group IS 'the CLAIMS.md id the claim belongs to';
COMMENT ON COLUMN claim_history.page IS 'published page id (rules folder)';
COMMENT ON COLUMN claim_history.kind IS 'computation kind: cited_offer, cheapest_offer, ratio, ...';
COMMENT ON COLUMN claim_history.status IS 'holds | drifted | unverifiable';
COMMENT ON COLUMN claim_history.published_value IS 'the number the page prints (checkmarks as 1/0; NULL for text)';
COMMENT ON COLUMN claim_history.current_value IS 'the number recomputed from this snapshot (NULL when unverifiable)';
COMMENT ON COLUMN claim_history.difference IS 'current_value - published_value';
COMMENT ON COLUMN claim_history.published_text IS 'as the page shows it ("$43.46", "1,260 GB")';
COMMENT ON COLUMN claim_history.current_text IS 'the same, recomputed';
COMMENT ON COLUMN claim_history.tolerance IS 'what counts as holding: "cents", "±5%", "exact", ...';
COMMENT ON COLUMN claim_history.reason IS 'why drifted or unverifiable (which input, since when)';
COMMENT ON COLUMN claim_history.unverifiable_since IS 'when the missing or failed input was first missing';
COMMENT ON COLUMN claim_history.previous_status IS 'status in the claim''s previous evaluated run (snapshot order); NULL for the first';
COMMENT ON COLUMN claim_history.previous_value IS 'current_value in the previous evaluated run';
COMMENT ON COLUMN claim_history.previous_run_id IS 'the previous evaluated run';
COMMENT ON COLUMN claim_history.status_changed IS 'true when status differs from previous_status';
COMMENT ON COLUMN claim_history.rules_version IS 'sha256 (16 hex) of rules/ this evaluation used (''unrecorded'' before migration 035)';
COMMENT ON COLUMN claim_history.trigger IS '''run'': evaluated after the run loaded; ''rules'': evaluated again because rules/ changed';
COMMENT ON COLUMN claim_history.evaluated_at IS 'when the evaluation was computed';

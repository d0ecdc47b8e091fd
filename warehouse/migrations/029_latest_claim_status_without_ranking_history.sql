-- latest_claim_status without ranking every evaluation ever stored (issue 11: 1.3 s at 10M offer
-- rows, growing with the history). Same rows as migration 008: the claims evaluated at the latest
-- snapshot (the latest evaluation of each, by evaluated_at then run_id), with the claim's
-- previous evaluation in the order (snapshot_at, evaluated_at, run_id) descending: another
-- evaluation of the same snapshot (a re-evaluation after a rules change) or else the latest one
-- of the claim's previous snapshot. It reads the latest snapshot's rows (zone maps on
-- snapshot_at) and one aggregate per claim, never a window over the whole table.
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

-- Its comments (migration 049), again: CREATE OR REPLACE VIEW drops them.
COMMENT ON VIEW latest_claim_status IS 'Every claim as of the most recent evaluated snapshot, with the previous run''s status and value.';
COMMENT ON COLUMN latest_claim_status.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN latest_claim_status.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN latest_claim_status.claim_group IS 'the CLAIMS.md id the claim belongs to';
COMMENT ON COLUMN latest_claim_status.page IS 'published page id (rules folder)';
COMMENT ON COLUMN latest_claim_status.kind IS 'computation kind: cited_offer, cheapest_offer, ratio, ...';
COMMENT ON COLUMN latest_claim_status.status IS 'holds | drifted | unverifiable';
COMMENT ON COLUMN latest_claim_status.published_value IS 'the number the page prints (checkmarks as 1/0; NULL for text)';
COMMENT ON COLUMN latest_claim_status.current_value IS 'the number recomputed from the snapshot (NULL when unverifiable or text)';
COMMENT ON COLUMN latest_claim_status.difference IS 'current_value - published_value (numbers only)';
COMMENT ON COLUMN latest_claim_status.tolerance IS 'what counts as holding: "cents", "rounds to 0 decimals", "±5%", "exact"';
COMMENT ON COLUMN latest_claim_status.reason IS 'why drifted or unverifiable (which input, since when)';
COMMENT ON COLUMN latest_claim_status.snapshot_at IS 'the run''s observed_at: no later data is used';
COMMENT ON COLUMN latest_claim_status.evaluated_at IS 'when the evaluation was computed';
COMMENT ON COLUMN latest_claim_status.published_text IS 'as the page shows it: "$43.46", "✓", "1,260 GB"';
COMMENT ON COLUMN latest_claim_status.current_text IS 'the same, recomputed';
COMMENT ON COLUMN latest_claim_status.pick IS 'cheapest/from claims: what the value comes from now';
COMMENT ON COLUMN latest_claim_status.note IS 'e.g. a cheaper fitting configuration exists';
COMMENT ON COLUMN latest_claim_status.unverifiable_since IS 'when the missing or failed input was first missing';
COMMENT ON COLUMN latest_claim_status.says_ja IS 'the published sentence or table cell (original Japanese)';
COMMENT ON COLUMN latest_claim_status.says_en IS 'the same in English';
COMMENT ON COLUMN latest_claim_status.cited_date IS 'the date the page cited for its prices';
COMMENT ON COLUMN latest_claim_status.previous_status IS 'the claim''s status in the previous run';
COMMENT ON COLUMN latest_claim_status.previous_value IS 'the claim''s current_value in the previous run';
COMMENT ON COLUMN latest_claim_status.previous_run_id IS 'that previous run';

-- claim_states: for the claims in list $3, their evaluation in run $1 (now) and in run $2
-- (before; NULL for a first evaluation), each the latest evaluation of its run. What a page
-- digest prints per sentence: published, was, now, status before and now.
WITH pick AS (
    SELECT * FROM claim_evaluations
    WHERE run_id IN ($1, $2) AND list_contains($3, claim_id)
    QUALIFY row_number() OVER (PARTITION BY run_id, claim_id ORDER BY evaluated_at DESC, rules_version DESC) = 1
)
SELECT n.claim_id, n.page, n.says_ja, n.says_en, n.kind, n.published_text, n.published_value,
       n.current_text AS now_text, n.current_value AS now_value, n.status AS now_status, n.reason,
       n.pick, n.note, n.tolerance,
       b.current_text AS before_text, b.current_value AS before_value, b.status AS before_status
FROM pick n LEFT JOIN pick b ON b.claim_id = n.claim_id AND b.run_id = $2 AND $2 <> $1
WHERE n.run_id = $1
ORDER BY n.claim_id;

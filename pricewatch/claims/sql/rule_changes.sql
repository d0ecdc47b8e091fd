-- What a re-evaluation of run $1 under rules version $2 changed: each claim whose status or
-- recomputed text differs from the evaluation of the same snapshot just before it (under the
-- previous rules version), plus claims added or removed by the rules change.
WITH new AS (
    SELECT claim_id, status, current_text, published_text, says_en, page, evaluated_at
    FROM claim_evaluations WHERE run_id = $1 AND rules_version = $2
),
old AS (
    SELECT claim_id, status, current_text, published_text, says_en, page
    FROM claim_evaluations
    WHERE run_id = $1 AND rules_version <> $2
      AND evaluated_at < (SELECT min(evaluated_at) FROM new)
    QUALIFY row_number() OVER (PARTITION BY claim_id ORDER BY evaluated_at DESC) = 1
)
SELECT coalesce(n.claim_id, o.claim_id) AS claim_id,
       coalesce(n.page, o.page) AS page,
       CASE WHEN o.claim_id IS NULL THEN 'added' WHEN n.claim_id IS NULL THEN 'removed' ELSE 'changed' END AS change,
       o.status AS old_status, n.status AS new_status,
       o.current_text AS old_text, n.current_text AS new_text,
       coalesce(n.says_en, o.says_en) AS says_en
FROM new n FULL JOIN old o USING (claim_id)
WHERE o.claim_id IS NULL OR n.claim_id IS NULL
   OR o.status IS DISTINCT FROM n.status OR o.current_text IS DISTINCT FROM n.current_text
   OR o.published_text IS DISTINCT FROM n.published_text
ORDER BY claim_id;

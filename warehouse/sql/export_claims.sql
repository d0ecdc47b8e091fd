-- export_claims: each published claim's value and status per evaluated run (claim_history) of
-- snapshot date $1 or later, for `pricewatch export` (dataset "claims"; column set in
-- pricewatch/export/datasets.py).
SELECT r.snapshot_date,
       c.snapshot_at, c.run_id, c.claim_id, c.claim_group, c.page, c.kind, c.status,
       CAST(c.published_value AS DOUBLE) AS published_value, CAST(c.current_value AS DOUBLE) AS current_value,
       CAST(c.difference AS DOUBLE) AS difference, c.published_text, c.current_text, c.tolerance,
       c.reason, c.unverifiable_since, c.previous_status, c.status_changed, c.rules_version, c.evaluated_at
FROM claim_history c
JOIN runs r USING (run_id)
WHERE r.snapshot_date >= $1
ORDER BY r.snapshot_date, c.run_id, c.claim_id

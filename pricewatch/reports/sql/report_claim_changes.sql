-- Claims whose status or value changed in a run against the claim's previous evaluated run
-- (claim_history). $1 = run_id.
SELECT claim_id, page, kind, previous_status, status, previous_value, current_value, published_value,
       published_text, current_text, reason, trigger, previous_run_id
FROM claim_history
WHERE run_id = $1 AND previous_run_id IS NOT NULL
  AND (status_changed OR current_value IS DISTINCT FROM previous_value)
ORDER BY page, claim_id;

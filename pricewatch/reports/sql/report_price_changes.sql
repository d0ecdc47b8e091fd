-- Prices that moved in a run (price_changes): changes, prices that turned into text, returns.
-- $1 = run_id.
SELECT provider, offer_key, gpu_model, gpu_count, billing, event, old_price_per_hour, new_price_per_hour,
       old_price_text, new_price_text, change_pct, last_seen_old_at, changed_at
FROM price_changes
WHERE run_id = $1
ORDER BY provider, offer_key;

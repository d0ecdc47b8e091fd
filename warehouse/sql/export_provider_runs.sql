-- export_provider_runs: every provider run of snapshot date $1 or later, for `pricewatch
-- export` (column set in pricewatch/export/datasets.py).
SELECT r.snapshot_date, pr.run_id, pr.provider, pr.status, pr.trusted, pr.observed_at, pr.item_count,
       pr.priced_count, pr.unpriced_count, pr.http_error_count, pr.retries, pr.duration_s, pr.error
FROM provider_runs pr JOIN runs r USING (run_id)
WHERE r.snapshot_date >= $1
ORDER BY r.snapshot_date, pr.run_id, pr.provider

-- Sources a report must name: failed or suspect in the run, or stale as of its snapshot
-- (source_freshness_at, limit from mart_settings). $1 = run_id, $2 = snapshot time.
SELECT f.provider, pr.status AS run_status, coalesce(pr.error, f.last_error) AS error,
       f.last_ok_at, f.age_hours, f.stale_after_hours, f.is_stale
FROM source_freshness_at($2, NULL) f
LEFT JOIN provider_runs pr ON pr.provider = f.provider AND pr.run_id = $1
WHERE f.is_stale OR pr.status IN ('failed', 'suspect')
ORDER BY pr.status IN ('failed', 'suspect') DESC, f.provider;

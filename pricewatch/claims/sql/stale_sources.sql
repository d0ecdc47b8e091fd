-- The sources whose last good data is older than the staleness limit as of the snapshot $1
-- (mart_settings.stale_after_hours, default 48 h; migration 046's source_freshness_at): a claim
-- resting on one is unverifiable, and a "cheapest" claim does not compare it.
SELECT provider, last_ok_at, age_hours, stale_after_hours
FROM source_freshness_at(CAST($1 AS TIMESTAMPTZ), NULL)
WHERE is_stale AND last_ok_at IS NOT NULL;

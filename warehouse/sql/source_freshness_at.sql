-- source_freshness_at: each source's last good data and whether it is stale, as of $1 (a
-- snapshot time: only runs observed at or before it count), with the limit $2 in hours (NULL:
-- mart_settings.stale_after_hours, default 48). The claims engine reads it with the evaluated
-- run's observed_at; a claim resting on a source with is_stale is unverifiable, never holds.
-- Defined once, as the table macro of migration 046 (the view source_freshness is it as of now()).
SELECT provider, last_ok_at, last_ok_run_id, last_attempt_at, last_attempt_status, last_error,
       failed_attempts_since_ok, as_of, age_hours, stale_after_hours, is_stale
FROM source_freshness_at(CAST($1 AS TIMESTAMPTZ), CAST($2 AS DOUBLE))
ORDER BY provider

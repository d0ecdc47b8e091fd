-- The macro source_freshness_at, as it is now (its docs: source_freshness_at.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE MACRO source_freshness_at(as_of, stale_after_hours) AS TABLE
WITH seen AS (
    SELECT pr.provider, pr.run_id, pr.status, pr.trusted, pr.observed_at, pr.error,
           max(pr.observed_at) FILTER (WHERE pr.trusted) OVER (PARTITION BY pr.provider) AS ok_at
    FROM provider_runs pr JOIN runs r USING (run_id)
    WHERE r.observed_at <= as_of
),
per_source AS (
    SELECT provider,
           max(observed_at) FILTER (WHERE trusted) AS last_ok_at,
           arg_max(run_id, (observed_at, run_id)) FILTER (WHERE trusted) AS last_ok_run_id,
           max(observed_at) FILTER (WHERE status <> 'not attempted') AS last_attempt_at,
           arg_max(status, (observed_at, run_id)) FILTER (WHERE status <> 'not attempted') AS last_attempt_status,
           arg_max(error, (observed_at, run_id)) FILTER (WHERE status <> 'not attempted') AS last_error,
           count(*) FILTER (WHERE status IN ('failed', 'suspect') AND NOT trusted AND (ok_at IS NULL OR observed_at > ok_at))
               AS failed_attempts_since_ok
    FROM seen
    GROUP BY provider
),
lim AS (
    SELECT coalesce(CAST(stale_after_hours AS DOUBLE), (SELECT s.stale_after_hours FROM mart_settings s)) AS hours
)
SELECT p.provider, p.last_ok_at, p.last_ok_run_id, p.last_attempt_at, p.last_attempt_status, p.last_error,
       p.failed_attempts_since_ok,
       CAST(as_of AS TIMESTAMPTZ) AS as_of,
       CASE WHEN p.last_ok_at IS NOT NULL   -- never good: no age (greatest() skips a NULL: it read 0)
            THEN round(greatest(0, epoch(CAST(as_of AS TIMESTAMPTZ)) - epoch(p.last_ok_at)) / 3600, 2) END AS age_hours,
       lim.hours AS stale_after_hours,
       (p.last_ok_at IS NULL
        OR epoch(CAST(as_of AS TIMESTAMPTZ)) - epoch(p.last_ok_at) > lim.hours * 3600) AS is_stale
FROM per_source p CROSS JOIN lim;

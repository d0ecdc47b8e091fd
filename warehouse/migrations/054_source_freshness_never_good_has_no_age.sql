-- source_freshness: age_hours is NULL for a source that was never good (no ok provider run at
-- or before as_of), as its comment says; migration 046 read 0 there (greatest(0, NULL) is 0 in
-- DuckDB), which reads as "fresh" beside is_stale true. The macro and the view of 046 again with
-- that one change (CREATE OR REPLACE drops the comments: they are set again below).
CREATE OR REPLACE MACRO source_freshness_at(as_of, stale_after_hours) AS TABLE
WITH seen AS (
    SELECT pr.provider, pr.run_id, pr.status, pr.observed_at, pr.error,
           max(pr.observed_at) FILTER (WHERE pr.status = 'ok') OVER (PARTITION BY pr.provider) AS ok_at
    FROM provider_runs pr JOIN runs r USING (run_id)
    WHERE r.observed_at <= as_of
),
per_source AS (
    SELECT provider,
           max(observed_at) FILTER (WHERE status = 'ok') AS last_ok_at,
           arg_max(run_id, (observed_at, run_id)) FILTER (WHERE status = 'ok') AS last_ok_run_id,
           max(observed_at) FILTER (WHERE status <> 'not attempted') AS last_attempt_at,
           arg_max(status, (observed_at, run_id)) FILTER (WHERE status <> 'not attempted') AS last_attempt_status,
           arg_max(error, (observed_at, run_id)) FILTER (WHERE status <> 'not attempted') AS last_error,
           count(*) FILTER (WHERE status IN ('failed', 'suspect') AND (ok_at IS NULL OR observed_at > ok_at))
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

CREATE OR REPLACE VIEW source_freshness AS
SELECT * FROM source_freshness_at(now(), NULL);

COMMENT ON MACRO TABLE source_freshness_at IS 'source_freshness as of a snapshot time: source_freshness_at(as_of TIMESTAMPTZ, stale_after_hours DOUBLE or NULL = mart_settings); only runs observed at or before as_of count.';
COMMENT ON VIEW source_freshness IS 'Each source (provider) with the age of its last good data (last ok provider run) now, and whether it is stale: older than mart_settings.stale_after_hours (default 48) or never good.';
COMMENT ON COLUMN source_freshness.provider IS 'provider (spider name)';
COMMENT ON COLUMN source_freshness.last_ok_at IS 'observed_at of the provider''s last successful (ok) provider run; NULL if never';
COMMENT ON COLUMN source_freshness.last_ok_run_id IS 'the run of that last good data';
COMMENT ON COLUMN source_freshness.last_attempt_at IS 'observed_at of the provider''s last attempt (ok, suspect or failed; not attempted does not count)';
COMMENT ON COLUMN source_freshness.last_attempt_status IS 'ok | suspect | failed of that last attempt';
COMMENT ON COLUMN source_freshness.last_error IS 'the last attempt''s error, if it failed';
COMMENT ON COLUMN source_freshness.failed_attempts_since_ok IS 'failed or suspect attempts after the last good data';
COMMENT ON COLUMN source_freshness.as_of IS 'the time ages are measured at (now() in this view; the snapshot time in source_freshness_at)';
COMMENT ON COLUMN source_freshness.age_hours IS 'hours from last_ok_at to as_of (NULL when never good)';
COMMENT ON COLUMN source_freshness.stale_after_hours IS 'the limit used (mart_settings.stale_after_hours unless given)';
COMMENT ON COLUMN source_freshness.is_stale IS 'true when the last good data is older than stale_after_hours, or there never was any';

-- The run a report is about, with how its providers fared. $1 = run_id.
SELECT r.run_id, r.mode, r.observed_at, r.status, r.replay_source,
       count(pr.provider) FILTER (WHERE pr.status = 'ok') AS providers_ok,
       count(pr.provider) FILTER (WHERE pr.status = 'suspect') AS providers_suspect,
       count(pr.provider) FILTER (WHERE pr.status = 'failed') AS providers_failed,
       count(pr.provider) FILTER (WHERE pr.status = 'not attempted') AS providers_not_attempted
FROM runs r
LEFT JOIN provider_runs pr USING (run_id)
WHERE r.run_id = $1
GROUP BY ALL;

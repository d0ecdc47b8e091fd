-- The view latest_provider_runs, as it is now (its docs: latest_provider_runs.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- Bounded (issue 24): each provider's latest trusted observed_at first (two columns of
-- provider_runs aggregated), then only the rows at those instants are read whole (the scan skips
-- every older row group by observed_at), ties broken by run_id as before.
CREATE OR REPLACE VIEW latest_provider_runs AS
WITH last AS (
    SELECT provider, max(observed_at) AS observed_at FROM provider_runs WHERE trusted GROUP BY provider
)
SELECT * EXCLUDE (rn) FROM (
    SELECT pr.*, row_number() OVER (PARTITION BY provider ORDER BY observed_at DESC, run_id DESC) AS rn
    FROM provider_runs pr
    SEMI JOIN last l USING (provider, observed_at)
    WHERE pr.trusted   -- ok, or suspect only for rows the parser held (migration 059)
      AND pr.observed_at >= (SELECT min(observed_at) FROM last)
) WHERE rn = 1;

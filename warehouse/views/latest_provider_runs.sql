-- The view latest_provider_runs, as it is now (its docs: latest_provider_runs.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW latest_provider_runs AS
SELECT * EXCLUDE (rn) FROM (
    SELECT pr.*, row_number() OVER (PARTITION BY provider ORDER BY observed_at DESC, run_id DESC) AS rn
    FROM provider_runs pr
    WHERE trusted   -- ok, or suspect only for rows the parser held (migration 059)
) WHERE rn = 1;

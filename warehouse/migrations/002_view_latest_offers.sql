-- Each provider's latest *successful* provider run, and the offers it stored.
-- A failed run never hides the last good prices.
CREATE OR REPLACE VIEW latest_provider_runs AS
SELECT * EXCLUDE (rn) FROM (
    SELECT pr.*, row_number() OVER (PARTITION BY provider ORDER BY observed_at DESC, run_id DESC) AS rn
    FROM provider_runs pr
    WHERE status = 'ok'
) WHERE rn = 1;

CREATE OR REPLACE VIEW latest_offers AS
SELECT o.*
FROM offers o
JOIN latest_provider_runs l USING (run_id, provider);

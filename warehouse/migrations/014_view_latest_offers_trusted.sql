-- Each provider's latest successful provider run, and the offers it stored, as trusted prices.
-- A failed, suspect or not-attempted run never hides the last good prices. An offer whose
-- latest reading is held by the quality gate (offers.held_reason) keeps its last trusted
-- reading from an earlier successful run, flagged by held_reading_reason; an offer never
-- seen with a trusted reading is left out.
CREATE OR REPLACE VIEW latest_provider_runs AS
SELECT * EXCLUDE (rn) FROM (
    SELECT pr.*, row_number() OVER (PARTITION BY provider ORDER BY observed_at DESC, run_id DESC) AS rn
    FROM provider_runs pr
    WHERE status = 'ok'
) WHERE rn = 1;

CREATE OR REPLACE VIEW latest_offers AS
WITH latest AS (
    SELECT o.* FROM offers o JOIN latest_provider_runs l USING (run_id, provider)
),
last_trusted AS (
    SELECT * EXCLUDE (rn) FROM (
        SELECT o.*, row_number() OVER (PARTITION BY o.provider, o.offer_key
                                       ORDER BY o.observed_at DESC, o.run_id DESC) AS rn
        FROM offers o
        JOIN provider_runs pr USING (run_id, provider)
        JOIN latest h ON h.provider = o.provider AND h.offer_key = o.offer_key
        WHERE pr.status = 'ok' AND o.held_reason IS NULL AND h.held_reason IS NOT NULL
          AND o.observed_at < h.observed_at
    ) WHERE rn = 1
)
SELECT *, NULL::VARCHAR AS held_reading_reason FROM latest WHERE held_reason IS NULL
UNION ALL BY NAME
SELECT t.*, h.held_reason AS held_reading_reason
FROM last_trusted t JOIN latest h USING (provider, offer_key);

-- Readings the quality gate holds in each provider's latest successful run: what an analyst
-- checks before trusting a big move.
CREATE OR REPLACE VIEW held_offers AS
SELECT o.provider, o.offer_key, o.gpu_model, o.gpu_count, o.billing, o.tier, o.price_per_hour,
       o.price_per_gpu_hour, o.held_reason, o.observed_at, o.run_id, o.source_url, o.warc_file, o.warc_record_id
FROM offers o JOIN latest_provider_runs l USING (run_id, provider)
WHERE o.held_reason IS NOT NULL;

-- The view cited_offer_history, as it is now (its docs: cited_offer_history.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW cited_offer_history AS
WITH cited AS (
    SELECT * FROM claim_inputs WHERE role = 'cited'
),
per_run AS (
    SELECT e.run_id, e.claim_id, e.rules_version, e.kind, e.status, e.published_value, e.current_value,
           e.published_text, e.snapshot_at
    FROM claim_evaluations e
    SEMI JOIN cited c ON c.run_id = e.run_id AND c.claim_id = e.claim_id
    QUALIFY row_number() OVER (PARTITION BY e.run_id, e.claim_id
                               ORDER BY e.evaluated_at DESC, e.rules_version DESC) = 1
)
SELECT e.snapshot_at, e.run_id, e.claim_id, e.kind AS claim_kind, e.status AS claim_status,
       i.input_name, i.provider, i.offer_key, i.gpu_model, i.gpu_count, i.billing,
       i.input_status, i.price_per_hour, i.price_per_gpu_hour, i.price_text,
       e.published_value, e.current_value, e.published_text, i.observed_at, i.offer_run_id, i.source_url, i.warc_file, i.warc_record_id
FROM per_run e
JOIN cited i ON i.run_id = e.run_id AND i.claim_id = e.claim_id AND i.rules_version = e.rules_version;

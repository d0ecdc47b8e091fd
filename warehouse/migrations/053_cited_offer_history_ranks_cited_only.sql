-- cited_offer_history at scale (issue 11): the view of migration 045 ranked every evaluation ever
-- stored (308k at 10M offer rows) to keep each run's latest one, then kept the few that cite an
-- offer (~0.4 s). Now it ranks only the evaluations of the (run, claim) pairs that have a cited
-- input. Same rows: each run's latest evaluation of a claim (by evaluated_at, then
-- rules_version) with its cited inputs of the same rules version.
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

COMMENT ON VIEW cited_offer_history IS 'Every offer a published claim cites, per evaluated run: the price used, whether it was found, the evidence, and the claim''s published and current value.';
COMMENT ON COLUMN cited_offer_history.snapshot_at IS 'the run''s observed_at';
COMMENT ON COLUMN cited_offer_history.run_id IS 'the evaluated run';
COMMENT ON COLUMN cited_offer_history.claim_id IS 'the claim citing the offer';
COMMENT ON COLUMN cited_offer_history.claim_kind IS 'the claim''s computation kind (cited_offer, cheapest_offer, ratio, ...)';
COMMENT ON COLUMN cited_offer_history.claim_status IS 'the claim''s status in this run: holds | drifted | unverifiable';
COMMENT ON COLUMN cited_offer_history.input_name IS 'the input''s name within the claim ("cited offer", ...)';
COMMENT ON COLUMN cited_offer_history.provider IS 'provider of the cited offer';
COMMENT ON COLUMN cited_offer_history.offer_key IS 'offer_key of the cited offer';
COMMENT ON COLUMN cited_offer_history.gpu_model IS 'canonical GPU model (NULL when the offer was not found)';
COMMENT ON COLUMN cited_offer_history.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN cited_offer_history.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN cited_offer_history.input_status IS 'ok | unpriced | missing | failed | never_seen';
COMMENT ON COLUMN cited_offer_history.price_per_hour IS 'USD per instance-hour the claim used (NULL unless input_status ok)';
COMMENT ON COLUMN cited_offer_history.price_per_gpu_hour IS 'USD per GPU-hour the claim used';
COMMENT ON COLUMN cited_offer_history.price_text IS 'the printed text of an unpriced offer ("Contact sales")';
COMMENT ON COLUMN cited_offer_history.published_value IS 'the claim''s published number: for cited_offer / cheapest_offer claims the price the page prints, in the claim''s unit (per hour or per GPU-hour); a chart''s reference line';
COMMENT ON COLUMN cited_offer_history.current_value IS 'the claim''s value recomputed in this run, same unit as published_value (NULL when unverifiable)';
COMMENT ON COLUMN cited_offer_history.published_text IS 'the claim''s published text';
COMMENT ON COLUMN cited_offer_history.observed_at IS 'when the cited offer was observed (its provider run)';
COMMENT ON COLUMN cited_offer_history.offer_run_id IS 'the run that stored the offer reading used';
COMMENT ON COLUMN cited_offer_history.source_url IS 'the page or API the price was read from';
COMMENT ON COLUMN cited_offer_history.warc_file IS 'the archived response (WARC file)';
COMMENT ON COLUMN cited_offer_history.warc_record_id IS 'WARC-Record-ID of the response';

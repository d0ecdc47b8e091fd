-- The evidence of a claim: every input of its latest evaluation (latest snapshot, then latest
-- evaluation), each with the offer row or source fact it read, so the record it points to can
-- be opened and its sha256 checked. Parameter: 1 claim_id. One row per input; an input with
-- nothing stored (missing, never seen) has NULL evidence columns.
WITH latest AS (
    SELECT run_id, claim_id, rules_version, status, published_text, current_text, snapshot_at
    FROM claim_evaluations
    WHERE claim_id = $1
    ORDER BY snapshot_at DESC, evaluated_at DESC, run_id DESC
    LIMIT 1
)
SELECT l.claim_id, l.status, l.published_text, l.current_text, l.run_id, l.snapshot_at,
       i.input_name, i.role, i.provider, i.offer_key, i.fact, i.input_status, i.used,
       i.price_per_hour, i.price_per_gpu_hour, i.value_num, i.value_text,
       coalesce(o.price_raw, NULL) AS price_raw, coalesce(o.price_text, i.price_text) AS price_text,
       coalesce(o.observed_at, f.observed_at, i.observed_at) AS observed_at,
       coalesce(o.source_url, f.source_url, i.source_url) AS source_url,
       coalesce(o.warc_file, f.warc_file, i.warc_file) AS warc_file,
       coalesce(o.warc_record_id, f.warc_record_id, i.warc_record_id) AS warc_record_id,
       coalesce(o.body_sha256, f.body_sha256) AS body_sha256,
       o.rowid AS offer_row, r.mode AS run_mode, r.replay_source
FROM latest l
JOIN claim_inputs i ON i.run_id = l.run_id AND i.claim_id = l.claim_id AND i.rules_version = l.rules_version
LEFT JOIN offers o ON i.offer_key IS NOT NULL AND o.run_id = i.offer_run_id AND o.provider = i.provider
                   AND o.offer_key = i.offer_key
LEFT JOIN source_facts f ON i.fact IS NOT NULL AND f.run_id = i.offer_run_id AND f.provider = i.provider
                         AND f.fact = i.fact
LEFT JOIN runs r ON r.run_id = coalesce(i.offer_run_id, l.run_id)
ORDER BY i.used DESC, i.role, i.input_name;

-- export_offers: every stored offer of the runs of snapshot date $1 or later, with its run's
-- date and its provider run's status (ok, or suspect: evidence that never became a price),
-- for `pricewatch export` (dataset "offers"; the column set and its version are declared in
-- pricewatch/export/datasets.py, which checks this query against it).
SELECT r.snapshot_date,
       o.run_id, o.provider, o.offer_key, o.gpu_label, o.gpu_model, o.gpu_count, o.vram_gb, o.form_factor,
       comparable_class(o.gpu_model, o.form_factor) AS comparable_class,
       o.billing, o.tier, o.reserved_term, o.self_service, o.region, o.currency, o.price_unit,
       CAST(o.price_per_hour AS DOUBLE) AS price_per_hour, CAST(o.price_per_gpu_hour AS DOUBLE) AS price_per_gpu_hour, o.is_priced, o.price_text, o.price_raw, o.availability,
       o.is_aggregator, o.observed_at, pr.status AS provider_run_status, o.held_reason, o.screen_note,
       o.source_url, o.warc_file, o.warc_record_id, o.body_sha256
FROM offers o
JOIN runs r USING (run_id)
JOIN provider_runs pr USING (run_id, provider)
WHERE r.snapshot_date >= $1
ORDER BY r.snapshot_date, o.run_id, o.provider, o.offer_key

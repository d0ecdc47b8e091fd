-- The evidence of one stored offer reading: the offer row (its printed text, its price) with
-- the WARC record it points to and the run that stored it (live or replay, and what was
-- replayed: where its archive is likely to be found). Parameters, in order:
--   1 row id (DuckDB rowid of offers) or NULL
--   2 provider (with 3) or NULL
--   3 offer_key (with 2) or NULL
--   4 run_id or NULL (with 2/3: that run's reading; NULL: the latest reading)
-- One row: the row named by id, or the provider's latest (or that run's) reading of the key.
SELECT o.rowid AS offer_row, o.run_id, o.provider, o.offer_key, o.gpu_label, o.gpu_model, o.gpu_count,
       o.billing, o.price_unit, o.price_per_hour, o.price_per_gpu_hour, o.is_priced, o.price_raw,
       o.price_text, o.observed_at, o.source_url, o.warc_file, o.warc_record_id, o.body_sha256,
       r.mode AS run_mode, r.replay_source
FROM offers o
JOIN runs r ON r.run_id = o.run_id
WHERE ($1 IS NOT NULL AND o.rowid = $1)
   OR ($1 IS NULL AND o.provider = $2 AND o.offer_key = $3 AND ($4 IS NULL OR o.run_id = $4))
ORDER BY o.observed_at DESC, r.finished_at DESC
LIMIT 1;

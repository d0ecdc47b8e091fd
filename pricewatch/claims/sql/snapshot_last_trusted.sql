-- snapshot_last_trusted: an offer's last trusted reading of a successful run before a held one
-- ($1 provider, $2 offer_key, $3 the held reading's time). The stored spells bound the search:
-- that reading lies within the latest spell that started before $3, so only rows from its
-- start on are read (zone maps on observed_at).
SELECT o.run_id, o.provider, o.offer_key, o.gpu_label, o.gpu_model, o.gpu_count, o.vram_gb, o.billing, o.tier,
       o.self_service, o.currency, o.price_per_hour, o.price_per_gpu_hour, o.is_priced, o.price_text,
       o.is_aggregator, o.observed_at, o.source_url, o.warc_file, o.warc_record_id, o.held_reason
FROM offers o JOIN provider_runs pr USING (run_id, provider)
WHERE pr.status = 'ok' AND o.provider = $1 AND o.offer_key = $2 AND o.held_reason IS NULL
  AND o.observed_at < $3
  AND o.observed_at >= (SELECT max(valid_from) FROM price_spells
                        WHERE provider = $1 AND offer_key = $2 AND valid_from < $3)
ORDER BY o.observed_at DESC LIMIT 1

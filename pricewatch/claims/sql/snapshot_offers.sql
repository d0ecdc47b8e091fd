-- snapshot_offers: the offers of the given provider runs ($1 providers, $2 their run ids, lists
-- of the same length), read within their observed_at range ($3..$4) so the zone maps of offers
-- skip every other run's rows, and only those the claims can read (issue 11: converting every
-- row to Python was most of the read): when $5 is true every offer, else each offer of the
-- providers in $6, the offers in $7 (provider, offer_key) and the offers of the groups in $8
-- (gpu_model, gpu_count, billing) (pricewatch/claims/snapshot.py Interest). observed_at comes
-- as epoch microseconds (one Python datetime per run instead of one per row).
SELECT o.run_id, o.provider, o.offer_key, o.gpu_label, o.gpu_model, o.gpu_count, o.vram_gb, o.form_factor,
       o.billing, o.tier,
       o.self_service, o.currency, o.price_per_hour, o.price_per_gpu_hour, o.is_priced, o.price_text,
       o.is_aggregator, epoch_us(o.observed_at) AS observed_us, o.source_url, o.warc_file, o.warc_record_id, o.held_reason
FROM offers o
SEMI JOIN (SELECT unnest($1::VARCHAR[]) AS provider, unnest($2::VARCHAR[]) AS run_id) w USING (provider, run_id)
WHERE o.observed_at BETWEEN $3 AND $4
  AND ($5
       OR list_contains($6::VARCHAR[], o.provider)
       OR list_contains($7::STRUCT(provider VARCHAR, offer_key VARCHAR)[],
                        {'provider': o.provider, 'offer_key': o.offer_key})
       OR list_contains($8::STRUCT(gpu_model VARCHAR, gpu_count INTEGER, billing VARCHAR)[],
                        {'gpu_model': o.gpu_model, 'gpu_count': o.gpu_count, 'billing': o.billing}))
ORDER BY o.provider, o.rowid

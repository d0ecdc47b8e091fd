-- The price spells (offer_price_history) of the offers claims name (report_cited_offers.sql):
-- one row per offer and spell, oldest first.
SELECT h.provider, h.offer_key, h.gpu_model, h.gpu_count, h.price_per_hour, h.price_per_gpu_hour,
       h.price_text, h.started_by, h.valid_from, h.valid_to, h.last_seen_at
FROM offer_price_history h
WHERE (h.provider, h.offer_key) IN (SELECT DISTINCT provider, offer_key FROM claim_inputs
                                     WHERE offer_key IS NOT NULL)
ORDER BY h.provider, h.offer_key, h.valid_from;

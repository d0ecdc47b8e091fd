-- The view held_offers, as it is now (its docs: held_offers.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- An editor's decision (offer_decisions, migration 058) covers the offer's held readings at the
-- same price from the decided reading on; the newest decision wins.
CREATE OR REPLACE VIEW held_offers AS
SELECT c.provider, c.offer_key, c.gpu_model, c.gpu_count, c.billing, c.tier, c.price_per_hour, c.price_per_gpu_hour,
       c.held_reason, c.observed_at, c.run_id, c.source_url, c.warc_file, c.warc_record_id, c.price_text,
       d.decision, d.decided_by, d.decided_at, d.run_id AS decided_run_id
FROM current_offers c
LEFT JOIN (SELECT c2.provider, c2.offer_key, arg_max(d2.decision, d2.decided_at) AS decision,
                  arg_max(d2.decided_by, d2.decided_at) AS decided_by, max(d2.decided_at) AS decided_at,
                  arg_max(d2.run_id, d2.decided_at) AS run_id
           FROM current_offers c2 JOIN offer_decisions d2 USING (provider, offer_key)
           WHERE c2.held_reason IS NOT NULL AND d2.observed_at <= c2.observed_at
             AND d2.price_per_hour IS NOT DISTINCT FROM c2.price_per_hour
           GROUP BY c2.provider, c2.offer_key) d USING (provider, offer_key)
WHERE c.held_reason IS NOT NULL;

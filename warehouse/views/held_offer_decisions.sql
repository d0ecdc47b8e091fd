-- The view held_offer_decisions, as it is now (its docs: held_offer_decisions.yaml). Changing it is an edit of
-- this file: migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- An editor's decision (offer_decisions, migration 058) covers the offer's held readings at the
-- same price from the decided reading on; the newest decision wins.
CREATE OR REPLACE VIEW held_offer_decisions AS
SELECT c.provider, c.offer_key, c.run_id, arg_max(d.decision, d.decided_at) AS decision,
       arg_max(d.decided_by, d.decided_at) AS decided_by, max(d.decided_at) AS decided_at,
       arg_max(d.run_id, d.decided_at) AS decided_run_id
FROM current_offers c JOIN offer_decisions d USING (provider, offer_key)
WHERE c.held_reason IS NOT NULL AND d.observed_at <= c.observed_at
  AND d.price_per_hour IS NOT DISTINCT FROM c.price_per_hour
GROUP BY c.provider, c.offer_key, c.run_id;

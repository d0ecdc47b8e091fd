-- The view latest_offers, as it is now (its docs: latest_offers.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- A held reading an editor accepted (held_offer_decisions) is the latest price itself. Each row
-- carries its comparable class (warehouse/macros/comparable_class.sql).
CREATE OR REPLACE VIEW latest_offers AS
SELECT *, comparable_class(gpu_model, form_factor) AS comparable_class FROM (
SELECT *, NULL::VARCHAR AS held_reading_reason FROM current_offers c
WHERE held_reason IS NULL
   OR EXISTS (SELECT 1 FROM held_offer_decisions a
              WHERE a.provider = c.provider AND a.offer_key = c.offer_key AND a.decision = 'accept')
UNION ALL BY NAME
SELECT t.*, h.held_reason AS held_reading_reason
FROM trusted_offers t JOIN current_offers h USING (provider, offer_key)
WHERE h.held_reason IS NOT NULL AND t.observed_at < h.observed_at
  AND NOT EXISTS (SELECT 1 FROM held_offer_decisions a
                  WHERE a.provider = h.provider AND a.offer_key = h.offer_key AND a.decision = 'accept')
);

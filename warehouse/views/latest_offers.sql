-- The view latest_offers, as it is now (its docs: latest_offers.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW latest_offers AS
SELECT *, NULL::VARCHAR AS held_reading_reason FROM current_offers WHERE held_reason IS NULL
UNION ALL BY NAME
SELECT t.*, h.held_reason AS held_reading_reason
FROM trusted_offers t JOIN current_offers h USING (provider, offer_key)
WHERE h.held_reason IS NOT NULL AND t.observed_at < h.observed_at;

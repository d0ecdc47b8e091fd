-- The view source_freshness, as it is now (its docs: source_freshness.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW source_freshness AS
SELECT * FROM source_freshness_at(now(), NULL);

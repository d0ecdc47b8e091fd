-- The view provider_price_index, as it is now (its docs: provider_price_index.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW provider_price_index AS
SELECT * FROM provider_price_index_stored WHERE day <= daily_marts_valid_through()
UNION ALL
SELECT * FROM provider_price_index_after(daily_marts_valid_through());

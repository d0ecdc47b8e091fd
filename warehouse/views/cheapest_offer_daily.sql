-- The view cheapest_offer_daily, as it is now (its docs: cheapest_offer_daily.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW cheapest_offer_daily AS
SELECT * FROM cheapest_offer_daily_stored WHERE day <= daily_marts_valid_through()
UNION ALL
SELECT * FROM cheapest_offer_daily_after(daily_marts_valid_through());

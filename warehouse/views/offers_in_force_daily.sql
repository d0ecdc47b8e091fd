-- The view offers_in_force_daily, as it is now (its docs: offers_in_force_daily.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW offers_in_force_daily AS
SELECT * FROM offers_in_force_between(DATE '0001-01-01', DATE '9999-12-31');

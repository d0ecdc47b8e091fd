-- The view claim_history, as it is now (its docs: claim_history.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW claim_history AS
SELECT * FROM claim_history_stored WHERE claim_history_valid()
UNION ALL
SELECT * FROM claim_history_computed(claim_history_valid());

-- The view run_sequence, as it is now (its docs: run_sequence.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW run_sequence AS
SELECT run_id, observed_at, started_at, status,
       row_number() OVER (ORDER BY observed_at, started_at, run_id) AS seq
FROM runs;

-- Runs in snapshot order (a replayed history may be loaded in any order): "the previous run"
-- of an alert is the one just before in this sequence, whatever the load order was.
CREATE OR REPLACE VIEW run_sequence AS
SELECT run_id, observed_at, started_at, status,
       row_number() OVER (ORDER BY observed_at, started_at, run_id) AS seq
FROM runs;

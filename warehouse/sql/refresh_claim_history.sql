-- refresh_claim_history: store the rows of claim_history not stored yet (migration 052): the
-- evaluations added since the last refresh (normally one run's), each linked to its claim's
-- last stored row; or, when the stored rows are no longer the answer (claim_history_valid():
-- an evaluation removed, added late, or for a snapshot already stored), every row again. Then
-- each claim's last row and what the rows were computed from. Run in the load's transaction
-- when an evaluation of an earlier day is not stored yet or the stored rows are no longer the
-- answer (warehouse/marts.py refresh, warehouse/sql/marts_due.sql): about once a day, so a read
-- computes at most the latest day's evaluations; idempotent; migration 052 runs it once.
SET VARIABLE claim_history_use_stored = claim_history_valid();
DELETE FROM claim_history_stored WHERE NOT getvariable('claim_history_use_stored');
DELETE FROM claim_history_last WHERE NOT getvariable('claim_history_use_stored');
CREATE OR REPLACE TEMP TABLE claim_history_new AS
SELECT * FROM claim_history_computed(getvariable('claim_history_use_stored'));
-- appended in snapshot order (as the evaluations are): compact, cheap to scan
INSERT INTO claim_history_stored SELECT * FROM claim_history_new ORDER BY snapshot_at, run_id, claim_id;
DELETE FROM claim_history_last WHERE claim_id IN (SELECT claim_id FROM claim_history_new);
INSERT INTO claim_history_last
SELECT claim_id, snapshot_at, run_id, status, current_value FROM claim_history_new
QUALIFY row_number() OVER (PARTITION BY claim_id ORDER BY snapshot_at DESC, run_id DESC) = 1;
DELETE FROM claim_history_state;
INSERT INTO claim_history_state (id, evaluated_through, evaluations, snapshot_through, refreshed_at)
SELECT 1, coalesce(max(evaluated_at), '-infinity'::TIMESTAMPTZ), count(*),
       coalesce(max(snapshot_at), '-infinity'::TIMESTAMPTZ), now()
FROM claim_evaluations;
DROP TABLE claim_history_new;

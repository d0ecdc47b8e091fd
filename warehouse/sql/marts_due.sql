-- marts_due: which stored marts have something to store (warehouse/marts.py refresh), cheaply, so
-- a load at a 15-minute cadence stores them once a day, not on every run:
--   daily_marts    a complete day (before the latest snapshot day) not validly stored
--                  (refresh_daily_marts.sql; the latest day is always computed on read)
--   claim_history  the stored rows are no longer the answer (claim_history_valid()), or an
--                  evaluation stored since the last refresh is of a run before the latest
--                  snapshot day (refresh_claim_history.sql; the latest day's evaluations are
--                  computed on read, linked to the stored rows)
SELECT
    EXISTS (SELECT 1 FROM runs
            WHERE snapshot_date > daily_marts_valid_through()
              AND snapshot_date < (SELECT max(snapshot_date) FROM runs)) AS daily_marts,
    NOT claim_history_valid()
    OR EXISTS (SELECT 1 FROM claim_history_state s
               JOIN claim_evaluations e ON e.evaluated_at > s.evaluated_through   -- a join: its bound prunes the scan
               JOIN runs r ON r.run_id = e.run_id
               WHERE r.snapshot_date < (SELECT max(snapshot_date) FROM runs)) AS claim_history

-- claim_history at scale (issue 11). The view of migration 044 ranked every evaluation ever
-- stored and ran a window over them on each read (308k evaluations at 10M offer rows: ~1.3-2.4 s).
-- Now, as the daily marts do: the rows already computed are kept in claim_history_stored
-- (written in each load's transaction by warehouse/sql/refresh_claim_history.sql), and a read
-- computes only the evaluations stored since (normally the latest run's), each linked to its
-- claim's previous row through claim_history_last (each claim's last stored row).
--
-- The stored rows are used only while they are still the answer (claim_history_valid()):
-- every evaluation they were computed from is still there and none was added with an earlier
-- evaluated_at (the count of evaluations up to evaluated_through is unchanged; evaluations are
-- only added), and no evaluation added since is for a snapshot at or before the last one stored
-- (a backfill, or a stored snapshot evaluated again under new rules). Otherwise the view
-- computes every row from the evaluations (slower, never wrong) until the next refresh
-- rebuilds them. One definition of the figures: claim_history_computed(use_stored), the rules
-- of migration 044 (each run's latest evaluation of a claim, by evaluated_at then
-- rules_version; previous = the claim's previous run in snapshot order, by run_id on ties).
CREATE TABLE claim_history_stored (
    snapshot_at        TIMESTAMPTZ NOT NULL,
    run_id             VARCHAR NOT NULL,
    claim_id           VARCHAR NOT NULL,
    claim_group        VARCHAR,
    page               VARCHAR,
    kind               VARCHAR,
    status             VARCHAR NOT NULL,
    published_value    DECIMAL(18, 6),
    current_value      DECIMAL(18, 6),
    difference         DECIMAL(18, 6),
    published_text     VARCHAR,
    current_text       VARCHAR,
    tolerance          VARCHAR,
    reason             VARCHAR,
    unverifiable_since TIMESTAMPTZ,
    previous_status    VARCHAR,
    previous_value     DECIMAL(18, 6),
    previous_run_id    VARCHAR,
    status_changed     BOOLEAN,
    rules_version      VARCHAR NOT NULL,
    trigger            VARCHAR,
    evaluated_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE claim_history_last (
    claim_id      VARCHAR NOT NULL,
    snapshot_at   TIMESTAMPTZ NOT NULL,
    run_id        VARCHAR NOT NULL,
    status        VARCHAR NOT NULL,
    current_value DECIMAL(18, 6)
);

CREATE TABLE claim_history_state (
    id                INTEGER PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    evaluated_through TIMESTAMPTZ NOT NULL,
    evaluations       BIGINT NOT NULL,
    snapshot_through  TIMESTAMPTZ NOT NULL,
    refreshed_at      TIMESTAMPTZ NOT NULL
);

-- Whether claim_history_stored is still the answer for the evaluations it was computed from.
CREATE OR REPLACE MACRO claim_history_valid() AS (
    coalesce((
        SELECT (SELECT count(*) FROM claim_evaluations e WHERE e.evaluated_at <= s.evaluated_through) = s.evaluations
               AND NOT EXISTS (SELECT 1 FROM claim_evaluations e
                               WHERE e.evaluated_at > s.evaluated_through AND e.snapshot_at <= s.snapshot_through)
        FROM claim_history_state s), false)
);

-- The rows of claim_history computed from the evaluations: with use_stored, only those of the
-- evaluations stored after claim_history_state.evaluated_through (each claim's previous row is
-- then its last stored one, claim_history_last, or a newer one of these); without, every row.
CREATE OR REPLACE MACRO claim_history_computed(use_stored) AS TABLE
WITH ev AS (
    SELECT e.* FROM claim_evaluations e
    WHERE NOT use_stored OR e.evaluated_at > (SELECT s.evaluated_through FROM claim_history_state s)
),
pick AS (
    SELECT run_id, claim_id, arg_max(rules_version, (evaluated_at, rules_version)) AS rules_version
    FROM ev GROUP BY run_id, claim_id
),
per_run AS (
    SELECT ev.* FROM ev SEMI JOIN pick USING (run_id, claim_id, rules_version)
),
chain AS (
    SELECT claim_id, run_id, snapshot_at, status, current_value, false AS seed FROM per_run
    UNION ALL
    SELECT claim_id, run_id, snapshot_at, status, current_value, true AS seed FROM claim_history_last WHERE use_stored
),
linked AS (
    SELECT run_id, claim_id, seed,
           lag(status) OVER w AS previous_status,
           lag(current_value) OVER w AS previous_value,
           lag(run_id) OVER w AS previous_run_id
    FROM chain
    WINDOW w AS (PARTITION BY claim_id ORDER BY snapshot_at, run_id)
)
SELECT p.snapshot_at, p.run_id, p.claim_id, p.claim_group, p.page, p.kind, p.status,
       p.published_value, p.current_value, p.difference, p.published_text, p.current_text,
       p.tolerance, p.reason, p.unverifiable_since,
       l.previous_status, l.previous_value, l.previous_run_id,
       (l.previous_status IS NOT NULL AND l.previous_status <> p.status) AS status_changed,
       p.rules_version, p.trigger, p.evaluated_at
FROM per_run p
JOIN linked l ON l.run_id = p.run_id AND l.claim_id = p.claim_id AND NOT l.seed;

CREATE OR REPLACE VIEW claim_history AS
SELECT * FROM claim_history_stored WHERE claim_history_valid()
UNION ALL
SELECT * FROM claim_history_computed(claim_history_valid());

COMMENT ON TABLE claim_history_stored IS 'The stored rows of claim_history (refreshed in each load by warehouse/sql/refresh_claim_history.sql); read claim_history, not this.';
COMMENT ON TABLE claim_history_last IS 'Each claim''s last row in claim_history_stored (snapshot order): the previous row of its next evaluation.';
COMMENT ON COLUMN claim_history_last.claim_id IS 'claim id (rules/)';
COMMENT ON COLUMN claim_history_last.snapshot_at IS 'the snapshot of the claim''s last stored row';
COMMENT ON COLUMN claim_history_last.run_id IS 'the run of that row';
COMMENT ON COLUMN claim_history_last.status IS 'its status: holds | drifted | unverifiable';
COMMENT ON COLUMN claim_history_last.current_value IS 'its current_value';
COMMENT ON TABLE claim_history_state IS 'What claim_history_stored was computed from (one row); claim_history_valid() compares it with claim_evaluations.';
COMMENT ON COLUMN claim_history_state.id IS 'always 1: the table holds at most one row';
COMMENT ON COLUMN claim_history_state.evaluated_through IS 'the latest evaluated_at stored (-infinity: none)';
COMMENT ON COLUMN claim_history_state.evaluations IS 'evaluations with evaluated_at up to evaluated_through when stored; another count now means one was removed or added late, and every row is computed on read';
COMMENT ON COLUMN claim_history_state.snapshot_through IS 'the latest snapshot_at stored (-infinity: none); an evaluation added since for this snapshot or an earlier one makes every row computed on read';
COMMENT ON COLUMN claim_history_state.refreshed_at IS 'when warehouse/sql/refresh_claim_history.sql last ran';
COMMENT ON MACRO claim_history_valid IS 'true while claim_history_stored is the answer for the evaluations it was computed from (see claim_history_state).';
COMMENT ON MACRO TABLE claim_history_computed IS 'claim_history computed from claim_evaluations: claim_history_computed(use_stored BOOLEAN): true = only the evaluations stored since the last refresh (linked to claim_history_last), false = every row.';
COMMENT ON VIEW claim_history IS 'Each published claim''s value and status per evaluated run, in snapshot order, with the previous run''s status and value; a snapshot evaluated again under new rules shows its latest evaluation. Stored rows plus the evaluations since the last load.';
COMMENT ON COLUMN claim_history.snapshot_at IS 'the run''s observed_at: the claim was evaluated on data observed at or before it';
COMMENT ON COLUMN claim_history.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN claim_history.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN claim_history.claim_group IS 'the CLAIMS.md id the claim belongs to';
COMMENT ON COLUMN claim_history.page IS 'published page id (rules folder)';
COMMENT ON COLUMN claim_history.kind IS 'computation kind: cited_offer, cheapest_offer, ratio, ...';
COMMENT ON COLUMN claim_history.status IS 'holds | drifted | unverifiable';
COMMENT ON COLUMN claim_history.published_value IS 'the number the page prints (checkmarks as 1/0; NULL for text)';
COMMENT ON COLUMN claim_history.current_value IS 'the number recomputed from this snapshot (NULL when unverifiable)';
COMMENT ON COLUMN claim_history.difference IS 'current_value - published_value';
COMMENT ON COLUMN claim_history.published_text IS 'as the page shows it ("$43.46", "1,260 GB")';
COMMENT ON COLUMN claim_history.current_text IS 'the same, recomputed';
COMMENT ON COLUMN claim_history.tolerance IS 'what counts as holding: "cents", "±5%", "exact", ...';
COMMENT ON COLUMN claim_history.reason IS 'why drifted or unverifiable (which input, since when)';
COMMENT ON COLUMN claim_history.unverifiable_since IS 'when the missing or failed input was first missing';
COMMENT ON COLUMN claim_history.previous_status IS 'status in the claim''s previous evaluated run (snapshot order); NULL for the first';
COMMENT ON COLUMN claim_history.previous_value IS 'current_value in the previous evaluated run';
COMMENT ON COLUMN claim_history.previous_run_id IS 'the previous evaluated run';
COMMENT ON COLUMN claim_history.status_changed IS 'true when status differs from previous_status';
COMMENT ON COLUMN claim_history.rules_version IS 'sha256 (16 hex) of rules/ this evaluation used (''unrecorded'' before migration 035)';
COMMENT ON COLUMN claim_history.trigger IS '''run'': evaluated after the run loaded; ''rules'': evaluated again because rules/ changed';
COMMENT ON COLUMN claim_history.evaluated_at IS 'when the evaluation was computed';
COMMENT ON COLUMN claim_history_stored.snapshot_at IS 'the run''s observed_at: the claim was evaluated on data observed at or before it';
COMMENT ON COLUMN claim_history_stored.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN claim_history_stored.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN claim_history_stored.claim_group IS 'the CLAIMS.md id the claim belongs to';
COMMENT ON COLUMN claim_history_stored.page IS 'published page id (rules folder)';
COMMENT ON COLUMN claim_history_stored.kind IS 'computation kind: cited_offer, cheapest_offer, ratio, ...';
COMMENT ON COLUMN claim_history_stored.status IS 'holds | drifted | unverifiable';
COMMENT ON COLUMN claim_history_stored.published_value IS 'the number the page prints (checkmarks as 1/0; NULL for text)';
COMMENT ON COLUMN claim_history_stored.current_value IS 'the number recomputed from this snapshot (NULL when unverifiable)';
COMMENT ON COLUMN claim_history_stored.difference IS 'current_value - published_value';
COMMENT ON COLUMN claim_history_stored.published_text IS 'as the page shows it ("$43.46", "1,260 GB")';
COMMENT ON COLUMN claim_history_stored.current_text IS 'the same, recomputed';
COMMENT ON COLUMN claim_history_stored.tolerance IS 'what counts as holding: "cents", "±5%", "exact", ...';
COMMENT ON COLUMN claim_history_stored.reason IS 'why drifted or unverifiable (which input, since when)';
COMMENT ON COLUMN claim_history_stored.unverifiable_since IS 'when the missing or failed input was first missing';
COMMENT ON COLUMN claim_history_stored.previous_status IS 'status in the claim''s previous evaluated run (snapshot order); NULL for the first';
COMMENT ON COLUMN claim_history_stored.previous_value IS 'current_value in the previous evaluated run';
COMMENT ON COLUMN claim_history_stored.previous_run_id IS 'the previous evaluated run';
COMMENT ON COLUMN claim_history_stored.status_changed IS 'true when status differs from previous_status';
COMMENT ON COLUMN claim_history_stored.rules_version IS 'sha256 (16 hex) of rules/ this evaluation used (''unrecorded'' before migration 035)';
COMMENT ON COLUMN claim_history_stored.trigger IS '''run'': evaluated after the run loaded; ''rules'': evaluated again because rules/ changed';
COMMENT ON COLUMN claim_history_stored.evaluated_at IS 'when the evaluation was computed';

-- The rows of every evaluation stored so far (the statements of warehouse/sql/refresh_claim_history.sql).
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

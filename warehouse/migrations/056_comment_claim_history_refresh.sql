-- claim_history's comment (migration 052) said its stored rows run up to "the last load"; they run
-- up to the last refresh, which a load makes only when a snapshot day has completed (about once a
-- day: warehouse/marts.py). A landed migration is never edited, so the comment is corrected here.
COMMENT ON VIEW claim_history IS 'Each published claim''s value and status per evaluated run, in snapshot order, with the previous run''s status and value; a snapshot evaluated again under new rules shows its latest evaluation. Stored rows (claim_history_stored, refreshed by the load when a snapshot day completes, about daily) plus the evaluations stored since that refresh, computed on read.';

-- spells_advance_3_close: the few other moves' effect on the offer's latest spell (and an
-- extend whose reading changed the offer's model, count, billing or tier: the latest reading's
-- are the spell's, as in the history views before migration 025; $1: the extends were moved by
-- spells_advance_2_relocate.sql, which wrote those already), the spell found by its row id as in
-- spells_advance_2_extend.sql:
--   absent      valid_to = the run's time (the spell stays the offer's latest)
--   changed     valid_to = the new reading's time; no longer the latest
--   reappeared  no longer the latest (its valid_to, the absence, stays)
-- The new spells are opened by spells_step_6_open.sql.
UPDATE price_spells s SET
    valid_to = CASE m.move WHEN 'absent' THEN m.run_observed_at WHEN 'changed' THEN m.observed_at
                           ELSE s.valid_to END,
    is_latest = m.move IN ('absent', 'extend'),
    gpu_model = CASE WHEN m.move = 'extend' THEN m.gpu_model ELSE s.gpu_model END,
    gpu_count = CASE WHEN m.move = 'extend' THEN m.gpu_count ELSE s.gpu_count END,
    billing = CASE WHEN m.move = 'extend' THEN m.billing ELSE s.billing END,
    tier = CASE WHEN m.move = 'extend' THEN m.tier ELSE s.tier END
FROM spell_moves m
WHERE s.rowid = m.cur_row
  AND (m.move IN ('absent', 'changed', 'reappeared')
       OR (m.move = 'extend' AND NOT $1 AND (m.cur_gpu_model IS DISTINCT FROM m.gpu_model OR m.cur_gpu_count IS DISTINCT FROM m.gpu_count
                                  OR m.cur_billing IS DISTINCT FROM m.billing OR m.cur_tier IS DISTINCT FROM m.tier)))

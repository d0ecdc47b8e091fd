-- spells_advance_2_update: each move's effect on the offer's latest spell, in one UPDATE:
--   absent      valid_to = the run's time (the spell stays the offer's latest)
--   extend      the reading extends it (the latest reading's model, count, billing and tier are
--               the spell's, as in the history views before migration 025)
--   changed     valid_to = the new reading's time; no longer the latest
--   reappeared  no longer the latest (its valid_to, the absence, stays)
-- The new spells are opened by spells_step_6_open.sql.
UPDATE price_spells s SET
    valid_to = CASE m.move WHEN 'absent' THEN m.run_observed_at WHEN 'changed' THEN m.observed_at
                           ELSE s.valid_to END,
    is_latest = m.move IN ('absent', 'extend'),
    last_seen_at = CASE WHEN m.move = 'extend' THEN m.observed_at ELSE s.last_seen_at END,
    last_run_id = CASE WHEN m.move = 'extend' THEN m.run_id ELSE s.last_run_id END,
    observations = s.observations + CASE WHEN m.move = 'extend' THEN 1 ELSE 0 END,
    gpu_model = CASE WHEN m.move = 'extend' THEN m.gpu_model ELSE s.gpu_model END,
    gpu_count = CASE WHEN m.move = 'extend' THEN m.gpu_count ELSE s.gpu_count END,
    billing = CASE WHEN m.move = 'extend' THEN m.billing ELSE s.billing END,
    tier = CASE WHEN m.move = 'extend' THEN m.tier ELSE s.tier END
FROM spell_moves m
WHERE m.move <> 'first seen' AND s.provider = m.provider AND s.offer_key = m.offer_key
  AND s.spell_no = m.cur_spell_no

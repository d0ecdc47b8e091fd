-- spells_step_5_close_changed: a new price ends the current spell when it is first seen; a
-- spell followed by a new one is no longer the offer's latest.
UPDATE price_spells s
SET valid_to = CASE WHEN m.move = 'changed' THEN m.observed_at ELSE s.valid_to END, is_latest = false
FROM spell_moves m
WHERE m.move IN ('changed', 'reappeared') AND s.provider = m.provider AND s.offer_key = m.offer_key
  AND s.spell_no = m.cur_spell_no;

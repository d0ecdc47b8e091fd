-- spells_step_4_extend: a reading at the spell's price extends it (the latest reading's model,
-- count, billing and tier are the spell's, as in the history views before migration 025).
UPDATE price_spells s SET last_seen_at = m.observed_at, last_run_id = m.run_id,
       observations = s.observations + 1, gpu_model = m.gpu_model, gpu_count = m.gpu_count,
       billing = m.billing, tier = m.tier
FROM spell_moves m
WHERE m.move = 'extend' AND s.provider = m.provider AND s.offer_key = m.offer_key AND s.spell_no = m.cur_spell_no;

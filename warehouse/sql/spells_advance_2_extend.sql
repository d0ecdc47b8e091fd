-- spells_advance_2_extend: the many extends (spell_moves, spells_advance_1_moves.sql) write only
-- the three columns a reading at the spell's price changes. The latest spell is found by its row
-- id, read by the moves in the same transaction (a scan of one column with the row ids as a
-- filter, not a join over every spell's keys); warehouse/spells.py checks the count updated.
UPDATE price_spells s SET last_seen_at = m.observed_at, last_run_id = m.run_id, observations = s.observations + 1
FROM spell_moves m
WHERE m.move = 'extend' AND s.rowid = m.cur_row

-- spells_advance_2_relocate: the extends of spells_advance_2_extend.sql written as new rows at the
-- end of price_spells (the old rows deleted by row id), for a load whose latest spells lie
-- scattered over many row groups (warehouse/spells.py RELOCATE_ROW_GROUPS): an UPDATE in place
-- makes the checkpoint rewrite the updated columns of every row group it touched (at 10M offers:
-- every one of price_spells), while the moved rows sit together at the end, where the next loads
-- update them in place. Same values as the in-place steps: last_seen_at, last_run_id,
-- observations + 1, and the reading's model, count, billing and tier (spells_advance_3_close.sql
-- then leaves the moved extends alone).
CREATE OR REPLACE TEMP TABLE spell_relocated AS
SELECT s.* REPLACE (m.observed_at AS last_seen_at, m.run_id AS last_run_id, s.observations + 1 AS observations,
                    m.gpu_model AS gpu_model, m.gpu_count AS gpu_count, m.billing AS billing, m.tier AS tier)
FROM price_spells s JOIN spell_moves m ON s.rowid = m.cur_row
WHERE m.move = 'extend';
DELETE FROM price_spells WHERE rowid IN (SELECT cur_row FROM spell_moves WHERE move = 'extend');
INSERT INTO price_spells SELECT * FROM spell_relocated;

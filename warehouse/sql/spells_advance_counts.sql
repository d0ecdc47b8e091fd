-- spells_advance_counts: how many of the run's spell moves (spell_moves, spells_advance_1_moves.sql)
-- each later step has to apply, so a step with nothing to do is not run and each UPDATE's count
-- can be checked against what it should touch (warehouse/spells.py advance):
--   extends       moves that extend the latest spell (spells_advance_2_extend.sql)
--   row_groups    the row groups of price_spells those spells lie in (row id // 122,880, DuckDB's
--                 row group size): many, and the extends are moved to the end instead
--                 (spells_advance_2_relocate.sql)
--   closes        moves that end or retire the latest spell (spells_advance_3_close.sql)
--   reattributed  extends whose reading changed the offer's model, count, billing or tier (also
--                 spells_advance_3_close.sql, unless the extends were moved)
--   opens         moves that open a new spell (spells_step_6_open.sql)
SELECT count(*) FILTER (WHERE move = 'extend') AS extends,
       count(DISTINCT cur_row // 122880) FILTER (WHERE move = 'extend') AS row_groups,
       count(*) FILTER (WHERE move IN ('absent', 'changed', 'reappeared')) AS closes,
       count(*) FILTER (WHERE move = 'extend' AND (cur_gpu_model IS DISTINCT FROM gpu_model
                                                   OR cur_gpu_count IS DISTINCT FROM gpu_count
                                                   OR cur_billing IS DISTINCT FROM billing
                                                   OR cur_tier IS DISTINCT FROM tier)) AS reattributed,
       count(*) FILTER (WHERE move IN ('first seen', 'changed', 'reappeared')) AS opens
FROM spell_moves

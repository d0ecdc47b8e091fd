-- spells_step_6_open: the new spells, each with the change that started it.
INSERT INTO price_spells
SELECT provider, offer_key, coalesce(cur_spell_no, 0) + 1, move, gpu_model, gpu_count, billing, tier,
       price_per_hour, price_per_gpu_hour, price_text, observed_at, NULL, observed_at, 1, run_id, run_id, true,
       cur_price_per_hour, cur_price_text, cur_last_seen_at,
       CASE WHEN move = 'changed' THEN observed_at ELSE cur_valid_to END,
       currency, self_service, is_aggregator,  -- the opening reading's (migration 050)
       form_factor                             -- and its form factor (migration 062)
FROM spell_moves
WHERE move IN ('first seen', 'changed', 'reappeared');

-- spells_step_3_moves: what each trusted reading of the run does to its offer's latest spell:
--   extend      same price and text, spell still current
--   changed     another price or text: the current spell ends, a new one starts
--   reappeared  the latest spell was ended by an absence: a new one starts, even at the same price
--   first seen  no spell yet
CREATE OR REPLACE TEMP TABLE spell_moves AS
SELECT r.*, c.spell_no AS cur_spell_no, c.price_per_hour AS cur_price_per_hour, c.price_text AS cur_price_text,
       c.last_seen_at AS cur_last_seen_at, c.valid_to AS cur_valid_to,
       CASE WHEN c.spell_no IS NULL THEN 'first seen'
            WHEN c.valid_to IS NOT NULL THEN 'reappeared'
            WHEN c.price_per_hour IS DISTINCT FROM r.price_per_hour
              OR c.price_text IS DISTINCT FROM r.price_text THEN 'changed'
            ELSE 'extend' END AS move
FROM spell_readings r
LEFT JOIN (SELECT * FROM price_spells s SEMI JOIN spell_run_providers p USING (provider) WHERE s.is_latest) c
       USING (provider, offer_key)
WHERE NOT r.held;

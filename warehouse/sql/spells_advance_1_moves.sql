-- spells_advance_1_moves: what the run does to the latest spell of each offer of the providers
-- whose ok provider run is the newest of theirs (spell_run_providers: provider, observed_at of
-- its ok provider run; spell_incoming_offers: the run's offers as loaded, held ones included),
-- one row per move:
--   absent      the offer is missing from the run (not even as a held reading): its current
--               spell ends at the run's time
--   extend      same price and text, spell still current
--   changed     another price or text: the current spell ends, a new one starts
--   reappeared  the latest spell was ended by an absence: a new one starts, even at the same price
--   first seen  no spell yet
-- A held reading is presence, not a price: it moves nothing. The reading's columns a spell keeps
-- come along (spells_step_6_open.sql reads the rest from spell_incoming_offers), and so do the
-- latest spell's row id (cur_row: the UPDATEs of spells_advance_2/3 find their rows by it, in the
-- same transaction, without a join over every spell's keys) and its model, count, billing, tier.
CREATE OR REPLACE TEMP TABLE spell_moves AS
WITH latest AS (
    SELECT s.rowid AS row_id, s.provider, s.offer_key, s.spell_no, s.price_per_hour, s.price_text, s.last_seen_at,
           s.valid_to, s.gpu_model, s.gpu_count, s.billing, s.tier
    FROM price_spells s SEMI JOIN spell_run_providers p USING (provider)
    WHERE s.is_latest
)
SELECT coalesce(r.provider, l.provider) AS provider, coalesce(r.offer_key, l.offer_key) AS offer_key,
       r.gpu_model, r.gpu_count, r.billing, r.tier, r.price_per_hour, r.price_per_gpu_hour, r.price_text,
       r.observed_at, r.run_id, r.currency, r.self_service, r.is_aggregator, r.form_factor,
       p.observed_at AS run_observed_at,
       l.spell_no AS cur_spell_no, l.price_per_hour AS cur_price_per_hour, l.price_text AS cur_price_text,
       l.last_seen_at AS cur_last_seen_at, l.valid_to AS cur_valid_to, l.row_id AS cur_row,
       l.gpu_model AS cur_gpu_model, l.gpu_count AS cur_gpu_count, l.billing AS cur_billing, l.tier AS cur_tier,
       CASE WHEN r.offer_key IS NULL THEN 'absent'
            WHEN l.spell_no IS NULL THEN 'first seen'
            WHEN l.valid_to IS NOT NULL THEN 'reappeared'
            WHEN l.price_per_hour IS DISTINCT FROM r.price_per_hour
              OR l.price_text IS DISTINCT FROM r.price_text THEN 'changed'
            ELSE 'extend' END AS move
FROM spell_incoming_offers r
FULL JOIN latest l ON l.provider = r.provider AND l.offer_key = r.offer_key
JOIN spell_run_providers p ON p.provider = coalesce(r.provider, l.provider)
WHERE CASE WHEN r.offer_key IS NULL THEN l.valid_to IS NULL ELSE r.held_reason IS NULL END

-- spells_step_1_readings: the run's readings, for the providers whose ok provider run is the
-- newest of theirs (the spells advance one run at a time; see warehouse/spells.py). Reads the
-- temp tables the loader fills: spell_run_providers (provider, observed_at of its ok provider
-- run) and spell_incoming_offers (the run's offers as loaded, held ones included: a held reading is
-- presence, not a price).
CREATE OR REPLACE TEMP TABLE spell_readings AS
SELECT i.provider, i.offer_key, i.gpu_model, i.gpu_count::INTEGER AS gpu_count, i.billing, i.tier,
       i.price_per_hour::DECIMAL(18, 6) AS price_per_hour,
       i.price_per_gpu_hour::DECIMAL(18, 6) AS price_per_gpu_hour,
       i.price_text, i.observed_at::TIMESTAMPTZ AS observed_at, i.run_id, i.held_reason IS NOT NULL AS held
FROM spell_incoming_offers i SEMI JOIN spell_run_providers p USING (provider);

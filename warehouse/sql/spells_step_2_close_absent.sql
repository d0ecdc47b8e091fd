-- spells_step_2_close_absent: an offer missing from its provider's successful run (not even as
-- a held reading) ends its current spell at that run's time.
UPDATE price_spells s SET valid_to = p.observed_at
FROM spell_run_providers p
WHERE s.provider = p.provider AND s.is_latest AND s.valid_to IS NULL
  AND NOT EXISTS (SELECT 1 FROM spell_readings r WHERE r.provider = s.provider AND r.offer_key = s.offer_key);

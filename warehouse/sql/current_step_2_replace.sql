-- current_step_2_replace: the run's offers become the current offers of each provider whose ok
-- provider run is the newest of theirs (spell_run_providers; spell_incoming_offers: the run's
-- offers as loaded); their offers the run did not list leave. A provider whose run failed keeps
-- its current offers. An offer seen again is updated in place (MERGE), not deleted and inserted:
-- DuckDB logs only the values that changed (a nightly run's WAL: ~0.5 MB less).
DELETE FROM current_offers c
WHERE c.provider IN (SELECT provider FROM spell_run_providers)
  AND NOT EXISTS (SELECT 1 FROM spell_incoming_offers i WHERE i.provider = c.provider AND i.offer_key = c.offer_key);
MERGE INTO current_offers c
USING (SELECT i.* FROM spell_incoming_offers i SEMI JOIN spell_run_providers p USING (provider)) i
ON c.provider = i.provider AND c.offer_key = i.offer_key
WHEN MATCHED THEN UPDATE BY NAME
WHEN NOT MATCHED THEN INSERT BY NAME;

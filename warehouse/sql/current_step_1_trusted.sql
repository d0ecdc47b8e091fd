-- current_step_1_trusted: trusted_offers keeps an offer's latest trusted reading only where
-- current_offers does not hold it (migration 030). Before the run's offers replace the current
-- ones (current_step_2_replace.sql): a current trusted reading whose offer the run holds or does
-- not list is kept in trusted_offers; an offer the run reads trusted needs no kept reading any
-- more. Only the providers whose ok provider run is the newest of theirs (spell_run_providers,
-- spell_incoming_offers: the run's offers as loaded). Touches the few held or missing offers only.
INSERT INTO trusted_offers BY NAME
SELECT c.* FROM current_offers c SEMI JOIN spell_run_providers p USING (provider)
WHERE c.held_reason IS NULL
  AND NOT EXISTS (SELECT 1 FROM spell_incoming_offers i
                  WHERE i.provider = c.provider AND i.offer_key = c.offer_key AND i.held_reason IS NULL);
DELETE FROM trusted_offers t
WHERE t.provider IN (SELECT provider FROM spell_run_providers)
  AND EXISTS (SELECT 1 FROM spell_incoming_offers i
              WHERE i.held_reason IS NULL AND i.provider = t.provider AND i.offer_key = t.offer_key);

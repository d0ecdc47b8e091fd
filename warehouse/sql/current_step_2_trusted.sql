-- current_step_2_trusted: the run's trusted (not held) readings become their offers' latest
-- trusted ones; an offer whose reading is held keeps its earlier trusted one.
DELETE FROM trusted_offers t
WHERE EXISTS (SELECT 1 FROM spell_incoming_offers i SEMI JOIN spell_run_providers p USING (provider)
              WHERE i.held_reason IS NULL AND i.provider = t.provider AND i.offer_key = t.offer_key);
INSERT INTO trusted_offers BY NAME
SELECT i.* FROM spell_incoming_offers i SEMI JOIN spell_run_providers p USING (provider)
WHERE i.held_reason IS NULL;

-- current_rebuild: current_offers and trusted_offers of the providers in $1 (VARCHAR[]) from the
-- stored observations (a run that arrived out of snapshot order, a backfill; migration 027
-- backfilled the same way for every provider). Run after the providers' spells were rebuilt:
-- each offer's latest trusted reading is the last reading of its latest spell (last_run_id), so
-- trusted_offers is one hash join on the spells, not a ranking of every observation; it keeps
-- only the readings current_offers does not hold (migration 030).
DELETE FROM current_offers WHERE list_contains($1::VARCHAR[], provider);
DELETE FROM trusted_offers WHERE list_contains($1::VARCHAR[], provider);
INSERT INTO current_offers
SELECT o.* FROM offers o
JOIN (SELECT provider, arg_max(run_id, (observed_at, run_id)) AS run_id
      FROM provider_runs WHERE trusted AND list_contains($1::VARCHAR[], provider) GROUP BY provider) l
  USING (provider, run_id);
INSERT INTO trusted_offers
SELECT o.* FROM offers o
JOIN price_spells s ON s.provider = o.provider AND s.offer_key = o.offer_key AND s.last_run_id = o.run_id
WHERE s.is_latest AND list_contains($1::VARCHAR[], s.provider) AND list_contains($1::VARCHAR[], o.provider)
  AND NOT EXISTS (SELECT 1 FROM current_offers c
                  WHERE c.provider = o.provider AND c.offer_key = o.offer_key AND c.run_id = o.run_id
                    AND c.held_reason IS NULL);

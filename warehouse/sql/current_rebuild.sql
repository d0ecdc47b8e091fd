-- current_rebuild: current_offers and trusted_offers of the providers in $1 (VARCHAR[]) from the
-- stored observations (a run that arrived out of snapshot order; migration 027 backfills the
-- same way for every provider).
DELETE FROM current_offers WHERE list_contains($1::VARCHAR[], provider);
DELETE FROM trusted_offers WHERE list_contains($1::VARCHAR[], provider);
INSERT INTO current_offers
SELECT o.* FROM offers o
JOIN (SELECT provider, arg_max(run_id, (observed_at, run_id)) AS run_id
      FROM provider_runs WHERE status = 'ok' AND list_contains($1::VARCHAR[], provider) GROUP BY provider) l
  USING (provider, run_id);
INSERT INTO trusted_offers
SELECT o.* FROM offers o JOIN provider_runs pr USING (run_id, provider)
WHERE pr.status = 'ok' AND o.held_reason IS NULL AND list_contains($1::VARCHAR[], o.provider)
QUALIFY row_number() OVER (PARTITION BY o.provider, o.offer_key ORDER BY o.observed_at DESC, o.run_id DESC) = 1;

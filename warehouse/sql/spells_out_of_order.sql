-- spells_out_of_order: the providers of run $1 whose successful provider run is not the newest
-- of theirs (another ok run of the provider is later in (observed_at, run_id) order: an older
-- archive replayed late). Their spells are rebuilt from the observations instead of advanced.
SELECT DISTINCT n.provider
FROM provider_runs n
JOIN provider_runs o ON o.provider = n.provider AND o.trusted AND o.run_id <> n.run_id
WHERE n.run_id = $1 AND n.trusted
  AND (o.observed_at > n.observed_at OR (o.observed_at = n.observed_at AND o.run_id > n.run_id))

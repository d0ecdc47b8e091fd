-- load_incoming: the offers of run $1 just inserted (same transaction), for the spell and
-- latest-offer steps (warehouse/spells.py): one temp table, read by each step, so the run's
-- DataFrame is scanned once (by its INSERT). Only the advanced providers' offers
-- (spell_run_providers). $2 / $3: the earliest and latest observed_at of the run's offers, so
-- the scan of offers skips every stored row group by its zone map.
CREATE OR REPLACE TEMP TABLE spell_incoming_offers AS
SELECT o.* FROM offers o SEMI JOIN spell_run_providers p USING (provider)
WHERE o.observed_at BETWEEN $2 AND $3 AND o.run_id = $1

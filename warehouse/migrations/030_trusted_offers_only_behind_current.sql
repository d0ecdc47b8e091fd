-- Cheap loads (issue 11): trusted_offers keeps an offer's latest trusted reading only where
-- current_offers does not hold it already, i.e. for the offers whose current reading is held by
-- the quality gate, or that the provider's latest successful run did not list. Until now each
-- load copied every trusted reading of the run into both tables (a third of a nightly load's
-- WAL); its readers (latest_offers, held_offers, the gate's previous_readings_current) only ever
-- asked trusted_offers for the offers whose current reading is held, so their answers are the
-- same. Kept by each load (warehouse/sql/current_step_1_trusted.sql) and by the rebuild
-- (current_rebuild.sql). Here the rows an existing warehouse no longer keeps are removed.
DELETE FROM trusted_offers t
WHERE EXISTS (SELECT 1 FROM current_offers c
              WHERE c.provider = t.provider AND c.offer_key = t.offer_key AND c.run_id = t.run_id
                AND c.held_reason IS NULL);
COMMENT ON TABLE trusted_offers IS 'Each offer''s latest trusted (not held) reading of a successful run (the row of offers, copied) where current_offers does not hold it: the offers whose current reading is held, or that their provider''s latest successful run did not list (migration 030). Kept by each load; latest_offers shows it for a held current reading.';

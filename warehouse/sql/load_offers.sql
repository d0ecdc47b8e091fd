-- load_offers: a run's offers (the DataFrame registered as incoming_frame, with the quality
-- gate's verdicts) staged in a temp table of offers' own types, then appended to offers from
-- there: the frame is scanned once, and the spell and latest-offer steps (warehouse/spells.py)
-- read the run's offers from the temp table (spell_incoming_offers), never from offers.
CREATE OR REPLACE TEMP TABLE spell_incoming_offers AS SELECT * FROM offers LIMIT 0;
INSERT INTO spell_incoming_offers BY NAME SELECT * FROM incoming_frame;
INSERT INTO offers SELECT * FROM spell_incoming_offers;

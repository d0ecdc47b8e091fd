-- A run whose parser held some rows it could not read is suspect, and its other rows are the
-- latest prices (issue 20, item 2): provider_runs.trusted says whether a provider run's readings
-- are in force. true for an ok run and for a run that is suspect only because rows were held
-- (those rows carry offers.held_reason and keep their last trusted reading); false for a run a
-- monitor made suspect, a failed run and a provider not attempted. Every "latest", spell,
-- freshness and snapshot query reads trusted where it read status = 'ok'.
ALTER TABLE provider_runs ADD COLUMN trusted BOOLEAN;
UPDATE provider_runs SET trusted = (status = 'ok');
COMMENT ON COLUMN provider_runs.trusted IS 'its readings are in force: true for ok, and for suspect when only rows the parser could not read were held (they keep their last trusted reading); false for a monitor''s suspect, failed, not attempted (migration 059)';

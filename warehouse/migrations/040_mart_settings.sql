-- Settings the marts read (issue 12): one row, changed by UPDATE, never by a new migration.
--   stale_after_hours  a source whose last good data (its last successful provider run) is
--                      older than this is stale (view source_freshness; the claims engine
--                      reads warehouse/sql/source_freshness_at.sql with the same default)
CREATE TABLE mart_settings (
    id                INTEGER PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    stale_after_hours DOUBLE NOT NULL DEFAULT 48 CHECK (stale_after_hours > 0)
);
INSERT INTO mart_settings (id) VALUES (1);

COMMENT ON TABLE mart_settings IS 'One row of settings the marts read; change with UPDATE mart_settings SET stale_after_hours = 72.';
COMMENT ON COLUMN mart_settings.id IS 'always 1: the table holds exactly one row';
COMMENT ON COLUMN mart_settings.stale_after_hours IS 'a source whose last successful provider run is older than this many hours is stale (default 48)';

-- The daily marts (cheapest_offer_daily, provider_price_index) keep the days already loaded in
-- tables (*_stored, written by warehouse/sql/refresh_daily_marts.sql after a load) and compute
-- the days after them on read. daily_marts_days records how many runs each stored day had: a
-- stored day is used only while every day up to it still has the runs it had then (a late
-- backfill of a day makes it and every later day computed on read, slower and never wrong,
-- until the next refresh).
CREATE TABLE daily_marts_days (
    day          DATE PRIMARY KEY,
    runs         BIGINT NOT NULL,
    refreshed_at TIMESTAMPTZ NOT NULL
);

-- The last day the daily marts may read from their stored tables (0001-01-01: none).
CREATE OR REPLACE MACRO daily_marts_valid_through() AS (
    WITH actual AS (
        SELECT snapshot_date AS day, count(*) AS runs FROM runs GROUP BY snapshot_date
    ),
    changed AS (
        SELECT min(day) AS day
        FROM actual a FULL OUTER JOIN daily_marts_days s USING (day)
        WHERE day <= (SELECT max(m.day) FROM daily_marts_days m) AND a.runs IS DISTINCT FROM s.runs
    )
    SELECT coalesce(CASE WHEN c.day IS NULL THEN (SELECT max(m.day) FROM daily_marts_days m) ELSE c.day - 1 END,
                    DATE '0001-01-01')
    FROM changed c
);

COMMENT ON TABLE daily_marts_days IS 'The days stored in cheapest_offer_daily_stored and provider_price_index_stored, with the runs each had when stored.';
COMMENT ON COLUMN daily_marts_days.day IS 'a snapshot day stored';
COMMENT ON COLUMN daily_marts_days.runs IS 'runs of that day when it was stored; another count now means a run arrived since and the day (and every later one) is computed on read';
COMMENT ON COLUMN daily_marts_days.refreshed_at IS 'when warehouse/sql/refresh_daily_marts.sql stored it';
COMMENT ON MACRO daily_marts_valid_through IS 'The last day the daily marts read from their stored tables: the day before the first stored day whose runs changed, else the last stored day (0001-01-01: none).';

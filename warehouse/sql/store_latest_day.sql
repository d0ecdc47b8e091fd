-- store_latest_day: before the first run of a new snapshot day is stored (warehouse/marts.py
-- store_latest_day, called by the load), the latest day is complete: store its rows of
-- cheapest_offer_daily and provider_price_index now, read off the open price spells (no later run
-- is stored yet, so they are the spells in force at its end: daily_marts_in_force), not later by
-- joining the day with every spell. Only when every earlier day is validly stored (no snapshot day
-- between daily_marts_valid_through() and the latest); otherwise nothing, and the load's
-- refresh (refresh_daily_marts.sql) stores the days from the spells as before. $1 (the first
-- statement's only parameter): the new run's snapshot day; nothing unless it is after the latest.
-- Idempotent.
SET VARIABLE daily_marts_new_day = CAST($1 AS DATE);
SET VARIABLE daily_marts_from = daily_marts_valid_through();
SET VARIABLE daily_marts_latest = (SELECT max(snapshot_date) FROM runs);
SET VARIABLE daily_marts_store_latest = (
    getvariable('daily_marts_latest') < getvariable('daily_marts_new_day')
    AND getvariable('daily_marts_latest') > getvariable('daily_marts_from')
    AND NOT EXISTS (SELECT 1 FROM runs WHERE snapshot_date > getvariable('daily_marts_from')
                                         AND snapshot_date < getvariable('daily_marts_latest')));
DELETE FROM cheapest_offer_daily_stored
WHERE getvariable('daily_marts_store_latest') AND day > getvariable('daily_marts_from');
DELETE FROM provider_price_index_stored
WHERE getvariable('daily_marts_store_latest') AND day > getvariable('daily_marts_from');
INSERT INTO cheapest_offer_daily_stored
SELECT * FROM cheapest_offer_daily_after(getvariable('daily_marts_from'), open_spells := true)
WHERE getvariable('daily_marts_store_latest');
INSERT INTO provider_price_index_stored
SELECT * FROM provider_price_index_after(getvariable('daily_marts_from'), open_spells := true)
WHERE getvariable('daily_marts_store_latest');
DELETE FROM daily_marts_days
WHERE getvariable('daily_marts_store_latest') AND day > getvariable('daily_marts_from');
INSERT INTO daily_marts_days
SELECT snapshot_date, count(*), now() FROM runs
WHERE getvariable('daily_marts_store_latest') AND snapshot_date = getvariable('daily_marts_latest')
GROUP BY snapshot_date;

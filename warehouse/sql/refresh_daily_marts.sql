-- refresh_daily_marts: store every complete day of cheapest_offer_daily and provider_price_index
-- that is not validly stored yet (the days after daily_marts_valid_through() and before the
-- latest snapshot day: normally nothing, or the day the run just loaded ended; after a late
-- backfill, its day and every later one) and record each stored day's run count. The latest day
-- is never stored: it changes with each run of the day and the views compute it on read from
-- latest_offers (cheap). Run in the load's transaction when there is a day to store
-- (warehouse/marts.py refresh, warehouse/sql/marts_due.sql): once per new day; idempotent.
-- Migration 051 runs the same statements once on an existing warehouse.
SET VARIABLE daily_marts_from = daily_marts_valid_through();
SET VARIABLE daily_marts_latest = (SELECT max(snapshot_date) FROM runs);
SET VARIABLE daily_marts_todo = (SELECT count(*) > 0 FROM runs
                                 WHERE snapshot_date > getvariable('daily_marts_from')
                                   AND snapshot_date < getvariable('daily_marts_latest'));
DELETE FROM cheapest_offer_daily_stored WHERE day > getvariable('daily_marts_from');
DELETE FROM provider_price_index_stored WHERE day > getvariable('daily_marts_from');
INSERT INTO cheapest_offer_daily_stored
SELECT * FROM cheapest_offer_daily_after(getvariable('daily_marts_from'))
WHERE getvariable('daily_marts_todo') AND day < getvariable('daily_marts_latest');
INSERT INTO provider_price_index_stored
SELECT * FROM provider_price_index_after(getvariable('daily_marts_from'))
WHERE getvariable('daily_marts_todo') AND day < getvariable('daily_marts_latest');
DELETE FROM daily_marts_days WHERE day > getvariable('daily_marts_from');
INSERT INTO daily_marts_days
SELECT snapshot_date, count(*), now() FROM runs
WHERE snapshot_date > getvariable('daily_marts_from') AND snapshot_date < getvariable('daily_marts_latest')
GROUP BY snapshot_date;

-- refresh_daily_marts: store every loaded day of cheapest_offer_daily and provider_price_index
-- that is not validly stored yet (the days after daily_marts_valid_through(): normally the new
-- day of the run just loaded; after a late backfill, its day and every later one), and record
-- each day's run count. Run by the writer after a load (in the load's transaction or its own);
-- idempotent; costs the new days only.
DELETE FROM cheapest_offer_daily_stored WHERE day > daily_marts_valid_through();
DELETE FROM provider_price_index_stored WHERE day > daily_marts_valid_through();
INSERT INTO cheapest_offer_daily_stored SELECT * FROM cheapest_offer_daily_after(daily_marts_valid_through());
INSERT INTO provider_price_index_stored SELECT * FROM provider_price_index_after(daily_marts_valid_through());
DELETE FROM daily_marts_days;
INSERT INTO daily_marts_days SELECT snapshot_date, count(*), now() FROM runs GROUP BY snapshot_date;

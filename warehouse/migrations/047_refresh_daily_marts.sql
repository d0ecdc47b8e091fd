-- Store the daily marts of every day already loaded (the same statements as
-- warehouse/sql/refresh_daily_marts.sql, which the writer runs after each load).
DELETE FROM cheapest_offer_daily_stored WHERE day > daily_marts_valid_through();
DELETE FROM provider_price_index_stored WHERE day > daily_marts_valid_through();
INSERT INTO cheapest_offer_daily_stored SELECT * FROM cheapest_offer_daily_after(daily_marts_valid_through());
INSERT INTO provider_price_index_stored SELECT * FROM provider_price_index_after(daily_marts_valid_through());
DELETE FROM daily_marts_days;
INSERT INTO daily_marts_days SELECT snapshot_date, count(*), now() FROM runs GROUP BY snapshot_date;

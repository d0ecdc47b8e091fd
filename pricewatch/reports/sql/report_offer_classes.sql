-- The comparable class of each offer in the latest prices (latest_offers.comparable_class): a
-- "cheapest" claim's chart shows the class of the offer it cites.
SELECT provider, offer_key, comparable_class FROM latest_offers

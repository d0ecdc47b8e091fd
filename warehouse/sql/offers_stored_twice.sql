-- offers_stored_twice: the offers of the runs in $1 (VARCHAR[], just inserted in this
-- transaction) that repeat a (run_id, provider, offer_key): offers has no primary key (migration
-- 027), so the load refuses them (warehouse/load.py). $2 / $3: the earliest and latest observed_at
-- of those offers, so the scan skips every other row group by its zone map. The first few, in
-- order, and how many there are.
SELECT run_id, provider, offer_key, count(*) OVER () AS repeated
FROM offers
WHERE observed_at BETWEEN $2 AND $3 AND list_contains($1::VARCHAR[], run_id)
GROUP BY run_id, provider, offer_key
HAVING count(*) > 1
ORDER BY run_id, provider, offer_key
LIMIT 4

-- snapshot_decisions: the editor's decision in force (offer_decisions, migration 058; `pricewatch
-- offers accept|reject`) on each held reading named by $1 providers, $2 offer keys, $3 run ids,
-- $4 prices per hour (NULL: unpriced) and $5 observed_at (lists of the same length): a decision
-- covers the offer's held readings at the same price from the decided reading on; the newest
-- decision wins. Reads offer_decisions only (a few rows).
SELECT w.provider, w.offer_key, w.run_id, arg_max(d.decision, d.decided_at) AS decision,
       arg_max(d.decided_by, d.decided_at) AS decided_by, max(d.decided_at) AS decided_at
FROM (SELECT unnest($1::VARCHAR[]) AS provider, unnest($2::VARCHAR[]) AS offer_key, unnest($3::VARCHAR[]) AS run_id,
             unnest($4::DECIMAL(18,6)[]) AS price_per_hour, unnest($5::TIMESTAMPTZ[]) AS observed_at) w
JOIN offer_decisions d ON d.provider = w.provider AND d.offer_key = w.offer_key
WHERE d.observed_at <= w.observed_at AND d.price_per_hour IS NOT DISTINCT FROM w.price_per_hour
GROUP BY w.provider, w.offer_key, w.run_id

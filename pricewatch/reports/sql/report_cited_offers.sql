-- Every offer a claim evaluation ever named as an input (cited, cheapest or own price), with
-- each claim that used it: the offers whose price history the report charts.
SELECT provider, offer_key, claim_id,
       bool_or(used) AS used,
       max(gpu_count) AS gpu_count,
       max(observed_at) AS last_observed_at
FROM claim_inputs
WHERE offer_key IS NOT NULL
GROUP BY provider, offer_key, claim_id
ORDER BY provider, offer_key, claim_id;

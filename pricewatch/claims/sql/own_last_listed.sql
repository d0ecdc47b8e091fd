-- own_last_listed: the offer key of provider $1's latest offer of GPU model $2 in a run observed
-- at or before $3 (the snapshot): the page's own GPU its latest run no longer lists, read as it
-- was last listed (pricewatch/claims/evaluator.py _own). Ties (several offers of the model in
-- that run) go to the first key. Reads the provider's history of that model (one filtered scan,
-- ~35 ms at 10M offer rows), only for a GPU the page names and its price list dropped.
SELECT o.offer_key
FROM offers o JOIN runs r USING (run_id)
WHERE o.provider = $1 AND o.gpu_model = $2 AND r.observed_at <= $3
ORDER BY r.observed_at DESC, o.offer_key
LIMIT 1

-- cited_prices: what the published claims cite now, per GPU (model, count, billing): the
-- cheapest cited offer or "cheapest" pick of the latest claim evaluation of a run observed
-- before $1. The quality gate holds a never-seen offer that would undercut one of these until
-- the provider's next run confirms it: a placeholder price on a new tier must not become
-- "the cheapest" of a published page at once.
WITH latest_eval AS (
    SELECT e.run_id FROM claim_inputs e JOIN runs r USING (run_id)
    WHERE r.observed_at < $1
    ORDER BY r.observed_at DESC, r.run_id DESC LIMIT 1
)
SELECT i.gpu_model, i.gpu_count, i.billing,
       arg_min(i.provider || ' ' || i.offer_key, i.price_per_hour) AS cited,
       min(i.price_per_hour)::DOUBLE AS cited_price
FROM claim_inputs i JOIN latest_eval USING (run_id)
WHERE i.role IN ('cited', 'cheapest') AND i.offer_key IS NOT NULL AND i.price_per_hour IS NOT NULL
  AND i.gpu_model IS NOT NULL
GROUP BY i.gpu_model, i.gpu_count, i.billing

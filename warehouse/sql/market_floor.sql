-- market_floor: the cheapest trusted per-GPU price of each GPU (model, count, billing) at each
-- provider, in the provider's latest successful run observed before $1. The quality gate holds
-- a never-seen offer that would undercut every other provider's floor by 25% or more.
WITH last_ok AS (
    SELECT provider, arg_max(run_id, observed_at) AS run_id
    FROM provider_runs WHERE status = 'ok' AND observed_at < $1
    GROUP BY provider
)
SELECT o.provider, o.gpu_model, o.gpu_count, o.billing, min(o.price_per_gpu_hour)::DOUBLE AS floor_per_gpu
FROM offers o JOIN last_ok USING (provider, run_id)
WHERE o.is_priced AND o.held_reason IS NULL AND o.gpu_model IS NOT NULL AND NOT o.is_aggregator
GROUP BY o.provider, o.gpu_model, o.gpu_count, o.billing

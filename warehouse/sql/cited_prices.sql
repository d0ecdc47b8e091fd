-- cited_prices: what the published claims cite now, per comparable class (the macro
-- comparable_class: "H100 SXM" and "H100 NVL" are not compared), GPU count and billing: the
-- cheapest cited offer or "cheapest" pick of the latest claim evaluation of a run observed
-- before $1. The quality gate holds a never-seen offer that would undercut one of these until
-- the provider's next run confirms it: a placeholder price on a new tier must not become
-- "the cheapest" of a published page at once.
-- $2: the (gpu_model, form_factor) pairs of the offers being screened; one row per pair and
-- cited price of its class, so the gate (pricewatch/collect/gate.py) looks each offer up by its
-- own model and form factor and never computes a class itself.
WITH latest_eval AS (
    SELECT e.run_id FROM claim_inputs e JOIN runs r USING (run_id)
    WHERE r.observed_at < $1
    ORDER BY r.observed_at DESC, r.run_id DESC LIMIT 1
),
cited AS (
    SELECT comparable_class(i.gpu_model, o.form_factor) AS comparable_class, i.gpu_count, i.billing,
           arg_min(i.provider || ' ' || i.offer_key, i.price_per_hour) AS cited,
           min(i.price_per_hour)::DOUBLE AS cited_price
    FROM claim_inputs i JOIN latest_eval USING (run_id)
    LEFT JOIN offers o ON o.run_id = i.offer_run_id AND o.provider = i.provider AND o.offer_key = i.offer_key
    WHERE i.role IN ('cited', 'cheapest') AND i.offer_key IS NOT NULL AND i.price_per_hour IS NOT NULL
      AND i.gpu_model IS NOT NULL
    GROUP BY ALL
),
pairs AS (
    SELECT DISTINCT p.gpu_model, p.form_factor, comparable_class(p.gpu_model, p.form_factor) AS comparable_class
    FROM (SELECT unnest($2::STRUCT(gpu_model VARCHAR, form_factor VARCHAR)[]) AS p)
    WHERE p.gpu_model IS NOT NULL
)
SELECT pairs.gpu_model, pairs.form_factor, cited.comparable_class, cited.gpu_count, cited.billing,
       cited.cited, cited.cited_price
FROM pairs JOIN cited USING (comparable_class)
ORDER BY ALL;

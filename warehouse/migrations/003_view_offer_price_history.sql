-- One row per offer per price spell: the price (or unpriced text) and when it was valid.
-- valid_to is when the next different price was first seen, or when the offer was first
-- missing from a successful run of its provider; NULL while it is still current.
CREATE OR REPLACE VIEW offer_price_history AS
WITH observed AS (
    SELECT o.*
    FROM offers o
    JOIN provider_runs pr USING (run_id, provider)
    WHERE pr.status = 'ok'
),
marked AS (
    SELECT *,
        CASE WHEN lag(price_per_hour) OVER w IS NOT DISTINCT FROM price_per_hour
              AND lag(price_text) OVER w IS NOT DISTINCT FROM price_text
              AND lag(observed_at) OVER w IS NOT NULL
             THEN 0 ELSE 1 END AS starts_spell
    FROM observed
    WINDOW w AS (PARTITION BY provider, offer_key ORDER BY observed_at)
),
spells AS (
    SELECT *, sum(starts_spell) OVER (PARTITION BY provider, offer_key ORDER BY observed_at
                                       ROWS UNBOUNDED PRECEDING) AS spell
    FROM marked
),
collapsed AS (
    SELECT provider, offer_key, spell,
        arg_max(gpu_model, observed_at) AS gpu_model,
        arg_max(gpu_count, observed_at) AS gpu_count,
        arg_max(billing, observed_at) AS billing,
        arg_max(tier, observed_at) AS tier,
        any_value(price_per_hour) AS price_per_hour,
        any_value(price_per_gpu_hour) AS price_per_gpu_hour,
        any_value(price_text) AS price_text,
        min(observed_at) AS valid_from,
        max(observed_at) AS last_seen_at,
        count(*) AS observations,
        arg_min(run_id, observed_at) AS first_run_id
    FROM spells
    GROUP BY provider, offer_key, spell
),
ok_runs AS (
    SELECT provider, observed_at FROM provider_runs WHERE status = 'ok'
)
SELECT c.provider, c.offer_key, c.gpu_model, c.gpu_count, c.billing, c.tier,
    c.price_per_hour, c.price_per_gpu_hour, c.price_text,
    c.valid_from,
    coalesce(
        lead(c.valid_from) OVER (PARTITION BY c.provider, c.offer_key ORDER BY c.spell),
        (SELECT min(r.observed_at) FROM ok_runs r
         WHERE r.provider = c.provider AND r.observed_at > c.last_seen_at)
    ) AS valid_to,
    c.last_seen_at, c.observations, c.first_run_id
FROM collapsed c;

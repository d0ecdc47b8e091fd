-- spells_rebuild: the price spells of the providers in $1 (a VARCHAR[]; NULL = every provider),
-- computed from the raw observations. Used when a run arrives out of snapshot order (an older
-- archive replayed late) and by tests; the nightly load advances spells incrementally instead
-- (warehouse/sql/spells_step_*.sql). Same rules as the history views of migration 015:
--   * only successful ('ok') provider runs count, ordered per provider by (observed_at, run_id);
--   * a reading the quality gate held is neither a price nor an absence;
--   * an ok run of the provider without the offer (not even held) ends its spell, and the
--     offer's return starts a new one ('reappeared'), even at the same price;
--   * a different price or price text starts a new spell ('changed').
-- Migration 025 holds the same text (for every provider) to backfill existing warehouses.
WITH ok_runs AS (
    SELECT provider, run_id, observed_at,
           row_number() OVER (PARTITION BY provider ORDER BY observed_at, run_id) AS ok_seq
    FROM provider_runs
    WHERE status = 'ok' AND ($1::VARCHAR[] IS NULL OR list_contains($1::VARCHAR[], provider))
),
present AS (
    SELECT o.provider, o.offer_key, o.gpu_model, o.gpu_count, o.billing, o.tier, o.price_per_hour,
           o.price_per_gpu_hour, o.price_text, o.observed_at, o.run_id, o.held_reason, r.ok_seq,
           o.currency, o.self_service, o.is_aggregator,
           sum(CASE WHEN o.held_reason IS NULL THEN 0 ELSE 1 END)
               OVER (PARTITION BY o.provider, o.offer_key ORDER BY r.ok_seq ROWS UNBOUNDED PRECEDING) AS held_cum,
           r.ok_seq - row_number() OVER (PARTITION BY o.provider, o.offer_key ORDER BY r.ok_seq) AS island
    FROM offers o JOIN ok_runs r USING (run_id, provider)
),
islands AS (   -- runs of consecutive ok runs in which the offer was present (held or not)
    SELECT provider, offer_key, island, max(ok_seq) AS island_end
    FROM present GROUP BY ALL
),
marked AS (
    SELECT *,
        CASE
            WHEN lag(ok_seq) OVER w IS NULL THEN 'first seen'
            WHEN ok_seq - lag(ok_seq) OVER w - 1 - (held_cum - lag(held_cum) OVER w) > 0 THEN 'reappeared'
            WHEN lag(price_per_hour) OVER w IS DISTINCT FROM price_per_hour
              OR lag(price_text) OVER w IS DISTINCT FROM price_text THEN 'changed'
        END AS event
    FROM present
    WHERE held_reason IS NULL
    WINDOW w AS (PARTITION BY provider, offer_key ORDER BY ok_seq)
),
numbered AS (
    SELECT *, sum(CASE WHEN event IS NULL THEN 0 ELSE 1 END)
                  OVER (PARTITION BY provider, offer_key ORDER BY ok_seq ROWS UNBOUNDED PRECEDING) AS spell_no
    FROM marked
),
collapsed AS (
    SELECT provider, offer_key, spell_no,
        arg_min(event, ok_seq) AS started_by,
        arg_max(gpu_model, ok_seq) AS gpu_model,
        arg_max(gpu_count, ok_seq) AS gpu_count,
        arg_max(billing, ok_seq) AS billing,
        arg_max(tier, ok_seq) AS tier,
        arg_min(price_per_hour, ok_seq) AS price_per_hour,
        arg_min(price_per_gpu_hour, ok_seq) AS price_per_gpu_hour,
        arg_min(price_text, ok_seq) AS price_text,
        min(observed_at) AS valid_from,
        max(observed_at) AS last_seen_at,
        max(ok_seq) AS last_ok_seq,
        arg_max(island, ok_seq) AS last_island,
        count(*) AS observations,
        arg_min(run_id, ok_seq) AS first_run_id,
        arg_max(run_id, ok_seq) AS last_run_id,
        arg_min(currency, ok_seq) AS currency,            -- the first reading's (migration 050)
        arg_min(self_service, ok_seq) AS self_service,
        arg_min(is_aggregator, ok_seq) AS is_aggregator
    FROM numbered
    GROUP BY provider, offer_key, spell_no
),
ended AS (
    SELECT c.*,
        lead(c.started_by) OVER s AS next_started_by,
        lead(c.valid_from) OVER s AS next_valid_from,
        -- the first ok run after the spell's last reading without the offer (held readings in
        -- between are presence): the ok run right after that reading's presence island
        r.observed_at AS absent_at
    FROM collapsed c
    JOIN islands i ON i.provider = c.provider AND i.offer_key = c.offer_key AND i.island = c.last_island
    LEFT JOIN ok_runs r ON r.provider = c.provider AND r.ok_seq = i.island_end + 1
    WINDOW s AS (PARTITION BY c.provider, c.offer_key ORDER BY c.spell_no)
),
closed AS (
    SELECT *, CASE WHEN next_started_by = 'changed' THEN next_valid_from ELSE absent_at END AS valid_to
    FROM ended
)
SELECT provider, offer_key, spell_no, started_by, gpu_model, gpu_count, billing, tier,
    price_per_hour, price_per_gpu_hour, price_text, valid_from, valid_to, last_seen_at, observations,
    first_run_id, last_run_id, next_started_by IS NULL AS is_latest,
    lag(price_per_hour) OVER s AS prev_price_per_hour,
    lag(price_text) OVER s AS prev_price_text,
    lag(last_seen_at) OVER s AS prev_last_seen_at,
    lag(valid_to) OVER s AS prev_valid_to,
    currency, self_service, is_aggregator
FROM closed
WINDOW s AS (PARTITION BY provider, offer_key ORDER BY spell_no)

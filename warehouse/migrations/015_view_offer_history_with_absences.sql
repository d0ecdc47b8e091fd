-- Offer history that keeps absences: an offer missing from a successful run of its provider
-- ends its price spell, and its return starts a new spell (event 'reappeared'), even at the
-- same price. Readings held by the quality gate are neither a price nor an absence.
--
-- offer_price_history: one row per offer per price spell.
--   started_by   'first seen' | 'changed' | 'reappeared'
--   valid_to     when the next price was first trusted, or the first successful run of the
--                provider without the offer; NULL while the spell is current.
CREATE OR REPLACE VIEW offer_price_history AS
WITH ok_runs AS (
    SELECT provider, run_id, observed_at,
           row_number() OVER (PARTITION BY provider ORDER BY observed_at, run_id) AS ok_seq
    FROM provider_runs WHERE status = 'ok'
),
present AS (
    SELECT o.*, r.ok_seq,
           sum(CASE WHEN o.held_reason IS NULL THEN 0 ELSE 1 END)
               OVER (PARTITION BY o.provider, o.offer_key ORDER BY r.ok_seq ROWS UNBOUNDED PRECEDING) AS held_cum
    FROM offers o JOIN ok_runs r USING (run_id, provider)
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
spells AS (
    SELECT *, sum(CASE WHEN event IS NULL THEN 0 ELSE 1 END)
                  OVER (PARTITION BY provider, offer_key ORDER BY ok_seq ROWS UNBOUNDED PRECEDING) AS spell
    FROM marked
),
collapsed AS (
    SELECT provider, offer_key, spell,
        arg_min(event, ok_seq) AS started_by,
        arg_max(gpu_model, ok_seq) AS gpu_model,
        arg_max(gpu_count, ok_seq) AS gpu_count,
        arg_max(billing, ok_seq) AS billing,
        arg_max(tier, ok_seq) AS tier,
        any_value(price_per_hour) AS price_per_hour,
        any_value(price_per_gpu_hour) AS price_per_gpu_hour,
        any_value(price_text) AS price_text,
        min(observed_at) AS valid_from,
        max(observed_at) AS last_seen_at,
        max(ok_seq) AS last_ok_seq,
        count(*) AS observations,
        arg_min(run_id, ok_seq) AS first_run_id
    FROM spells
    GROUP BY provider, offer_key, spell
),
ordered AS (
    SELECT *,
        lead(started_by) OVER s AS next_started_by,
        lead(valid_from) OVER s AS next_valid_from
    FROM collapsed
    WINDOW s AS (PARTITION BY provider, offer_key ORDER BY spell)
)
SELECT c.provider, c.offer_key, c.gpu_model, c.gpu_count, c.billing, c.tier,
    c.price_per_hour, c.price_per_gpu_hour, c.price_text, c.started_by,
    c.valid_from,
    CASE WHEN c.next_started_by = 'changed' THEN c.next_valid_from
         ELSE (SELECT min(r.observed_at) FROM ok_runs r
               WHERE r.provider = c.provider AND r.ok_seq > c.last_ok_seq
                 AND NOT EXISTS (SELECT 1 FROM present p WHERE p.provider = c.provider
                                 AND p.offer_key = c.offer_key AND p.ok_seq = r.ok_seq))
    END AS valid_to,
    c.last_seen_at, c.observations, c.first_run_id
FROM ordered c;

-- Every event of an offer's price between successful observations: a price change (old, new,
-- percent), a price that turned into text ("Contact us": new_price_per_hour NULL), and an
-- offer that came back after an absence (event 'reappeared', with the price it left at).
CREATE OR REPLACE VIEW price_changes AS
SELECT * FROM (
    SELECT provider, offer_key, gpu_model, gpu_count, billing, tier,
        started_by AS event,
        lag(price_per_hour) OVER w AS old_price_per_hour,
        price_per_hour AS new_price_per_hour,
        lag(price_text) OVER w AS old_price_text,
        price_text AS new_price_text,
        round(100 * (price_per_hour - lag(price_per_hour) OVER w) / lag(price_per_hour) OVER w, 2) AS change_pct,
        lag(last_seen_at) OVER w AS last_seen_old_at,
        lag(valid_to) OVER w AS absent_since,
        valid_from AS changed_at,
        first_run_id AS run_id
    FROM offer_price_history
    WINDOW w AS (PARTITION BY provider, offer_key ORDER BY valid_from)
) WHERE last_seen_old_at IS NOT NULL;

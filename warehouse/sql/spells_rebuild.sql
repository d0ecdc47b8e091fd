-- spells_rebuild: the price spells of the providers in $1 (a VARCHAR[]; NULL = every provider),
-- computed from the raw observations. Used when a run arrives out of snapshot order (an older
-- archive replayed late) and by tests; the nightly load advances spells incrementally instead
-- (warehouse/sql/spells_step_*.sql). Same rules as the history views of migration 015:
--   * only successful ('ok') provider runs count, ordered per provider by (observed_at, run_id);
--   * a reading the quality gate held is neither a price nor an absence;
--   * an ok run of the provider without the offer (not even held) ends its spell, and the
--     offer's return starts a new one ('reappeared'), even at the same price;
--   * a different price or price text starts a new spell ('changed').
-- Migration 025 backfilled existing warehouses with an earlier text of the same rules (three
-- window sorts over every reading, all its columns carried). This one sorts the trusted
-- readings twice, over narrow columns only (keys, ok_seq, the price, the reading's rowid in
-- offers), and reads each spell's other columns once, from its first and last reading by rowid:
--   * an absence is an ok_seq gap between two trusted readings not filled by held readings:
--     the held readings (few) are grouped into runs of consecutive ok_seq (held_runs), and a
--     trusted reading after prev_seq is back from an absence when it comes later than the run
--     of held readings starting at prev_seq + 1 (or right after prev_seq when there is none);
--   * likewise a spell's readings end (absent_at) at the ok run after its last reading and the
--     run of held readings right after it.
WITH ok_runs AS (
    SELECT provider, run_id, observed_at,
           row_number() OVER (PARTITION BY provider ORDER BY observed_at, run_id) AS ok_seq
    FROM provider_runs
    WHERE status = 'ok' AND ($1::VARCHAR[] IS NULL OR list_contains($1::VARCHAR[], provider))
),
held_runs AS (   -- each offer's runs of consecutive ok runs in which the gate held its reading
    SELECT provider, offer_key, min(ok_seq) AS first_seq, max(ok_seq) AS last_seq
    FROM (SELECT o.provider, o.offer_key, r.ok_seq,
                 r.ok_seq - row_number() OVER (PARTITION BY o.provider, o.offer_key ORDER BY r.ok_seq) AS island
          FROM offers o JOIN ok_runs r USING (run_id, provider)
          WHERE o.held_reason IS NOT NULL)
    GROUP BY provider, offer_key, island
),
trusted AS (     -- the one sort of every trusted reading: its previous trusted reading's ok_seq and price
    SELECT o.provider, o.offer_key, r.ok_seq, o.observed_at, o.rowid AS rid,
           lag(r.ok_seq) OVER w AS prev_seq,
           lag(o.price_per_hour) OVER w IS DISTINCT FROM o.price_per_hour
               OR lag(o.price_text) OVER w IS DISTINCT FROM o.price_text AS new_price
    FROM offers o JOIN ok_runs r USING (run_id, provider)
    WHERE o.held_reason IS NULL
    WINDOW w AS (PARTITION BY o.provider, o.offer_key ORDER BY r.ok_seq)
),
marked AS (
    SELECT t.provider, t.offer_key, t.ok_seq, t.observed_at, t.rid,
        CASE
            WHEN t.prev_seq IS NULL THEN 'first seen'
            WHEN t.ok_seq > coalesce(h.last_seq, t.prev_seq) + 1 THEN 'reappeared'
            WHEN t.new_price THEN 'changed'
        END AS event
    FROM trusted t
    LEFT JOIN held_runs h ON h.provider = t.provider AND h.offer_key = t.offer_key AND h.first_seq = t.prev_seq + 1
),
numbered AS (    -- the second sort: each trusted reading's spell (events so far)
    SELECT *, sum(CASE WHEN event IS NULL THEN 0 ELSE 1 END)
                  OVER (PARTITION BY provider, offer_key ORDER BY ok_seq ROWS UNBOUNDED PRECEDING) AS spell_no
    FROM marked
),
collapsed AS (
    SELECT provider, offer_key, spell_no,
        arg_min(event, ok_seq) AS started_by,
        arg_min(rid, ok_seq) AS first_rid,
        arg_max(rid, ok_seq) AS last_rid,
        min(observed_at) AS valid_from,
        max(observed_at) AS last_seen_at,
        max(ok_seq) AS last_ok_seq,
        count(*) AS observations
    FROM numbered
    GROUP BY provider, offer_key, spell_no
),
ended AS (
    SELECT c.*,
        lead(c.started_by) OVER s AS next_started_by,
        lead(c.valid_from) OVER s AS next_valid_from,
        r.observed_at AS absent_at
    FROM collapsed c
    LEFT JOIN held_runs h ON h.provider = c.provider AND h.offer_key = c.offer_key AND h.first_seq = c.last_ok_seq + 1
    LEFT JOIN ok_runs r ON r.provider = c.provider AND r.ok_seq = coalesce(h.last_seq, c.last_ok_seq) + 1
    WINDOW s AS (PARTITION BY c.provider, c.offer_key ORDER BY c.spell_no)
),
closed AS (
    SELECT *, CASE WHEN next_started_by = 'changed' THEN next_valid_from ELSE absent_at END AS valid_to
    FROM ended
),
attributed AS (  -- the first reading's price and comparability, the last reading's attributes
    SELECT c.*, f.price_per_hour, f.price_per_gpu_hour, f.price_text, f.run_id AS first_run_id,
           f.currency, f.self_service, f.is_aggregator,
           l.gpu_model, l.gpu_count, l.billing, l.tier, l.run_id AS last_run_id
    FROM closed c
    JOIN offers f ON f.rowid = c.first_rid
    JOIN offers l ON l.rowid = c.last_rid
)
SELECT provider, offer_key, spell_no, started_by, gpu_model, gpu_count, billing, tier,
    price_per_hour, price_per_gpu_hour, price_text, valid_from, valid_to, last_seen_at, observations,
    first_run_id, last_run_id, next_started_by IS NULL AS is_latest,
    lag(price_per_hour) OVER s AS prev_price_per_hour,
    lag(price_text) OVER s AS prev_price_text,
    lag(last_seen_at) OVER s AS prev_last_seen_at,
    lag(valid_to) OVER s AS prev_valid_to,
    currency, self_service, is_aggregator
FROM attributed
WINDOW s AS (PARTITION BY provider, offer_key ORDER BY spell_no)

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
-- window sorts over every reading, all its columns carried). This one sorts each offer's
-- trusted readings once, over narrow columns (an integer offer id, ok_seq, the price, the
-- reading's rowid in offers), and reads a spell's other columns from its first and last
-- reading by rowid:
--   * an absence is an ok_seq gap between two trusted readings not filled by held readings:
--     the held readings (few) are grouped into runs of consecutive ok_seq (held_runs), and a
--     trusted reading after prev_seq is back from an absence when it comes later than the run
--     of held readings starting at prev_seq + 1 (or right after prev_seq when there is none);
--     likewise a spell's readings end (absent_at) at the ok run after its last reading and the
--     run of held readings right after it;
--   * a spell runs from one event (a spell start) to the reading before the next one: its
--     last reading and its count come from the readings' numbers (trn), no second sort;
--   * its first and last observed_at are its valid_from and last_seen_at when the offer's
--     readings are observed in their runs' order (as a run's offers always are: they carry
--     their provider run's time); an offer whose readings are not gets the min / max over its
--     spell's readings (unordered_times), as the rules say.
WITH ok_runs AS (
    SELECT provider, run_id, observed_at,
           row_number() OVER (PARTITION BY provider ORDER BY observed_at, run_id) AS ok_seq
    FROM provider_runs
    WHERE trusted AND ($1::VARCHAR[] IS NULL OR list_contains($1::VARCHAR[], provider))
),
readings AS (    -- every reading of an ok run: narrow
    SELECT o.provider, o.offer_key, r.ok_seq, o.held_reason IS NOT NULL AS held, o.observed_at,
           o.price_per_hour, o.price_text, o.rowid AS rid
    FROM offers o JOIN ok_runs r USING (run_id, provider)
),
offer_ids AS (   -- an integer id per offer: the sorts compare integers, not strings
    SELECT provider, offer_key, row_number() OVER () AS oid
    FROM (SELECT DISTINCT provider, offer_key FROM readings)
),
numbered_readings AS (
    SELECT i.oid, g.* EXCLUDE (provider, offer_key) FROM readings g JOIN offer_ids i USING (provider, offer_key)
),
held_runs AS (   -- each offer's runs of consecutive ok runs in which the gate held its reading
    SELECT oid, min(ok_seq) AS first_seq, max(ok_seq) AS last_seq
    FROM (SELECT oid, ok_seq, ok_seq - row_number() OVER (PARTITION BY oid ORDER BY ok_seq) AS island
          FROM numbered_readings WHERE held)
    GROUP BY oid, island
),
trusted AS (     -- the one sort of every trusted reading: its number, the previous one's ok_seq and price
    SELECT oid, ok_seq, observed_at, rid,
           row_number() OVER w AS trn,
           count(*) OVER (PARTITION BY oid) AS n_trusted,
           lag(ok_seq) OVER w AS prev_seq,
           lag(observed_at) OVER w > observed_at AS earlier_than_prev,
           lag(price_per_hour) OVER w IS DISTINCT FROM price_per_hour
               OR lag(price_text) OVER w IS DISTINCT FROM price_text AS new_price
    FROM numbered_readings
    WHERE NOT held
    WINDOW w AS (PARTITION BY oid ORDER BY ok_seq)
),
marked AS (
    SELECT t.*,
        CASE
            WHEN t.prev_seq IS NULL THEN 'first seen'
            WHEN t.ok_seq > coalesce(h.last_seq, t.prev_seq) + 1 THEN 'reappeared'
            WHEN t.new_price THEN 'changed'
        END AS event
    FROM trusted t
    LEFT JOIN held_runs h ON h.oid = t.oid AND h.first_seq = t.prev_seq + 1
),
starts AS (      -- the readings that start a spell, and the number of the spell's last reading
    SELECT oid, ok_seq, trn, n_trusted, event AS started_by, rid AS first_rid, observed_at,
           row_number() OVER s AS spell_no,
           coalesce(lead(trn) OVER s - 1, n_trusted) AS end_trn
    FROM marked WHERE event IS NOT NULL
    WINDOW s AS (PARTITION BY oid ORDER BY ok_seq)
),
unordered AS (   -- offers with a reading observed before the one preceding it (not in a run's own order)
    SELECT DISTINCT oid FROM trusted WHERE earlier_than_prev
),
unordered_readings AS MATERIALIZED (   -- their readings (most nights: none), apart, before the range join
    SELECT oid, trn, observed_at FROM marked SEMI JOIN unordered USING (oid)
),
unordered_times AS (
    SELECT s.oid, s.spell_no, min(m.observed_at) AS valid_from, max(m.observed_at) AS last_seen_at
    FROM starts s JOIN unordered_readings m ON m.oid = s.oid AND m.trn BETWEEN s.trn AND s.end_trn
    GROUP BY ALL
),
collapsed AS (   -- one row per spell
    SELECT s.oid, s.spell_no, s.started_by, s.first_rid, e.rid AS last_rid,
           coalesce(u.valid_from, s.observed_at) AS valid_from,
           coalesce(u.last_seen_at, e.observed_at) AS last_seen_at,
           e.ok_seq AS last_ok_seq, s.end_trn - s.trn + 1 AS observations
    FROM starts s
    JOIN marked e ON e.oid = s.oid AND e.trn = s.end_trn
    LEFT JOIN unordered_times u ON u.oid = s.oid AND u.spell_no = s.spell_no
),
ended AS (
    SELECT c.*,
        lead(c.started_by) OVER s AS next_started_by,
        lead(c.valid_from) OVER s AS next_valid_from,
        coalesce(h.last_seq, c.last_ok_seq) + 1 AS absent_seq
    FROM collapsed c
    LEFT JOIN held_runs h ON h.oid = c.oid AND h.first_seq = c.last_ok_seq + 1
    WINDOW s AS (PARTITION BY c.oid ORDER BY c.spell_no)
),
attributed AS (  -- the first reading's price and comparability, the last reading's attributes
    SELECT c.*, f.provider, f.offer_key, f.price_per_hour, f.price_per_gpu_hour, f.price_text, f.run_id AS first_run_id,
           f.currency, f.self_service, f.is_aggregator, f.form_factor,
           l.gpu_model, l.gpu_count, l.billing, l.tier, l.run_id AS last_run_id,
           CASE WHEN c.next_started_by = 'changed' THEN c.next_valid_from ELSE r.observed_at END AS valid_to
    FROM ended c
    JOIN offers f ON f.rowid = c.first_rid
    JOIN offers l ON l.rowid = c.last_rid
    LEFT JOIN ok_runs r ON r.provider = f.provider AND r.ok_seq = c.absent_seq
)
SELECT provider, offer_key, spell_no, started_by, gpu_model, gpu_count, billing, tier,
    price_per_hour, price_per_gpu_hour, price_text, valid_from, valid_to, last_seen_at, observations,
    first_run_id, last_run_id, next_started_by IS NULL AS is_latest,
    lag(price_per_hour) OVER s AS prev_price_per_hour,
    lag(price_text) OVER s AS prev_price_text,
    lag(last_seen_at) OVER s AS prev_last_seen_at,
    lag(valid_to) OVER s AS prev_valid_to,
    currency, self_service, is_aggregator, form_factor
FROM attributed
WINDOW s AS (PARTITION BY oid ORDER BY spell_no)

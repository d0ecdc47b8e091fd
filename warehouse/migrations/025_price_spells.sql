-- Price history stored, not recomputed (issue 11). Until now offer_price_history and
-- price_changes were window functions over every observation, recomputed on each read (27-45 s
-- at 10M offer rows). From here on the load maintains one row per price spell, as a dbt
-- snapshot does (warehouse/spells.py): a run's readings extend the offer's current spell, close
-- it (a new price, or an absence from a successful run of the provider) or open a new one. Each
-- spell row also carries the change that started it (the previous spell's price and dates), so
-- price_changes is a filter on this table. Reads cost O(changes); the raw observations stay in
-- offers as evidence, and the spells are rebuilt from them when a run arrives out of snapshot
-- order (warehouse/sql/spells_rebuild.sql, the same rules as the views of migration 015).
CREATE TABLE price_spells (
    provider            VARCHAR NOT NULL,
    offer_key           VARCHAR NOT NULL,
    spell_no            INTEGER NOT NULL,
    started_by          VARCHAR NOT NULL CHECK (started_by IN ('first seen', 'changed', 'reappeared')),
    gpu_model           VARCHAR,
    gpu_count           INTEGER,
    billing             VARCHAR,
    tier                VARCHAR,
    price_per_hour      DECIMAL(18, 6),
    price_per_gpu_hour  DECIMAL(18, 6),
    price_text          VARCHAR,
    valid_from          TIMESTAMPTZ NOT NULL,
    valid_to            TIMESTAMPTZ,
    last_seen_at        TIMESTAMPTZ NOT NULL,
    observations        BIGINT NOT NULL,
    first_run_id        VARCHAR NOT NULL,
    last_run_id         VARCHAR NOT NULL,
    is_latest           BOOLEAN NOT NULL,
    prev_price_per_hour DECIMAL(18, 6),
    prev_price_text     VARCHAR,
    prev_last_seen_at   TIMESTAMPTZ,
    prev_valid_to       TIMESTAMPTZ
);
COMMENT ON TABLE price_spells IS 'One row per offer per price spell, maintained by each load (warehouse/spells.py); the row also records the change that started the spell. offer_price_history and price_changes read it.';
COMMENT ON COLUMN price_spells.provider IS 'Provider (spider name).';
COMMENT ON COLUMN price_spells.offer_key IS 'The offer''s key (pricewatch/offers.py offer_key).';
COMMENT ON COLUMN price_spells.spell_no IS '1 for the offer''s first spell, +1 for each later one.';
COMMENT ON COLUMN price_spells.started_by IS '''first seen'', ''changed'' (another price or price text) or ''reappeared'' (back after an absence from a successful run).';
COMMENT ON COLUMN price_spells.gpu_model IS 'Canonical GPU model of the spell''s latest reading (NULL: label unknown to the catalog).';
COMMENT ON COLUMN price_spells.gpu_count IS 'GPUs in the offer.';
COMMENT ON COLUMN price_spells.billing IS 'on-demand, spot, reserved or marketplace.';
COMMENT ON COLUMN price_spells.tier IS 'The provider''s own tier.';
COMMENT ON COLUMN price_spells.price_per_hour IS 'Instance price per hour during the spell (NULL: unpriced, see price_text).';
COMMENT ON COLUMN price_spells.price_per_gpu_hour IS 'Price per GPU-hour during the spell.';
COMMENT ON COLUMN price_spells.price_text IS 'The printed text of an unpriced offer ("Contact sales").';
COMMENT ON COLUMN price_spells.valid_from IS 'When the spell''s first trusted reading was observed.';
COMMENT ON COLUMN price_spells.valid_to IS 'When the next price was first trusted, or the first successful run of the provider without the offer; NULL while current.';
COMMENT ON COLUMN price_spells.last_seen_at IS 'The spell''s latest trusted reading.';
COMMENT ON COLUMN price_spells.observations IS 'Trusted readings in the spell.';
COMMENT ON COLUMN price_spells.first_run_id IS 'The run of the spell''s first reading (evidence: offers of that run).';
COMMENT ON COLUMN price_spells.last_run_id IS 'The run of the spell''s latest reading.';
COMMENT ON COLUMN price_spells.is_latest IS 'The offer''s latest spell (current, or ended by an absence).';
COMMENT ON COLUMN price_spells.prev_price_per_hour IS 'The change that started the spell: the previous spell''s price per hour (NULL for the first spell).';
COMMENT ON COLUMN price_spells.prev_price_text IS 'The previous spell''s price text.';
COMMENT ON COLUMN price_spells.prev_last_seen_at IS 'The previous spell''s latest reading (NULL: first spell).';
COMMENT ON COLUMN price_spells.prev_valid_to IS 'When the previous spell ended (for a reappearance: when the offer went missing).';

-- Backfill: the spells of every observation stored so far (the same text as spells_rebuild.sql).
INSERT INTO price_spells
WITH ok_runs AS (
    SELECT provider, run_id, observed_at,
           row_number() OVER (PARTITION BY provider ORDER BY observed_at, run_id) AS ok_seq
    FROM provider_runs
    WHERE status = 'ok'
),
present AS (
    SELECT o.provider, o.offer_key, o.gpu_model, o.gpu_count, o.billing, o.tier, o.price_per_hour,
           o.price_per_gpu_hour, o.price_text, o.observed_at, o.run_id, o.held_reason, r.ok_seq,
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
        arg_max(run_id, ok_seq) AS last_run_id
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
    lag(valid_to) OVER s AS prev_valid_to
FROM closed
WINDOW s AS (PARTITION BY provider, offer_key ORDER BY spell_no)
;

CREATE OR REPLACE VIEW offer_price_history AS
SELECT provider, offer_key, gpu_model, gpu_count, billing, tier, price_per_hour, price_per_gpu_hour,
       price_text, started_by, valid_from, valid_to, last_seen_at, observations, first_run_id
FROM price_spells;
COMMENT ON VIEW offer_price_history IS 'One row per offer per price spell (valid_to NULL = current): an absence from a successful run ends a spell and the return starts a new one (started_by ''reappeared''); readings held by the quality gate are neither. Reads the stored spells (price_spells).';
COMMENT ON COLUMN offer_price_history.provider IS 'Provider (spider name).';
COMMENT ON COLUMN offer_price_history.offer_key IS 'The offer''s key.';
COMMENT ON COLUMN offer_price_history.gpu_model IS 'Canonical GPU model (latest reading of the spell).';
COMMENT ON COLUMN offer_price_history.gpu_count IS 'GPUs in the offer.';
COMMENT ON COLUMN offer_price_history.billing IS 'on-demand, spot, reserved or marketplace.';
COMMENT ON COLUMN offer_price_history.tier IS 'The provider''s own tier.';
COMMENT ON COLUMN offer_price_history.price_per_hour IS 'Instance price per hour (NULL: unpriced).';
COMMENT ON COLUMN offer_price_history.price_per_gpu_hour IS 'Price per GPU-hour.';
COMMENT ON COLUMN offer_price_history.price_text IS 'Printed text of an unpriced offer.';
COMMENT ON COLUMN offer_price_history.started_by IS '''first seen'', ''changed'' or ''reappeared''.';
COMMENT ON COLUMN offer_price_history.valid_from IS 'First trusted reading of the spell.';
COMMENT ON COLUMN offer_price_history.valid_to IS 'End of the spell (next price, or first successful run without the offer); NULL while current.';
COMMENT ON COLUMN offer_price_history.last_seen_at IS 'Latest trusted reading of the spell.';
COMMENT ON COLUMN offer_price_history.observations IS 'Trusted readings in the spell.';
COMMENT ON COLUMN offer_price_history.first_run_id IS 'Run of the spell''s first reading.';

CREATE OR REPLACE VIEW price_changes AS
SELECT provider, offer_key, gpu_model, gpu_count, billing, tier,
    started_by AS event,
    prev_price_per_hour AS old_price_per_hour,
    price_per_hour AS new_price_per_hour,
    prev_price_text AS old_price_text,
    price_text AS new_price_text,
    round(100 * (price_per_hour - prev_price_per_hour) / prev_price_per_hour, 2) AS change_pct,
    prev_last_seen_at AS last_seen_old_at,
    prev_valid_to AS absent_since,
    valid_from AS changed_at,
    first_run_id AS run_id
FROM price_spells
WHERE spell_no > 1;
COMMENT ON VIEW price_changes IS 'Every event of an offer''s price between successful observations: a change (old, new, percent), a price that turned into text (new_price_per_hour NULL), a return after an absence (event ''reappeared''). Reads the stored spells (price_spells).';
COMMENT ON COLUMN price_changes.provider IS 'Provider (spider name).';
COMMENT ON COLUMN price_changes.offer_key IS 'The offer''s key.';
COMMENT ON COLUMN price_changes.gpu_model IS 'Canonical GPU model.';
COMMENT ON COLUMN price_changes.gpu_count IS 'GPUs in the offer.';
COMMENT ON COLUMN price_changes.billing IS 'on-demand, spot, reserved or marketplace.';
COMMENT ON COLUMN price_changes.tier IS 'The provider''s own tier.';
COMMENT ON COLUMN price_changes.event IS '''changed'' or ''reappeared''.';
COMMENT ON COLUMN price_changes.old_price_per_hour IS 'Price per hour before the event (NULL: was unpriced).';
COMMENT ON COLUMN price_changes.new_price_per_hour IS 'Price per hour after it (NULL: now unpriced).';
COMMENT ON COLUMN price_changes.old_price_text IS 'Printed text before (unpriced offers).';
COMMENT ON COLUMN price_changes.new_price_text IS 'Printed text after (unpriced offers).';
COMMENT ON COLUMN price_changes.change_pct IS '100 * (new - old) / old, 2 decimals (NULL when either is unpriced).';
COMMENT ON COLUMN price_changes.last_seen_old_at IS 'Last trusted reading at the old price.';
COMMENT ON COLUMN price_changes.absent_since IS 'When the previous spell ended (for ''reappeared'': when the offer went missing).';
COMMENT ON COLUMN price_changes.changed_at IS 'When the new price (or the return) was first observed.';
COMMENT ON COLUMN price_changes.run_id IS 'The run that observed it.';

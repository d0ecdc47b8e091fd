-- A held reading goes to a person (issue 20, item 4). Two changes:
--   offer_decisions  what an editor decided about a reading the quality gate held
--                    (`pricewatch offers accept|reject OFFER --provider P --run RUN`): accept
--                    releases it into the latest prices (view latest_offers, the claims'
--                    snapshots), reject keeps it out for good; the reading and its evidence stay in
--                    offers either way. A decision covers the offer's held readings at the same
--                    price from the decided run on (the gate holds a reading outside its model's
--                    band every night it repeats); the newest decision wins.
--   alerts.kind      + 'held_reading': a held reading of an offer a claim cites, told in the
--                    night's page digest as "held: needs a look", and once more (escalated) when
--                    the provider's next run repeats it. This rebuild (DuckDB cannot alter a
--                    CHECK) keeps every column and row.
CREATE TABLE offer_decisions (
    provider       VARCHAR NOT NULL,
    offer_key      VARCHAR NOT NULL,
    run_id         VARCHAR NOT NULL,
    decision       VARCHAR NOT NULL CHECK (decision IN ('accept', 'reject')),
    price_per_hour DECIMAL(18,6),
    price_text     VARCHAR,
    observed_at    TIMESTAMPTZ NOT NULL,
    held_reason    VARCHAR,
    decided_by     VARCHAR NOT NULL,
    decided_at     TIMESTAMPTZ NOT NULL,
    note           VARCHAR,
    PRIMARY KEY (provider, offer_key, run_id, decided_at)
);
CREATE TABLE alerts_v4 (
    alert_id     VARCHAR PRIMARY KEY,
    run_id       VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL CHECK (kind IN ('price_changed', 'offer_disappeared', 'undercut',
                                                  'claim_status', 'source_failing', 'source_recovered',
                                                  'new_gpu_label', 'rule_change', 'held_reading')),
    subject      VARCHAR NOT NULL,
    fingerprint  VARCHAR NOT NULL UNIQUE,
    state        VARCHAR NOT NULL CHECK (state IN ('pending', 'sent', 'suspect', 'suppressed', 'muted')),
    notify_type  VARCHAR NOT NULL CHECK (notify_type IN ('info', 'success', 'warning', 'failure')),
    title        VARCHAR NOT NULL,
    body         VARCHAR NOT NULL,
    details      JSON NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    delivered_at TIMESTAMPTZ,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   VARCHAR,
    message_id   VARCHAR
);
INSERT INTO alerts_v4 BY NAME SELECT * FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_v4 RENAME TO alerts;
-- The views that read offer_decisions, as warehouse/views/held_offer_decisions.sql and latest_offers.sql
-- state them (the repeatables apply those files afterwards).
CREATE OR REPLACE VIEW held_offer_decisions AS
SELECT c.provider, c.offer_key, c.run_id, arg_max(d.decision, d.decided_at) AS decision,
       arg_max(d.decided_by, d.decided_at) AS decided_by, max(d.decided_at) AS decided_at,
       arg_max(d.run_id, d.decided_at) AS decided_run_id
FROM current_offers c JOIN offer_decisions d USING (provider, offer_key)
WHERE c.held_reason IS NOT NULL AND d.observed_at <= c.observed_at
  AND d.price_per_hour IS NOT DISTINCT FROM c.price_per_hour
GROUP BY c.provider, c.offer_key, c.run_id;
CREATE OR REPLACE VIEW latest_offers AS
SELECT *, NULL::VARCHAR AS held_reading_reason FROM current_offers c
WHERE held_reason IS NULL
   OR EXISTS (SELECT 1 FROM held_offer_decisions a
              WHERE a.provider = c.provider AND a.offer_key = c.offer_key AND a.decision = 'accept')
UNION ALL BY NAME
SELECT t.*, h.held_reason AS held_reading_reason
FROM trusted_offers t JOIN current_offers h USING (provider, offer_key)
WHERE h.held_reason IS NOT NULL AND t.observed_at < h.observed_at
  AND NOT EXISTS (SELECT 1 FROM held_offer_decisions a
                  WHERE a.provider = h.provider AND a.offer_key = h.offer_key AND a.decision = 'accept');
-- Their comments, as warehouse/tables/schema.yaml and the views' YAML write them (a rebuilt table
-- and a restated view have none until then).
COMMENT ON TABLE offer_decisions IS 'What an editor decided about a reading the quality gate held (pricewatch offers accept|reject): accept releases it into the latest prices and the claims, reject keeps it out for good; the reading and its evidence stay in offers. A decision covers the offer''s held readings at the same price from the decided run on; the newest decision wins.';
COMMENT ON COLUMN offer_decisions.provider IS 'provider (spider name)';
COMMENT ON COLUMN offer_decisions.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN offer_decisions.run_id IS 'the run whose held reading was decided';
COMMENT ON COLUMN offer_decisions.decision IS 'accept | reject';
COMMENT ON COLUMN offer_decisions.price_per_hour IS 'the held reading''s price per instance-hour (NULL for a held reading without a price)';
COMMENT ON COLUMN offer_decisions.price_text IS 'the held reading''s price text as printed';
COMMENT ON COLUMN offer_decisions.observed_at IS 'when the decided reading was observed';
COMMENT ON COLUMN offer_decisions.held_reason IS 'why the quality gate held the reading';
COMMENT ON COLUMN offer_decisions.decided_by IS 'who decided ($PRICEWATCH_USER, else the OS user)';
COMMENT ON COLUMN offer_decisions.decided_at IS 'when it was decided';
COMMENT ON COLUMN offer_decisions.note IS 'the editor''s note, if any';
COMMENT ON TABLE alerts IS 'Alert events derived after each run, one per state change worth telling; sent to people inside messages (alert_messages).';
COMMENT ON COLUMN alerts.alert_id IS 'short hash of the alert''s fingerprint';
COMMENT ON COLUMN alerts.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN alerts.kind IS 'price_changed | offer_disappeared | undercut | claim_status | source_failing | source_recovered | new_gpu_label | rule_change | held_reading (a held reading of a cited offer that needs a look; details.escalated when the provider''s next run repeated it)';
COMMENT ON COLUMN alerts.subject IS 'what the alert is about: provider/offer_key, claim id or provider';
COMMENT ON COLUMN alerts.fingerprint IS 'the state change alerted (unique: the same state never alerts twice)';
COMMENT ON COLUMN alerts.state IS 'pending | sent | suspect | suppressed | muted (a mute rule matched: recorded, never sent)';
COMMENT ON COLUMN alerts.notify_type IS 'apprise notify type: info | success | warning | failure';
COMMENT ON COLUMN alerts.title IS 'plain-text title';
COMMENT ON COLUMN alerts.body IS 'Markdown body (source text escaped)';
COMMENT ON COLUMN alerts.details IS 'JSON: old/new prices, percent, claims citing the offer, evidence';
COMMENT ON COLUMN alerts.created_at IS 'when the alert was raised';
COMMENT ON COLUMN alerts.updated_at IS 'when its state last changed';
COMMENT ON COLUMN alerts.delivered_at IS 'when it was delivered (every target accepted it)';
COMMENT ON COLUMN alerts.attempts IS 'delivery attempts';
COMMENT ON COLUMN alerts.last_error IS 'the last delivery error (redacted: no alert URL secret)';
COMMENT ON COLUMN alerts.message_id IS 'the alert_messages row that carries this event (NULL until composed; muted and suppressed events may have none)';
COMMENT ON VIEW held_offer_decisions IS 'The editor''s decision in force on each reading the quality gate holds now (held_offers), where there is one (pricewatch offers accept|reject); a held reading without a row here needs a look.';
COMMENT ON COLUMN held_offer_decisions.provider IS 'provider (spider name)';
COMMENT ON COLUMN held_offer_decisions.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN held_offer_decisions.run_id IS 'the run of the held reading (current_offers)';
COMMENT ON COLUMN held_offer_decisions.decision IS 'accept (the reading is the latest price, latest_offers) | reject (kept out for good)';
COMMENT ON COLUMN held_offer_decisions.decided_by IS 'who decided ($PRICEWATCH_USER, else the OS user)';
COMMENT ON COLUMN held_offer_decisions.decided_at IS 'when it was decided';
COMMENT ON COLUMN held_offer_decisions.decided_run_id IS 'the run whose held reading the decision in force was made on';
COMMENT ON VIEW latest_offers IS 'Each provider''s offers from its latest successful run, as trusted prices (a reading the quality gate holds shows the offer''s last trusted reading, flagged by held_reading_reason; a held reading an editor accepted is the latest price itself).';
COMMENT ON COLUMN latest_offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN latest_offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN latest_offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN latest_offers.gpu_label IS 'the GPU label as the source printed it';
COMMENT ON COLUMN latest_offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN latest_offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN latest_offers.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN latest_offers.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN latest_offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN latest_offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN latest_offers.reserved_term IS 'billing reserved: the term ("1 month", "3 years", ...)';
COMMENT ON COLUMN latest_offers.self_service IS 'false when a sales contact or a large minimum is required';
COMMENT ON COLUMN latest_offers.region IS 'region, when the price is per region';
COMMENT ON COLUMN latest_offers.currency IS 'ISO currency of the price';
COMMENT ON COLUMN latest_offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour';
COMMENT ON COLUMN latest_offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN latest_offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN latest_offers.is_priced IS 'false for Contact sales, placeholders, unresolved text';
COMMENT ON COLUMN latest_offers.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN latest_offers.availability IS 'availability as the source states it (regions, stock)';
COMMENT ON COLUMN latest_offers.is_aggregator IS 'true for re-sellers of other clouds (never the cheapest)';
COMMENT ON COLUMN latest_offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN latest_offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN latest_offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN latest_offers.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN latest_offers.body_sha256 IS 'sha256 of the response body';
COMMENT ON COLUMN latest_offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN latest_offers.screen_note IS 'why a large move was let through (confirmed, market moved)';
COMMENT ON COLUMN latest_offers.price_raw IS 'the price cell''s text, verbatim (NULL for rows loaded before migration 017)';
COMMENT ON COLUMN latest_offers.held_reading_reason IS 'the held reading''s reason when this row is the offer''s last trusted reading instead';

-- Alerts become events an editor is told about in messages (migration 022): one digest per
-- run and page, one message per source outage. This rebuild (DuckDB cannot alter a CHECK)
-- adds, with the same columns and rows:
--   kind  'rule_change'  a claim whose status or text changed when its snapshot was evaluated
--                        again under new rules/ (claim_evaluations.trigger = 'rules'): the rule
--                        changed, no price moved
--   state 'muted'        matched a mute rule (alert_mutes, migration 023): recorded, never sent
--   message_id           the message (alert_messages) that carries the event, once composed
CREATE TABLE alerts_v3 (
    alert_id     VARCHAR PRIMARY KEY,
    run_id       VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL CHECK (kind IN ('price_changed', 'offer_disappeared', 'undercut',
                                                  'claim_status', 'source_failing', 'source_recovered',
                                                  'new_gpu_label', 'rule_change')),
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
INSERT INTO alerts_v3 BY NAME SELECT * FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_v3 RENAME TO alerts;
COMMENT ON TABLE alerts IS 'Alert events derived after each run, one per state change worth telling; sent to people inside messages (alert_messages).';
COMMENT ON COLUMN alerts.kind IS 'price_changed | offer_disappeared | undercut | claim_status | source_failing | source_recovered | new_gpu_label | rule_change';
COMMENT ON COLUMN alerts.state IS 'pending | sent | suspect | suppressed | muted (a mute rule matched: recorded, never sent)';
COMMENT ON COLUMN alerts.message_id IS 'the alert_messages row that carries this event (NULL until composed; muted and suppressed events may have none)';

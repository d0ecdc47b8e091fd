-- A page whose claims go unchecked because a source is stale is told once, and once more when it is
-- checked again (issue 21 item 2; pricewatch/alerts/staleness.py):
--   alerts.kind          + 'page_unchecked', 'page_checked_again'
--   alert_messages.kind  + 'page_unchecked', 'page_checked_again'
-- DuckDB cannot alter a CHECK: both tables are rebuilt with every column and row, and their
-- comments restated.

CREATE TABLE alerts_v2(alert_id VARCHAR PRIMARY KEY, run_id VARCHAR NOT NULL, kind VARCHAR NOT NULL, subject VARCHAR NOT NULL, fingerprint VARCHAR NOT NULL UNIQUE, state VARCHAR NOT NULL, notify_type VARCHAR NOT NULL, title VARCHAR NOT NULL, body VARCHAR NOT NULL, details JSON NOT NULL, created_at TIMESTAMP WITH TIME ZONE NOT NULL, updated_at TIMESTAMP WITH TIME ZONE NOT NULL, delivered_at TIMESTAMP WITH TIME ZONE, attempts INTEGER DEFAULT(0) NOT NULL, last_error VARCHAR, message_id VARCHAR, CHECK((kind IN ('price_changed', 'offer_disappeared', 'undercut', 'claim_status', 'source_failing', 'source_recovered', 'new_gpu_label', 'rule_change', 'held_reading', 'page_unchecked', 'page_checked_again'))), CHECK((state IN ('pending', 'sent', 'suspect', 'suppressed', 'muted'))), CHECK((notify_type IN ('info', 'success', 'warning', 'failure'))));
INSERT INTO alerts_v2 BY NAME SELECT * FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_v2 RENAME TO alerts;
CREATE TABLE alert_messages_v2(message_id VARCHAR PRIMARY KEY, run_id VARCHAR NOT NULL, kind VARCHAR NOT NULL, subject VARCHAR NOT NULL, state VARCHAR NOT NULL, notify_type VARCHAR NOT NULL, title VARCHAR NOT NULL, body_text VARCHAR NOT NULL, body_markdown VARCHAR NOT NULL, body_html VARCHAR NOT NULL, payload JSON NOT NULL, alert_ids VARCHAR[] NOT NULL, created_at TIMESTAMP WITH TIME ZONE NOT NULL, updated_at TIMESTAMP WITH TIME ZONE NOT NULL, delivered_at TIMESTAMP WITH TIME ZONE, attempts INTEGER DEFAULT(0) NOT NULL, last_error VARCHAR, CHECK((kind IN ('page_digest', 'source_outage', 'source_recovered', 'rule_change', 'new_gpu_label', 'page_unchecked', 'page_checked_again'))), CHECK((state IN ('pending', 'sent', 'muted', 'acked'))), CHECK((notify_type IN ('info', 'success', 'warning', 'failure'))));
INSERT INTO alert_messages_v2 BY NAME SELECT * FROM alert_messages;
DROP TABLE alert_messages;
ALTER TABLE alert_messages_v2 RENAME TO alert_messages;
COMMENT ON TABLE alerts IS 'Alert events derived after each run, one per state change worth telling; sent to people inside messages (alert_messages).';
COMMENT ON COLUMN alerts.alert_id IS 'short hash of the alert''s fingerprint';
COMMENT ON COLUMN alerts.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN alerts.kind IS 'price_changed | offer_disappeared | undercut | claim_status | source_failing | source_recovered | new_gpu_label | rule_change | held_reading | page_unchecked | page_checked_again (page_*: one per page when its claims first go unchecked because sources are stale, and when they are checked again); held_reading (a held reading of a cited offer that needs a look; details.escalated when the provider''s next run repeated it)';
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
COMMENT ON TABLE alert_messages IS 'Messages sent to people: one digest per run and page, one per source outage or recovery, per rules change, per new GPU label; delivery state and the structured payload.';
COMMENT ON COLUMN alert_messages.message_id IS 'short hash of kind|subject|run_id';
COMMENT ON COLUMN alert_messages.run_id IS 'the run whose derivation composed the message';
COMMENT ON COLUMN alert_messages.kind IS 'page_digest | source_outage | source_recovered | rule_change | new_gpu_label | page_unchecked | page_checked_again (a page whose claims stale sources leave unchecked, and checked again)';
COMMENT ON COLUMN alert_messages.subject IS 'page id, or provider, or provider/label';
COMMENT ON COLUMN alert_messages.state IS 'pending | sent | muted (every event it would carry was muted: never sent) | acked (acknowledged before delivery: not sent)';
COMMENT ON COLUMN alert_messages.notify_type IS 'apprise notify type: info | success | warning | failure';
COMMENT ON COLUMN alert_messages.title IS 'plain-text title';
COMMENT ON COLUMN alert_messages.body_text IS 'plain-text body (CLI, text targets)';
COMMENT ON COLUMN alert_messages.body_markdown IS 'Markdown body for chat targets (Slack, Discord, Telegram, ...)';
COMMENT ON COLUMN alert_messages.body_html IS 'HTML body for e-mail (autoescaped template)';
COMMENT ON COLUMN alert_messages.payload IS 'JSON: the structured fields a JSON webhook receives (page, url, claims with old/new and direction, price moves, evidence URLs, ids)';
COMMENT ON COLUMN alert_messages.alert_ids IS 'the alert events this message carries';
COMMENT ON COLUMN alert_messages.created_at IS 'when the message was composed';
COMMENT ON COLUMN alert_messages.updated_at IS 'when its state last changed';
COMMENT ON COLUMN alert_messages.delivered_at IS 'when every alert target accepted it';
COMMENT ON COLUMN alert_messages.attempts IS 'delivery attempts';
COMMENT ON COLUMN alert_messages.last_error IS 'the last delivery error (redacted: never an alert URL''s secret)';

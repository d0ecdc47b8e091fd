-- Column comments for the alert tables of migrations 022-023 (landed with table comments and
-- some column comments; these complete them, from the columns' own notes in those files), so
-- every column of the warehouse is documented (tests/test_marts.py).
COMMENT ON COLUMN alert_messages.message_id IS 'short hash of kind|subject|run_id';
COMMENT ON COLUMN alert_messages.run_id IS 'the run whose derivation composed the message';
COMMENT ON COLUMN alert_messages.subject IS 'page id, or provider, or provider/label';
COMMENT ON COLUMN alert_messages.notify_type IS 'apprise notify type: info | success | warning | failure';
COMMENT ON COLUMN alert_messages.title IS 'plain-text title';
COMMENT ON COLUMN alert_messages.body_text IS 'plain-text body (CLI, text targets)';
COMMENT ON COLUMN alert_messages.body_markdown IS 'Markdown body for chat targets (Slack, Discord, Telegram, ...)';
COMMENT ON COLUMN alert_messages.body_html IS 'HTML body for e-mail (autoescaped template)';
COMMENT ON COLUMN alert_messages.created_at IS 'when the message was composed';
COMMENT ON COLUMN alert_messages.updated_at IS 'when its state last changed';
COMMENT ON COLUMN alert_messages.delivered_at IS 'when every alert target accepted it';
COMMENT ON COLUMN alert_messages.attempts IS 'delivery attempts';
COMMENT ON COLUMN alert_messages.last_error IS 'the last delivery error (redacted: never an alert URL''s secret)';
COMMENT ON COLUMN alert_message_deliveries.message_id IS 'the message delivered (alert_messages.message_id)';
COMMENT ON COLUMN alert_message_deliveries.target IS 'sha256 of the alert URL (the URL is a secret)';
COMMENT ON COLUMN alert_message_deliveries.label IS 'the alert URL, redacted';
COMMENT ON COLUMN alert_message_deliveries.delivered_at IS 'when this target accepted the message';
COMMENT ON COLUMN alert_acks.id IS 'the acknowledged alert_messages.message_id or alerts.alert_id';
COMMENT ON COLUMN alert_acks.acked_at IS 'when it was acknowledged';
COMMENT ON COLUMN alert_acks.note IS 'the editor''s note, if any';
COMMENT ON COLUMN alert_mutes.mute_id IS 'scope:value';
COMMENT ON COLUMN alert_mutes.scope IS 'provider | gpu | claim';
COMMENT ON COLUMN alert_mutes.value IS 'provider id, canonical GPU model, or claim id';
COMMENT ON COLUMN alert_mutes.reason IS 'why it is muted';
COMMENT ON COLUMN alert_mutes.created_at IS 'when the mute rule was made';

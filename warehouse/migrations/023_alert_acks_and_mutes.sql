-- An editor's answers to alerts (pricewatch alerts ack / mute).
-- alert_acks: "seen, I am on it": a message or event id, acknowledged once. An acked message
-- that is still pending is not sent.
CREATE TABLE alert_acks (
    id         VARCHAR PRIMARY KEY,      -- alert_messages.message_id or alerts.alert_id
    acked_at   TIMESTAMPTZ NOT NULL,
    note       VARCHAR
);
COMMENT ON TABLE alert_acks IS 'Acknowledged messages and events (pricewatch alerts ack ID); an acked pending message is not sent.';

-- alert_mutes: events about a provider, a GPU model or a claim are recorded as muted (never
-- sent) while the run they come from is observed before `until`.
CREATE TABLE alert_mutes (
    mute_id    VARCHAR PRIMARY KEY,      -- scope:value
    scope      VARCHAR NOT NULL CHECK (scope IN ('provider', 'gpu', 'claim')),
    value      VARCHAR NOT NULL,         -- provider id, canonical GPU model, or claim id
    until      TIMESTAMPTZ NOT NULL,     -- exclusive
    reason     VARCHAR,
    created_at TIMESTAMPTZ NOT NULL
);
COMMENT ON TABLE alert_mutes IS 'Mute rules: events about this provider, GPU model or claim are recorded muted, not sent, until the date.';
COMMENT ON COLUMN alert_mutes.until IS 'exclusive end: a run observed at or after it is alerted again';

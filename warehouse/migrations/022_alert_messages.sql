-- What an editor receives: messages composed from alert events (pricewatch/alerts/compose.py).
--   page_digest       one per run and page: every sentence (claim) the run changed, old -> new,
--                     why (which price moved, where, seen when), evidence, direction
--   source_outage     one per source and failure streak: the claims it leaves unverifiable
--                     (counted per page), its error once, a pointer to the report
--   source_recovered  the source works again, with the claims that are true again (said once)
--   rule_change       one per page and rules version: the claims the new rules changed
--   new_gpu_label     a label the catalog does not know
-- Delivery state lives here (the events follow it); payload holds the structured fields JSON
-- webhooks receive. Bodies are rendered per format from Jinja2 templates at composition time.
CREATE TABLE alert_messages (
    message_id    VARCHAR PRIMARY KEY,   -- short hash of kind|subject|run_id
    run_id        VARCHAR NOT NULL,      -- the run whose derivation composed it
    kind          VARCHAR NOT NULL CHECK (kind IN ('page_digest', 'source_outage', 'source_recovered',
                                                   'rule_change', 'new_gpu_label')),
    subject       VARCHAR NOT NULL,      -- page id, or provider, or provider/label
    state         VARCHAR NOT NULL CHECK (state IN ('pending', 'sent', 'muted', 'acked')),
    notify_type   VARCHAR NOT NULL CHECK (notify_type IN ('info', 'success', 'warning', 'failure')),
    title         VARCHAR NOT NULL,      -- plain text
    body_text     VARCHAR NOT NULL,      -- plain text (CLI, text targets)
    body_markdown VARCHAR NOT NULL,      -- chat targets (Slack, Discord, Telegram, ...)
    body_html     VARCHAR NOT NULL,      -- e-mail (autoescaped template)
    payload       JSON NOT NULL,         -- the structured fields (page, claims, old/new, evidence, ids)
    alert_ids     VARCHAR[] NOT NULL,    -- the events it carries (alerts.alert_id)
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    delivered_at  TIMESTAMPTZ,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    VARCHAR                -- redacted: never an alert URL's secret
);
COMMENT ON TABLE alert_messages IS 'Messages sent to people: one digest per run and page, one per source outage or recovery, per rules change, per new GPU label; delivery state and the structured payload.';
COMMENT ON COLUMN alert_messages.kind IS 'page_digest | source_outage | source_recovered | rule_change | new_gpu_label';
COMMENT ON COLUMN alert_messages.state IS 'pending | sent | muted (every event it would carry was muted: never sent) | acked (acknowledged before delivery: not sent)';
COMMENT ON COLUMN alert_messages.payload IS 'JSON: the structured fields a JSON webhook receives (page, url, claims with old/new and direction, price moves, evidence URLs, ids)';
COMMENT ON COLUMN alert_messages.alert_ids IS 'the alert events this message carries';

-- Which alert URL accepted which message (a retry only goes to the targets that failed).
CREATE TABLE alert_message_deliveries (
    message_id   VARCHAR NOT NULL,
    target       VARCHAR NOT NULL,       -- sha256 of the alert URL (the URL is a secret)
    label        VARCHAR NOT NULL,       -- the URL, redacted
    delivered_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (message_id, target)
);
COMMENT ON TABLE alert_message_deliveries IS 'Which alert target (a hashed alert URL) accepted which message.';

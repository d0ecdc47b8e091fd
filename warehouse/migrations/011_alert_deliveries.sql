-- Which alert URL accepted which alert, so a retry after a partial failure only goes to the
-- targets that failed (Slack does not get the same alert twice because e-mail was down).
-- target is a hash of the URL and label its redacted form: the URL itself is a secret.
CREATE TABLE alert_deliveries (
    alert_id     VARCHAR NOT NULL,
    target       VARCHAR NOT NULL,
    label        VARCHAR NOT NULL,
    delivered_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (alert_id, target)
);

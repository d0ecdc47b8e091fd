-- Alerts derived after each run (pricewatch/alerts.py). One row per state change worth telling
-- the editor about; fingerprint is that state change, so deriving a run again adds nothing.
--   pending    to deliver (again) on the next delivery, until every alert URL accepted it
--   sent       every configured alert URL accepted it (delivered_at)
--   suspect    an implausible price move, held until the next run confirms it (it then becomes
--              pending) or shows another price (it then becomes suppressed)
--   suppressed never to be sent (a suspect move the next run did not confirm)
CREATE TABLE alerts (
    alert_id     VARCHAR PRIMARY KEY,   -- short hash of the fingerprint
    run_id       VARCHAR NOT NULL,      -- the run whose snapshot raised it
    kind         VARCHAR NOT NULL CHECK (kind IN ('price_changed', 'offer_disappeared', 'undercut',
                                                  'claim_status', 'source_failing', 'source_recovered')),
    subject      VARCHAR NOT NULL,      -- provider/offer_key, claim id or provider
    fingerprint  VARCHAR NOT NULL UNIQUE,
    state        VARCHAR NOT NULL CHECK (state IN ('pending', 'sent', 'suspect', 'suppressed')),
    notify_type  VARCHAR NOT NULL CHECK (notify_type IN ('info', 'success', 'warning', 'failure')),
    title        VARCHAR NOT NULL,
    body         VARCHAR NOT NULL,
    details      JSON NOT NULL,         -- old/new prices, percent, claims citing the offer, evidence
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    delivered_at TIMESTAMPTZ,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   VARCHAR                -- redacted: never holds an alert URL's secret
);

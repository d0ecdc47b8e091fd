-- A new alert kind: new_gpu_label (a provider prints a GPU label the catalog does not know;
-- said once per provider and label). DuckDB cannot alter a CHECK constraint: the table is
-- rebuilt with the same columns and rows.
CREATE TABLE alerts_v2 (
    alert_id     VARCHAR PRIMARY KEY,
    run_id       VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL CHECK (kind IN ('price_changed', 'offer_disappeared', 'undercut',
                                                  'claim_status', 'source_failing', 'source_recovered',
                                                  'new_gpu_label')),
    subject      VARCHAR NOT NULL,
    fingerprint  VARCHAR NOT NULL UNIQUE,
    state        VARCHAR NOT NULL CHECK (state IN ('pending', 'sent', 'suspect', 'suppressed')),
    notify_type  VARCHAR NOT NULL CHECK (notify_type IN ('info', 'success', 'warning', 'failure')),
    title        VARCHAR NOT NULL,
    body         VARCHAR NOT NULL,
    details      JSON NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    delivered_at TIMESTAMPTZ,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   VARCHAR
);
INSERT INTO alerts_v2 BY NAME SELECT * FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_v2 RENAME TO alerts;

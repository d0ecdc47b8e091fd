-- The repeatable part of the schema (issue 19): every view and macro is one file holding its
-- current definition (warehouse/views/, warehouse/macros/), the comments of every table, view
-- and column come from the YAML beside them (warehouse/tables/schema.yaml, <name>.yaml), and
-- warehouse/migrate.py applies each after the numbered migrations and again whenever the text
-- it runs changes. This table records what was applied: one row per table (its comments), view
-- and macro, with the sha256 of the statements run. Its own comments come from
-- warehouse/tables/schema.yaml, as every table's now do.
CREATE TABLE schema_repeatables (
    kind VARCHAR NOT NULL CHECK (kind IN ('table', 'view', 'macro')),
    name VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, name)
);

-- Raw text is evidence: what the price cell (or API field) really said, verbatim, next to the
-- parsed value ("$$43.46", "1.09", "Contact sales", "€3.10", "-1"). NULL for rows loaded
-- before this migration.
ALTER TABLE offers ADD COLUMN price_raw VARCHAR;

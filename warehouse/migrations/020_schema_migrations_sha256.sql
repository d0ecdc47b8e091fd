-- Each applied migration's text is recorded by its sha256 (warehouse/db.py migrate), so an
-- edit of a landed migration is seen: migrate() warns when a file no longer matches what was
-- applied. Migrations applied before this one have no recorded text (NULL): nobody knows it.
ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS sha256 VARCHAR;

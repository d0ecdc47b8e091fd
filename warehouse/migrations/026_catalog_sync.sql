-- The catalog is synced only when it changed (issue 11): the load used to rewrite gpu_catalog
-- and gpu_aliases from the YAML on every run (20 % of a nightly load). catalog_sync records the
-- sha256 of the rows last written; a load whose catalog gives the same rows skips the rewrite.
CREATE TABLE catalog_sync (
    sha256    VARCHAR NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL
);
COMMENT ON TABLE catalog_sync IS 'One row: the sha256 of the gpu_catalog / gpu_aliases rows last synced from warehouse/gpu_catalog.yaml, and when (warehouse/load.py sync_catalog).';
COMMENT ON COLUMN catalog_sync.sha256 IS 'sha256 of the synced catalog rows (models and aliases, as JSON).';
COMMENT ON COLUMN catalog_sync.synced_at IS 'When they were written.';

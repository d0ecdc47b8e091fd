-- What the load writes from the code's own resources (the GPU catalog YAML, the spider classes'
-- source declarations) is rewritten only when it changed (issue 11): one row per resource with
-- the sha256 of the rows last written. Replaces catalog_sync (026), whose one row moves here.
CREATE TABLE resource_syncs (
    resource  VARCHAR PRIMARY KEY,
    sha256    VARCHAR NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL
);
INSERT INTO resource_syncs SELECT 'gpu_catalog', sha256, synced_at FROM catalog_sync;
DROP TABLE catalog_sync;
COMMENT ON TABLE resource_syncs IS 'One row per resource the load writes from code (gpu_catalog: warehouse/gpu_catalog.yaml into gpu_catalog / gpu_aliases; sources: the spider classes into sources), with the sha256 of the rows last written; a load whose rows hash the same skips the rewrite (warehouse/load.py).';
COMMENT ON COLUMN resource_syncs.resource IS 'gpu_catalog | sources';
COMMENT ON COLUMN resource_syncs.sha256 IS 'sha256 of the rows last written (as JSON)';
COMMENT ON COLUMN resource_syncs.synced_at IS 'when they were written';

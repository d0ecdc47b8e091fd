-- The view gpu_catalog_with_aliases, as it is now (its docs: gpu_catalog_with_aliases.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE VIEW gpu_catalog_with_aliases AS
SELECT c.gpu_model, c.vendor, c.vram_gb,
       list(a.alias_key ORDER BY a.alias_key) AS aliases
FROM gpu_catalog c
LEFT JOIN gpu_aliases a USING (gpu_model)
GROUP BY ALL;

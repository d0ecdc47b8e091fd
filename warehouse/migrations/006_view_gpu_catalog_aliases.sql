-- The catalog with every label it knows, for analysts checking how a label is read.
CREATE OR REPLACE VIEW gpu_catalog_with_aliases AS
SELECT c.gpu_model, c.vendor, c.vram_gb,
       list(a.alias_key ORDER BY a.alias_key) AS aliases
FROM gpu_catalog c
LEFT JOIN gpu_aliases a USING (gpu_model)
GROUP BY ALL;

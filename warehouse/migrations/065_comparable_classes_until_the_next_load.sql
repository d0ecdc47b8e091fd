-- Migration 062 added gpu_catalog.classes_by_form_factor (false) and dropped the catalog's sync
-- record, so the next load writes the catalog's own values. Until that load, an upgraded warehouse
-- would read every model as one class (an H100 NVL compared with an H100 SXM). The models whose
-- catalog entry says `classes_by: form_factor` on the day of 062 (pricewatch/record/gpu_catalog.yaml)
-- are set here; the next load's catalog sync replaces these rows with the catalog's.
UPDATE gpu_catalog SET classes_by_form_factor = true
WHERE gpu_model IN ('A100 40GB', 'A100 80GB', 'H100', 'H200', 'V100 16GB', 'V100 32GB');

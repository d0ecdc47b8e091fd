-- A comparable class for every offer (issue 23 item 3; the one definition is the macro
-- comparable_class, warehouse/macros/comparable_class.sql):
--   gpu_catalog.classes_by_form_factor  the catalog model's `classes_by: form_factor`
--       (pricewatch/record/gpu_catalog.yaml): its SXM, PCIe and NVL offers are different classes.
--       Written by the load's catalog sync; the sync record is dropped so the next load writes it.
--   price_spells.form_factor  the spell's first reading's form factor (like currency, migration
--       050), set when a spell opens (warehouse/sql/spells_step_6_open.sql) or is rebuilt
--       (spells_rebuild.sql), backfilled here from the same offers rows; the history and the daily
--       marts read the class of a spell from it.
ALTER TABLE gpu_catalog ADD COLUMN classes_by_form_factor BOOLEAN NOT NULL DEFAULT false;
DELETE FROM resource_syncs WHERE resource = 'gpu_catalog';

ALTER TABLE price_spells ADD COLUMN form_factor VARCHAR;
UPDATE price_spells s SET form_factor = o.form_factor
FROM offers o
WHERE o.run_id = s.first_run_id AND o.provider = s.provider AND o.offer_key = s.offer_key;

COMMENT ON COLUMN gpu_catalog.classes_by_form_factor IS 'The model splits into comparable classes by form factor (catalog classes_by: form_factor): read by the macro comparable_class.';
COMMENT ON COLUMN price_spells.form_factor IS 'Form factor of the spell''s first reading (offers.form_factor of first_run_id): with gpu_model, its comparable class.';

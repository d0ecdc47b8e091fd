-- The macro comparable_class, as it is now (its docs: comparable_class.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
-- The one definition of an offer's comparable class (issue 23 item 3, docs/catalog.md): a model
-- whose catalog entry says `classes_by: form_factor` (gpu_catalog.classes_by_form_factor) splits
-- by the offer's form factor ("H100 SXM", "H100 PCIe", "H100 NVL"; an offer whose label does not
-- say is "H100 (form factor not stated)", never merged with SXM); any other model is its own
-- class ("B200"); an offer of no known model has none (NULL).
CREATE OR REPLACE MACRO comparable_class(gpu_model, form_factor) AS
CASE
    WHEN gpu_model IS NULL THEN NULL
    WHEN NOT coalesce((SELECT c.classes_by_form_factor FROM gpu_catalog c WHERE c.gpu_model = gpu_model), false)
        THEN gpu_model
    WHEN form_factor IN ('SXM', 'PCIe', 'NVL') THEN gpu_model || ' ' || form_factor
    ELSE gpu_model || ' (form factor not stated)'
END;

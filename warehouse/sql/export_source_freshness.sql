-- export_source_freshness: each source's freshness now (the view source_freshness; the
-- export's --since does not apply), for `pricewatch export` (column set in
-- pricewatch/export/datasets.py).
SELECT * FROM source_freshness ORDER BY provider

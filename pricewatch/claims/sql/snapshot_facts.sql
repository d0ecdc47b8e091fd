-- snapshot_facts: the source facts of the given provider runs (as snapshot_offers).
SELECT f.provider, f.run_id, f.fact, f.value_num, f.value_text, f.observed_at, f.source_url, f.warc_file,
       f.warc_record_id
FROM source_facts f
SEMI JOIN (SELECT unnest($1::VARCHAR[]) AS provider, unnest($2::VARCHAR[]) AS run_id) w USING (provider, run_id)

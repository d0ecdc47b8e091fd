-- Every table, view and column documented in the warehouse itself (issue 12): what the README
-- says, readable with duckdb_tables(), duckdb_views() and duckdb_columns() (or DESCRIBE in a
-- SQL IDE). The marts of 040-046 and migrations 025-035 comment their own (offer_price_history,
-- price_changes and price_spells are issue 11's); this covers everything else created before
-- it that had no comment.
--
-- CREATE OR REPLACE VIEW and a table rebuilt under its old name drop these comments: a later
-- migration that does either comments what it creates (tests/test_marts.py fails otherwise).

-- table alert_deliveries
COMMENT ON TABLE alert_deliveries IS 'Which alert target (a hashed alert URL) accepted which alert, so retries only go to targets that failed.';
COMMENT ON COLUMN alert_deliveries.alert_id IS 'short hash of the alert''s fingerprint';
COMMENT ON COLUMN alert_deliveries.target IS 'sha256 of the alert URL (the URL itself is a secret)';
COMMENT ON COLUMN alert_deliveries.label IS 'the alert URL, redacted';
COMMENT ON COLUMN alert_deliveries.delivered_at IS 'when this target accepted the alert';

-- table alerts
COMMENT ON COLUMN alerts.alert_id IS 'short hash of the alert''s fingerprint';
COMMENT ON COLUMN alerts.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN alerts.subject IS 'what the alert is about: provider/offer_key, claim id or provider';
COMMENT ON COLUMN alerts.fingerprint IS 'the state change alerted (unique: the same state never alerts twice)';
COMMENT ON COLUMN alerts.notify_type IS 'apprise notify type: info | success | warning | failure';
COMMENT ON COLUMN alerts.title IS 'plain-text title';
COMMENT ON COLUMN alerts.body IS 'Markdown body (source text escaped)';
COMMENT ON COLUMN alerts.details IS 'JSON: old/new prices, percent, claims citing the offer, evidence';
COMMENT ON COLUMN alerts.created_at IS 'when the alert was raised';
COMMENT ON COLUMN alerts.updated_at IS 'when its state last changed';
COMMENT ON COLUMN alerts.delivered_at IS 'when it was delivered (every target accepted it)';
COMMENT ON COLUMN alerts.attempts IS 'delivery attempts';
COMMENT ON COLUMN alerts.last_error IS 'the last delivery error (redacted: no alert URL secret)';

-- table claim_evaluations
COMMENT ON COLUMN claim_evaluations.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN claim_evaluations.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN claim_evaluations.claim_group IS 'the CLAIMS.md id the claim belongs to';
COMMENT ON COLUMN claim_evaluations.page IS 'published page id (rules folder)';
COMMENT ON COLUMN claim_evaluations.kind IS 'computation kind: cited_offer, cheapest_offer, ratio, ...';
COMMENT ON COLUMN claim_evaluations.status IS 'holds | drifted | unverifiable';
COMMENT ON COLUMN claim_evaluations.published_value IS 'the number the page prints (checkmarks as 1/0; NULL for text)';
COMMENT ON COLUMN claim_evaluations.current_value IS 'the number recomputed from the snapshot (NULL when unverifiable or text)';
COMMENT ON COLUMN claim_evaluations.difference IS 'current_value - published_value (numbers only)';
COMMENT ON COLUMN claim_evaluations.tolerance IS 'what counts as holding: "cents", "rounds to 0 decimals", "±5%", "exact"';
COMMENT ON COLUMN claim_evaluations.reason IS 'why drifted or unverifiable (which input, since when)';
COMMENT ON COLUMN claim_evaluations.snapshot_at IS 'the run''s observed_at: no later data is used';
COMMENT ON COLUMN claim_evaluations.evaluated_at IS 'when the evaluation was computed';
COMMENT ON COLUMN claim_evaluations.published_text IS 'as the page shows it: "$43.46", "✓", "1,260 GB"';
COMMENT ON COLUMN claim_evaluations.current_text IS 'the same, recomputed';
COMMENT ON COLUMN claim_evaluations.pick IS 'cheapest/from claims: what the value comes from now';
COMMENT ON COLUMN claim_evaluations.note IS 'e.g. a cheaper fitting configuration exists';
COMMENT ON COLUMN claim_evaluations.unverifiable_since IS 'when the missing or failed input was first missing';
COMMENT ON COLUMN claim_evaluations.says_ja IS 'the published sentence or table cell (original Japanese)';
COMMENT ON COLUMN claim_evaluations.says_en IS 'the same in English';
COMMENT ON COLUMN claim_evaluations.cited_date IS 'the date the page cited for its prices';

-- table claim_inputs
COMMENT ON COLUMN claim_inputs.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN claim_inputs.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN claim_inputs.input_name IS 'the input''s name within the claim ("cited offer", "cheapest pick", ...)';
COMMENT ON COLUMN claim_inputs.role IS 'cited (the offer the page cites) | cheapest (current cheapest match) | own (the publisher''s own price or fact)';
COMMENT ON COLUMN claim_inputs.provider IS 'provider (spider name)';
COMMENT ON COLUMN claim_inputs.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN claim_inputs.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN claim_inputs.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN claim_inputs.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN claim_inputs.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN claim_inputs.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN claim_inputs.observed_at IS 'when this offer was observed (its provider run)';
COMMENT ON COLUMN claim_inputs.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN claim_inputs.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN claim_inputs.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN claim_inputs.input_status IS 'ok | unpriced | missing | failed | never_seen';
COMMENT ON COLUMN claim_inputs.used IS 'this input gave the value (e.g. the cheapest named GPU)';
COMMENT ON COLUMN claim_inputs.offer_run_id IS 'the run that stored the offer reading used';
COMMENT ON COLUMN claim_inputs.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN claim_inputs.fact IS 'the fact''s name (listed_machines, topup_min_usd, ...)';
COMMENT ON COLUMN claim_inputs.value_num IS 'the fact''s value, when a number';
COMMENT ON COLUMN claim_inputs.value_text IS 'the fact''s value, when text';

-- table gpu_aliases
COMMENT ON TABLE gpu_aliases IS 'Every raw label the catalog knows (normalized) and the model it reads as.';
COMMENT ON COLUMN gpu_aliases.alias_key IS 'normalized label (pricewatch/catalog.py)';
COMMENT ON COLUMN gpu_aliases.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN gpu_aliases.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN gpu_aliases.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN gpu_aliases.ambiguous IS 'a family label resolved by the VRAM the source reports';

-- table gpu_catalog
COMMENT ON TABLE gpu_catalog IS 'The canonical GPU catalog (warehouse/gpu_catalog.yaml, synced on every load): model, vendor, VRAM.';
COMMENT ON COLUMN gpu_catalog.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN gpu_catalog.vendor IS 'GPU vendor';
COMMENT ON COLUMN gpu_catalog.vram_gb IS 'nominal VRAM per GPU, GB';

-- table offers
COMMENT ON TABLE offers IS 'One offer as a provider published it in one run, normalized onto the GPU catalog, with the quality gate''s verdict and the evidence (WARC file, record id, body sha256). Rows are only added.';
COMMENT ON COLUMN offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN offers.gpu_label IS 'the GPU label as the source printed it';
COMMENT ON COLUMN offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN offers.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN offers.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN offers.reserved_term IS 'billing reserved: the term ("1 month", "3 years", ...)';
COMMENT ON COLUMN offers.self_service IS 'false when a sales contact or a large minimum is required';
COMMENT ON COLUMN offers.region IS 'region, when the price is per region';
COMMENT ON COLUMN offers.currency IS 'ISO currency of the price';
COMMENT ON COLUMN offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour';
COMMENT ON COLUMN offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN offers.is_priced IS 'false for Contact sales, placeholders, unresolved text';
COMMENT ON COLUMN offers.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN offers.availability IS 'availability as the source states it (regions, stock)';
COMMENT ON COLUMN offers.is_aggregator IS 'true for re-sellers of other clouds (never the cheapest)';
COMMENT ON COLUMN offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN offers.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN offers.body_sha256 IS 'sha256 of the response body';
COMMENT ON COLUMN offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN offers.screen_note IS 'why a large move was let through (confirmed, market moved)';
COMMENT ON COLUMN offers.price_raw IS 'the price cell''s text, verbatim (NULL for rows loaded before migration 017)';

-- table provider_runs
COMMENT ON TABLE provider_runs IS 'Every known provider in every run: ok / suspect / failed / not attempted, counts, retries, monitor findings, error text.';
COMMENT ON COLUMN provider_runs.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN provider_runs.provider IS 'provider (spider name)';
COMMENT ON COLUMN provider_runs.status IS 'ok | suspect (failed a run monitor) | failed | not attempted';
COMMENT ON COLUMN provider_runs.monitors IS 'run-monitor findings that made the provider run suspect';
COMMENT ON COLUMN provider_runs.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN provider_runs.item_count IS 'offers the crawl yielded';
COMMENT ON COLUMN provider_runs.priced_count IS 'offers with a price';
COMMENT ON COLUMN provider_runs.unpriced_count IS 'offers without a price (Contact sales, ...)';
COMMENT ON COLUMN provider_runs.duplicates_dropped IS 'duplicate offers dropped by the pipeline';
COMMENT ON COLUMN provider_runs.http_error_count IS 'HTTP error responses received';
COMMENT ON COLUMN provider_runs.retries IS 'request retries within the crawl';
COMMENT ON COLUMN provider_runs.attempts IS 'crawl attempts (Prefect task retries)';
COMMENT ON COLUMN provider_runs.duration_s IS 'crawl duration, seconds';
COMMENT ON COLUMN provider_runs.unknown_labels IS 'GPU labels the catalog does not know (their offers have gpu_model NULL)';
COMMENT ON COLUMN provider_runs.warnings IS 'warnings of the crawl';
COMMENT ON COLUMN provider_runs.error IS 'why the provider run failed (one line per distinct problem)';

-- table runs
COMMENT ON TABLE runs IS 'One nightly (or replayed) run: its snapshot time (observed_at), mode, status and summary. Rows are only added.';
COMMENT ON COLUMN runs.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN runs.mode IS 'live (scraped the sites) | replay (answered from a WARC archive)';
COMMENT ON COLUMN runs.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN runs.snapshot_date IS 'the date (UTC) of observed_at';
COMMENT ON COLUMN runs.started_at IS 'when the run started';
COMMENT ON COLUMN runs.finished_at IS 'when the run finished';
COMMENT ON COLUMN runs.status IS 'ok | partial | failed';
COMMENT ON COLUMN runs.replay_source IS 'the replayed archive path (replay runs)';
COMMENT ON COLUMN runs.flow_run_id IS 'the Prefect flow run id, when run by Prefect';
COMMENT ON COLUMN runs.summary IS 'the run''s one-line summary';

-- table schema_migrations
COMMENT ON TABLE schema_migrations IS 'Migrations applied to this warehouse (warehouse/migrations/NNN_*.sql), each once, with the sha256 of its text.';
COMMENT ON COLUMN schema_migrations.version IS 'migration number';
COMMENT ON COLUMN schema_migrations.name IS 'migration name (file name without number and .sql)';
COMMENT ON COLUMN schema_migrations.applied_at IS 'when it was applied';
COMMENT ON COLUMN schema_migrations.sha256 IS 'sha256 of the migration text as applied (NULL: applied before migration 020)';

-- table source_facts
COMMENT ON TABLE source_facts IS 'Facts a source states besides offers (e.g. a marketplace''s listing count), with their evidence.';
COMMENT ON COLUMN source_facts.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN source_facts.provider IS 'provider (spider name)';
COMMENT ON COLUMN source_facts.fact IS 'the fact''s name (listed_machines, topup_min_usd, ...)';
COMMENT ON COLUMN source_facts.value_num IS 'the fact''s value, when a number';
COMMENT ON COLUMN source_facts.value_text IS 'the fact''s value, when text';
COMMENT ON COLUMN source_facts.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN source_facts.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN source_facts.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN source_facts.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN source_facts.body_sha256 IS 'sha256 of the response body';

-- view cheapest_offer
COMMENT ON VIEW cheapest_offer IS 'The cheapest priced offer per canonical GPU, GPU count and billing across the latest trusted prices (no aggregators, self-service only, USD).';
COMMENT ON COLUMN cheapest_offer.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN cheapest_offer.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN cheapest_offer.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN cheapest_offer.provider IS 'provider (spider name)';
COMMENT ON COLUMN cheapest_offer.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN cheapest_offer.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN cheapest_offer.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN cheapest_offer.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN cheapest_offer.currency IS 'ISO currency of the price';
COMMENT ON COLUMN cheapest_offer.region IS 'region, when the price is per region';
COMMENT ON COLUMN cheapest_offer.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN cheapest_offer.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN cheapest_offer.offers_compared IS 'priced, comparable offers of this GPU, count and billing';

-- view gpu_catalog_with_aliases
COMMENT ON VIEW gpu_catalog_with_aliases IS 'The GPU catalog with every label it knows, for checking how a label is read.';
COMMENT ON COLUMN gpu_catalog_with_aliases.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN gpu_catalog_with_aliases.vendor IS 'GPU vendor';
COMMENT ON COLUMN gpu_catalog_with_aliases.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN gpu_catalog_with_aliases.aliases IS 'every normalized label that reads as this model';

-- view held_offers
COMMENT ON VIEW held_offers IS 'Readings of each provider''s latest successful run that the quality gate holds, and why.';
COMMENT ON COLUMN held_offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN held_offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN held_offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN held_offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN held_offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN held_offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN held_offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN held_offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN held_offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN held_offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN held_offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN held_offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN held_offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN held_offers.warc_record_id IS 'WARC-Record-ID of the archived response';

-- view latest_claim_status
COMMENT ON VIEW latest_claim_status IS 'Every claim as of the most recent evaluated snapshot, with the previous run''s status and value.';
COMMENT ON COLUMN latest_claim_status.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN latest_claim_status.claim_id IS 'claim id, e.g. g-fit-table.h200-x8.full-adamw (rules/)';
COMMENT ON COLUMN latest_claim_status.claim_group IS 'the CLAIMS.md id the claim belongs to';
COMMENT ON COLUMN latest_claim_status.page IS 'published page id (rules folder)';
COMMENT ON COLUMN latest_claim_status.kind IS 'computation kind: cited_offer, cheapest_offer, ratio, ...';
COMMENT ON COLUMN latest_claim_status.status IS 'holds | drifted | unverifiable';
COMMENT ON COLUMN latest_claim_status.published_value IS 'the number the page prints (checkmarks as 1/0; NULL for text)';
COMMENT ON COLUMN latest_claim_status.current_value IS 'the number recomputed from the snapshot (NULL when unverifiable or text)';
COMMENT ON COLUMN latest_claim_status.difference IS 'current_value - published_value (numbers only)';
COMMENT ON COLUMN latest_claim_status.tolerance IS 'what counts as holding: "cents", "rounds to 0 decimals", "±5%", "exact"';
COMMENT ON COLUMN latest_claim_status.reason IS 'why drifted or unverifiable (which input, since when)';
COMMENT ON COLUMN latest_claim_status.snapshot_at IS 'the run''s observed_at: no later data is used';
COMMENT ON COLUMN latest_claim_status.evaluated_at IS 'when the evaluation was computed';
COMMENT ON COLUMN latest_claim_status.published_text IS 'as the page shows it: "$43.46", "✓", "1,260 GB"';
COMMENT ON COLUMN latest_claim_status.current_text IS 'the same, recomputed';
COMMENT ON COLUMN latest_claim_status.pick IS 'cheapest/from claims: what the value comes from now';
COMMENT ON COLUMN latest_claim_status.note IS 'e.g. a cheaper fitting configuration exists';
COMMENT ON COLUMN latest_claim_status.unverifiable_since IS 'when the missing or failed input was first missing';
COMMENT ON COLUMN latest_claim_status.says_ja IS 'the published sentence or table cell (original Japanese)';
COMMENT ON COLUMN latest_claim_status.says_en IS 'the same in English';
COMMENT ON COLUMN latest_claim_status.cited_date IS 'the date the page cited for its prices';
COMMENT ON COLUMN latest_claim_status.previous_status IS 'the claim''s status in the previous run';
COMMENT ON COLUMN latest_claim_status.previous_value IS 'the claim''s current_value in the previous run';
COMMENT ON COLUMN latest_claim_status.previous_run_id IS 'that previous run';

-- view latest_offers
COMMENT ON VIEW latest_offers IS 'Each provider''s offers from its latest successful run, as trusted prices (a reading the quality gate holds shows the offer''s last trusted reading, flagged by held_reading_reason).';
COMMENT ON COLUMN latest_offers.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN latest_offers.provider IS 'provider (spider name)';
COMMENT ON COLUMN latest_offers.offer_key IS 'the offer''s key within its provider (GPU count, provider id or label, VRAM printed, billing/tier, term, region, variant)';
COMMENT ON COLUMN latest_offers.gpu_label IS 'the GPU label as the source printed it';
COMMENT ON COLUMN latest_offers.gpu_model IS 'canonical GPU model (gpu_catalog); NULL = label unknown to the catalog';
COMMENT ON COLUMN latest_offers.gpu_count IS 'GPUs per instance';
COMMENT ON COLUMN latest_offers.vram_gb IS 'VRAM per GPU, GB';
COMMENT ON COLUMN latest_offers.form_factor IS 'SXM | PCIe | NVL | unknown';
COMMENT ON COLUMN latest_offers.billing IS 'on-demand | spot | reserved | marketplace';
COMMENT ON COLUMN latest_offers.tier IS 'the provider''s own tier (prototyping, production, secure, community, ...)';
COMMENT ON COLUMN latest_offers.reserved_term IS 'billing reserved: the term ("1 month", "3 years", ...)';
COMMENT ON COLUMN latest_offers.self_service IS 'false when a sales contact or a large minimum is required';
COMMENT ON COLUMN latest_offers.region IS 'region, when the price is per region';
COMMENT ON COLUMN latest_offers.currency IS 'ISO currency of the price';
COMMENT ON COLUMN latest_offers.price_unit IS 'the unit the source published: instance_hour | gpu_hour';
COMMENT ON COLUMN latest_offers.price_per_hour IS 'price per instance-hour (NULL when unpriced)';
COMMENT ON COLUMN latest_offers.price_per_gpu_hour IS 'price per GPU-hour';
COMMENT ON COLUMN latest_offers.is_priced IS 'false for Contact sales, placeholders, unresolved text';
COMMENT ON COLUMN latest_offers.price_text IS 'the raw text of an unpriced offer ("Contact us", ...)';
COMMENT ON COLUMN latest_offers.availability IS 'availability as the source states it (regions, stock)';
COMMENT ON COLUMN latest_offers.is_aggregator IS 'true for re-sellers of other clouds (never the cheapest)';
COMMENT ON COLUMN latest_offers.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN latest_offers.source_url IS 'the page or API the value was read from';
COMMENT ON COLUMN latest_offers.warc_file IS 'the WARC file holding the archived response';
COMMENT ON COLUMN latest_offers.warc_record_id IS 'WARC-Record-ID of the archived response';
COMMENT ON COLUMN latest_offers.body_sha256 IS 'sha256 of the response body';
COMMENT ON COLUMN latest_offers.held_reason IS 'why the quality gate holds this reading (NULL: trusted)';
COMMENT ON COLUMN latest_offers.screen_note IS 'why a large move was let through (confirmed, market moved)';
COMMENT ON COLUMN latest_offers.price_raw IS 'the price cell''s text, verbatim (NULL for rows loaded before migration 017)';
COMMENT ON COLUMN latest_offers.held_reading_reason IS 'the held reading''s reason when this row is the offer''s last trusted reading instead';

-- view latest_provider_runs
COMMENT ON VIEW latest_provider_runs IS 'Each provider''s latest successful (ok) provider run: where its latest offers come from.';
COMMENT ON COLUMN latest_provider_runs.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN latest_provider_runs.provider IS 'provider (spider name)';
COMMENT ON COLUMN latest_provider_runs.status IS 'ok (only successful provider runs)';
COMMENT ON COLUMN latest_provider_runs.monitors IS 'run-monitor findings that made the provider run suspect';
COMMENT ON COLUMN latest_provider_runs.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN latest_provider_runs.item_count IS 'offers the crawl yielded';
COMMENT ON COLUMN latest_provider_runs.priced_count IS 'offers with a price';
COMMENT ON COLUMN latest_provider_runs.unpriced_count IS 'offers without a price (Contact sales, ...)';
COMMENT ON COLUMN latest_provider_runs.duplicates_dropped IS 'duplicate offers dropped by the pipeline';
COMMENT ON COLUMN latest_provider_runs.http_error_count IS 'HTTP error responses received';
COMMENT ON COLUMN latest_provider_runs.retries IS 'request retries within the crawl';
COMMENT ON COLUMN latest_provider_runs.attempts IS 'crawl attempts (Prefect task retries)';
COMMENT ON COLUMN latest_provider_runs.duration_s IS 'crawl duration, seconds';
COMMENT ON COLUMN latest_provider_runs.unknown_labels IS 'GPU labels the catalog does not know (their offers have gpu_model NULL)';
COMMENT ON COLUMN latest_provider_runs.warnings IS 'warnings of the crawl';
COMMENT ON COLUMN latest_provider_runs.error IS 'why the provider run failed (one line per distinct problem)';

-- view run_sequence
COMMENT ON VIEW run_sequence IS 'Runs in snapshot order (seq), whatever order they were loaded in.';
COMMENT ON COLUMN run_sequence.run_id IS 'the run (runs.run_id)';
COMMENT ON COLUMN run_sequence.observed_at IS 'when the prices were seen (UTC); for a replay the capture time or --as-of';
COMMENT ON COLUMN run_sequence.started_at IS 'when the run started';
COMMENT ON COLUMN run_sequence.status IS 'ok | partial | failed';
COMMENT ON COLUMN run_sequence.seq IS 'position in snapshot order (1 = oldest)';

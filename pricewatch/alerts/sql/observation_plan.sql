-- observation_plan: where to read the readings alerts compare, for the offers in the lists $2
-- (providers) and $3 (offer keys, same positions) as of snapshot order $1, without reading the
-- history (issue 11). One row per offer:
--   run_ids, times  the provider runs (and their observed_at) whose rows to read: the offer's
--                   provider's latest $4 successful runs up to $1 (the window), and, when the
--                   provider has older successful runs, the last trusted reading before the
--                   window's oldest run as the stored price spells give it (the latest spell
--                   begun before that run, when it had ended before it: its last_run_id)
--   spell_from, edge_at  only when that spell was still going at the window's oldest run: the
--                   offer's readings in the window were all held by the quality gate, so the
--                   last trusted one before the window is searched in [spell_from, edge_at)
--                   (sql/trusted_reading_before.sql); NULL otherwise
-- The spells order a provider's readings by observed_at, as warehouse/spells.py does: a
-- provider's successful runs are in the same order by observed_at as in run_sequence.
WITH wanted AS (
    SELECT DISTINCT unnest($2::VARCHAR[]) AS provider, unnest($3::VARCHAR[]) AS offer_key
),
ok AS (        -- the wanted providers' successful runs up to $1, newest first
    SELECT pr.provider, pr.run_id, pr.observed_at,
           row_number() OVER (PARTITION BY pr.provider ORDER BY s.seq DESC) AS k
    FROM provider_runs pr JOIN run_sequence s USING (run_id)
    WHERE pr.status = 'ok' AND s.seq <= $1 AND pr.provider IN (SELECT provider FROM wanted)
),
edge AS (      -- the window's oldest run, for providers with older successful runs
    SELECT e.provider, e.observed_at AS edge_at
    FROM ok e WHERE e.k = $4 AND EXISTS (SELECT 1 FROM ok o WHERE o.provider = e.provider AND o.k = $4 + 1)
),
spell AS (     -- per offer, the latest spell begun before the edge
    SELECT sp.provider, sp.offer_key, e.edge_at,
           arg_max(sp.valid_from, sp.valid_from) AS valid_from,
           arg_max(sp.last_seen_at, sp.valid_from) AS last_seen_at,
           arg_max(sp.last_run_id, sp.valid_from) AS last_run_id
    FROM price_spells sp JOIN wanted w USING (provider, offer_key) JOIN edge e USING (provider)
    WHERE sp.valid_from < e.edge_at
    GROUP BY sp.provider, sp.offer_key, e.edge_at
),
runs_to_read AS (
    SELECT w.provider, w.offer_key, ok.run_id, ok.observed_at
    FROM wanted w JOIN ok USING (provider) WHERE ok.k <= $4
    UNION
    SELECT provider, offer_key, last_run_id, last_seen_at FROM spell WHERE last_seen_at < edge_at
)
SELECT w.provider, w.offer_key,
       list(r.run_id ORDER BY r.observed_at DESC) FILTER (WHERE r.run_id IS NOT NULL) AS run_ids,
       list(r.observed_at ORDER BY r.observed_at DESC) FILTER (WHERE r.run_id IS NOT NULL) AS times,
       any_value(CASE WHEN sp.last_seen_at >= sp.edge_at THEN sp.valid_from END) AS spell_from,
       any_value(CASE WHEN sp.last_seen_at >= sp.edge_at THEN sp.edge_at END) AS edge_at
FROM wanted w
LEFT JOIN runs_to_read r USING (provider, offer_key)
LEFT JOIN spell sp USING (provider, offer_key)
GROUP BY w.provider, w.offer_key
ORDER BY w.provider, w.offer_key;

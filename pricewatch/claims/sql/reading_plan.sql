-- reading_plan: where an offer's trusted readings up to a run are, without reading the history
-- (issue 11; pricewatch/claims/readings.py). For the offers in the lists $1 (providers), $2
-- (offer keys) and $3 (the run each is read up to; same positions), one row per offer and run:
--   run_ids, times  the provider runs (and their observed_at) whose rows to read: the
--                   provider's latest $4 successful runs up to that run (the window), and, when
--                   the provider has older successful runs, the last trusted reading before the
--                   window's oldest run as the stored price spells give it (the latest spell
--                   begun before that run, when it had ended before it: its last_run_id)
--   spell_from, edge_at  when that spell was still going at the window's oldest run: if every
--                   reading in the window was held by the quality gate, the last trusted one is
--                   searched in [spell_from, edge_at) (sql/trusted_reading_before.sql); else NULL
-- The spells order a provider's readings by observed_at, as warehouse/spells.py does: a
-- provider's successful runs are in the same order by observed_at as in run_sequence.
WITH wanted AS (
    SELECT DISTINCT unnest($1::VARCHAR[]) AS provider, unnest($2::VARCHAR[]) AS offer_key,
           unnest($3::VARCHAR[]) AS upto_run
),
bounds AS (    -- each provider and run read up to, with the run's snapshot order
    SELECT DISTINCT w.provider, w.upto_run, s.seq AS upto_seq
    FROM wanted w JOIN run_sequence s ON s.run_id = w.upto_run
),
ok_runs AS (   -- the providers' successful runs, numbered in snapshot order
    SELECT pr.provider, pr.run_id, pr.observed_at, s.seq,
           row_number() OVER (PARTITION BY pr.provider ORDER BY s.seq) AS ok_no
    FROM provider_runs pr JOIN run_sequence s USING (run_id)
    WHERE pr.trusted AND pr.provider IN (SELECT provider FROM bounds)
),
latest AS (    -- the latest successful run up to each bound
    SELECT b.provider, b.upto_run, o.ok_no AS top_no
    FROM bounds b ASOF JOIN ok_runs o ON o.provider = b.provider AND o.seq <= b.upto_seq
),
ok AS (        -- the window: the latest $4 of them, newest first (k = 1, 2, ...)
    SELECT l.provider, l.upto_run, o.run_id, o.observed_at, l.top_no - o.ok_no + 1 AS k
    FROM (SELECT l.provider, l.upto_run, l.top_no, l.top_no - r.i AS ok_no FROM latest l CROSS JOIN range($4) r(i)) l
    JOIN ok_runs o USING (provider, ok_no)
),
edge AS (      -- the window's oldest run, where the provider has older successful runs
    SELECT o.provider, o.upto_run, o.observed_at AS edge_at
    FROM ok o JOIN latest l USING (provider, upto_run)
    WHERE o.k = $4 AND l.top_no > $4
),
spell AS (     -- per offer, the latest spell begun before the edge
    SELECT sp.provider, sp.offer_key, e.upto_run, e.edge_at,
           max(sp.valid_from) AS valid_from,
           arg_max(sp.last_seen_at, sp.valid_from) AS last_seen_at,
           arg_max(sp.last_run_id, sp.valid_from) AS last_run_id
    FROM wanted w
    JOIN edge e ON e.provider = w.provider AND e.upto_run = w.upto_run
    JOIN price_spells sp ON sp.provider = w.provider AND sp.offer_key = w.offer_key AND sp.valid_from < e.edge_at
    GROUP BY sp.provider, sp.offer_key, e.upto_run, e.edge_at
),
to_read AS (
    SELECT w.provider, w.offer_key, w.upto_run, ok.run_id, ok.observed_at
    FROM wanted w JOIN ok ON ok.provider = w.provider AND ok.upto_run = w.upto_run AND ok.k <= $4
    UNION ALL
    SELECT provider, offer_key, upto_run, last_run_id, last_seen_at FROM spell WHERE last_seen_at < edge_at
)
SELECT w.provider, w.offer_key, w.upto_run,
       list(r.run_id ORDER BY r.observed_at DESC) FILTER (WHERE r.run_id IS NOT NULL) AS run_ids,
       list(r.observed_at ORDER BY r.observed_at DESC) FILTER (WHERE r.run_id IS NOT NULL) AS times,
       any_value(CASE WHEN sp.last_seen_at >= sp.edge_at THEN sp.valid_from END) AS spell_from,
       any_value(CASE WHEN sp.last_seen_at >= sp.edge_at THEN sp.edge_at END) AS edge_at
FROM wanted w
LEFT JOIN to_read r USING (provider, offer_key, upto_run)
LEFT JOIN spell sp USING (provider, offer_key, upto_run)
GROUP BY w.provider, w.offer_key, w.upto_run
ORDER BY w.provider, w.offer_key, w.upto_run;

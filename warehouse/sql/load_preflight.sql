-- load_preflight: what a load needs to know before it writes a run, in one read:
--   stored     whether run $1 is already in the warehouse (a rerun is then a no-op);
--   newest     whether a run observed at $2 is later than every successful provider run stored
--              (true on an empty warehouse): the nightly case, whose quality gate reads the
--              stored latest offers and whose spells advance without an out-of-order check;
--   synced     the sha256 of the rows last written for each resource (resource_syncs), so the
--              catalog and the sources table are rewritten only when their rows changed;
--   latest_day the latest snapshot day stored (NULL: none), so the load stores the daily marts'
--              latest day before the first run of a new day (warehouse/marts.py store_latest_day).
SELECT (SELECT count(*) FROM runs WHERE run_id = $1) > 0 AS stored,
       (SELECT coalesce(max(observed_at) < $2, true) FROM provider_runs WHERE trusted) AS newest,
       (SELECT coalesce(map(list(resource), list(sha256)), MAP {}) FROM resource_syncs) AS synced,
       (SELECT max(snapshot_date) FROM runs) AS latest_day

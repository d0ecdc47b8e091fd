-- run_is_newest: whether a run observed at $1 is later than every successful provider run stored
-- (true on an empty warehouse): the loads of a nightly history, in order.
SELECT coalesce(max(observed_at) < $1, true) FROM provider_runs WHERE trusted

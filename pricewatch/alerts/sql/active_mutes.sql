-- active_mutes: the mute rules in force for a run observed at $1 (until is exclusive).
SELECT mute_id, scope, value, until, reason FROM alert_mutes WHERE until > $1 ORDER BY scope, value;

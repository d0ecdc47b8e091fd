-- uncomposed_events: alert events to put in messages: pending or muted, not yet in a message,
-- raised by runs up to snapshot order $1 (a suspect event once confirmed is pending again).
SELECT a.* FROM alerts a JOIN run_sequence s USING (run_id)
WHERE a.message_id IS NULL AND a.state IN ('pending', 'muted') AND s.seq <= $1
ORDER BY s.seq, a.kind, a.subject, a.alert_id;

-- list_messages: the messages, newest first ($1: pending only; $2: at most this many), with
-- whether each was acknowledged.
SELECT m.message_id, m.created_at, m.run_id, m.kind, m.subject, m.state, m.notify_type, m.title,
       m.body_text, m.body_markdown, m.payload, m.alert_ids, m.attempts, m.last_error, m.delivered_at,
       k.acked_at, k.note AS ack_note
FROM alert_messages m LEFT JOIN alert_acks k ON k.id = m.message_id
WHERE NOT $1 OR m.state = 'pending'
ORDER BY m.created_at DESC, m.message_id
LIMIT $2;

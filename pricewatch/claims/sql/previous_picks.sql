-- previous_picks: the offer each "cheapest" claim picked (claim_inputs role 'cheapest': the pick it
-- used, or the pick it could not read because it printed a placeholder) in its newest evaluation
-- of the latest evaluated run observed before $1 (the snapshot's time; $2: the run evaluated,
-- never its own). A pick that now reads as a placeholder keeps the claim unverifiable instead of
-- moving it to the next provider (pricewatch/claims/placeholders.py).
WITH prev AS (
    SELECT e.run_id FROM claim_evaluations e JOIN runs r USING (run_id)
    WHERE r.observed_at < $1 AND e.run_id <> $2
    ORDER BY r.observed_at DESC, e.run_id DESC LIMIT 1
),
newest AS (
    SELECT e.claim_id, arg_max(e.rules_version, e.evaluated_at) AS rules_version
    FROM claim_evaluations e JOIN prev USING (run_id) WHERE e.kind = 'cheapest_offer' GROUP BY e.claim_id
)
SELECT i.claim_id, i.provider, i.offer_key
FROM claim_inputs i JOIN prev USING (run_id) JOIN newest n ON n.claim_id = i.claim_id AND n.rules_version = i.rules_version
WHERE i.role = 'cheapest' AND i.offer_key IS NOT NULL AND (i.used OR i.input_status = 'unpriced')

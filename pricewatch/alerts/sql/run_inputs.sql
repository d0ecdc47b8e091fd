-- run_inputs: the offers the claims of runs $1 (a list) used, from each claim's latest
-- evaluation of that run (the rules version run_claims picks), each with the comparable class
-- of the reading it used (the macro comparable_class: what a "cheapest" claim compares).
WITH latest AS (
    SELECT run_id, claim_id, rules_version FROM claim_evaluations WHERE list_contains($1, run_id)
    QUALIFY row_number() OVER (PARTITION BY run_id, claim_id ORDER BY evaluated_at DESC, rules_version DESC) = 1
)
SELECT i.*, comparable_class(i.gpu_model, o.form_factor) AS comparable_class
FROM claim_inputs i JOIN latest l USING (run_id, claim_id, rules_version)
LEFT JOIN offers o ON o.run_id = i.offer_run_id AND o.provider = i.provider AND o.offer_key = i.offer_key
WHERE i.offer_key IS NOT NULL
ORDER BY i.run_id, i.claim_id, i.input_name;

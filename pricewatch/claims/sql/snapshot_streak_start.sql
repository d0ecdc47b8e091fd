-- snapshot_streak_start: from when an offer's trailing absence / unpriced streak as of $3 can have
-- started ($1 provider, $2 offer_key), read off the stored spells, so the readings before it need
-- not be read: absent_from = when its latest spell begun by $3 ended, if it ended by then;
-- unpriced_from = the start of its trailing run of unpriced spells. NULL: read the whole history.
WITH s AS (SELECT * FROM price_spells WHERE provider = $1 AND offer_key = $2 AND valid_from <= $3),
latest AS (SELECT * FROM s ORDER BY spell_no DESC LIMIT 1)
SELECT (SELECT CASE WHEN valid_to <= $3 THEN valid_to END FROM latest) AS absent_from,
       (SELECT min(valid_from) FROM s WHERE price_per_hour IS NULL
          AND spell_no > (SELECT coalesce(max(spell_no), 0) FROM s WHERE price_per_hour IS NOT NULL)) AS unpriced_from,
       (SELECT count(*) FROM s) AS spells

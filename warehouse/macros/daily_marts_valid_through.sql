-- The macro daily_marts_valid_through, as it is now (its docs: daily_marts_valid_through.yaml). Changing it is an edit of this file:
-- migrate applies it again when its text changes (warehouse/repeatables.py, docs/schema.md).
CREATE OR REPLACE MACRO daily_marts_valid_through() AS (
    WITH actual AS (
        SELECT snapshot_date AS day, count(*) AS runs FROM runs GROUP BY snapshot_date
    ),
    changed AS (
        SELECT min(day) AS day
        FROM actual a FULL OUTER JOIN daily_marts_days s USING (day)
        WHERE day <= (SELECT max(m.day) FROM daily_marts_days m) AND a.runs IS DISTINCT FROM s.runs
    )
    SELECT coalesce(CASE WHEN c.day IS NULL THEN (SELECT max(m.day) FROM daily_marts_days m) ELSE c.day - 1 END,
                    DATE '0001-01-01')
    FROM changed c
);

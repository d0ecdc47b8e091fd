-- comparable_class: the comparable class of a model ($1) and form factor ($2), by the warehouse's
-- one definition (the macro comparable_class, warehouse/macros/comparable_class.sql).
SELECT comparable_class($1::VARCHAR, $2::VARCHAR)

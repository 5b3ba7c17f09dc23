-- A queue table turns over its rows all day: autovacuum's defaults (vacuum once a fifth of the table is
-- dead) let its dead rows and index entries pile up while it is busy, and every claim walks them. These
-- settings of its own vacuum it once a few thousand rows are dead or inserted, whatever its size, at
-- full speed (the table is small when kept up with). They take effect only where autovacuum is on.
ALTER TABLE {table} SET (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0
);

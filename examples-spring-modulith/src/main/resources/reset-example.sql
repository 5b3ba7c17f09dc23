DROP TABLE IF EXISTS example_modulith_outbox CASCADE;
DROP FUNCTION IF EXISTS example_modulith_outbox_notify() CASCADE;
DROP TABLE IF EXISTS example_modulith_orders;
CREATE TABLE example_modulith_orders (id text PRIMARY KEY, customer text NOT NULL, total_cents integer NOT NULL);

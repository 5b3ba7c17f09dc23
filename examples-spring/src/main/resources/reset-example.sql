DROP TABLE IF EXISTS example_spring_outbox CASCADE;
DROP FUNCTION IF EXISTS example_spring_outbox_notify() CASCADE;

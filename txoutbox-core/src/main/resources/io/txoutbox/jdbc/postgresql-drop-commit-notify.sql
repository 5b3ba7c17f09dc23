-- txoutbox 0.1 created the outbox table with a trigger that notified relays from every appending
-- transaction. A transaction that notifies takes PostgreSQL's database-wide notification lock at
-- commit, which serializes every appending commit; appenders now wake relays after commit instead
-- (Outbox#committed). This drops that trigger, taking the table's lock only when there is one.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '{table}'::regclass AND tgname = '{name}_notify') THEN
        DROP TRIGGER {name}_notify ON {table};
    END IF;
END
$$;

DROP FUNCTION IF EXISTS {table}_notify();

-- One period's partition of {archive}, added by Outbox#createSchema and the relay's purge: created beside
-- the archive, given the default partition's rows of the period (they would forbid the attach), then
-- attached. Skipped where it exists or another relay holds the lock; waits at most 1 s for a table lock.
DO $$
BEGIN
    IF pg_try_advisory_xact_lock({lock}) AND to_regclass('{partition}') IS NULL THEN
        SET LOCAL lock_timeout = '1s';
        LOCK TABLE {archive_default} IN ACCESS EXCLUSIVE MODE;
        CREATE TABLE {partition} (LIKE {archive} INCLUDING DEFAULTS);
        WITH moved AS (DELETE FROM {archive_default}
                WHERE published_at >= '{from}' AND published_at < '{to}' RETURNING *)
            INSERT INTO {partition} SELECT * FROM moved;
        ALTER TABLE {archive} ATTACH PARTITION {partition} FOR VALUES FROM ('{from}') TO ('{to}');
    END IF;
END
$$;

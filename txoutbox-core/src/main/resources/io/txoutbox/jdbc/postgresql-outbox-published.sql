-- txoutbox, optional (Outbox.Builder.publishedPartitions, PostgreSQL): the published rows of {table}, kept
-- for the relay's retention (Relay.Builder.retainPublished) in partitions of published_at that the relay's
-- purge drops whole instead of deleting them row by row. The relay's mark moves each published row here in
-- the statement that marks it, so {table} only holds pending and dead rows and does not bloat.
-- createSchema and the purge add the partition of the current and the next period; rows of a period
-- without one go to the default partition, which the purge deletes row by row.
-- As a migration: add db/migration/txoutbox/postgresql-published-partitions to Flyway's locations beside
-- db/migration/txoutbox/postgresql, and build the outbox with publishedPartitions from then on.
CREATE TABLE IF NOT EXISTS {archive} (LIKE {table}) PARTITION BY RANGE (published_at);

CREATE TABLE IF NOT EXISTS {archive_default} PARTITION OF {archive} DEFAULT;

-- The purge of the default partition, and the move of a period's rows into its partition.
CREATE INDEX IF NOT EXISTS {name}_pub_dflt_idx ON {archive_default} (published_at);

-- Rows retained in {table} before: into the archive (its default partition), in one statement.
WITH moved AS (DELETE FROM {table} WHERE status = 'published' RETURNING *)
INSERT INTO {archive} SELECT * FROM moved;

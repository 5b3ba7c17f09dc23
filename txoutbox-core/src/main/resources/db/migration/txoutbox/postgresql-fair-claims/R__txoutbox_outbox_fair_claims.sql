-- txoutbox, optional (Outbox.Builder.fairClaims, PostgreSQL): the indexes fair claims read, for the default
-- table outbox. Keep the line of the column your outbox is fair across (ClaimFairness.TENANT: tenant_id,
-- ClaimFairness.DESTINATION: destination) and delete the other: each index costs every append an index insert.
-- As a migration: add db/migration/txoutbox/postgresql-fair-claims to Flyway's locations beside
-- db/migration/txoutbox/postgresql. On a large table that takes writes, create the index beforehand with
-- CREATE INDEX CONCURRENTLY (same name and definition); IF NOT EXISTS then leaves it be.
CREATE INDEX IF NOT EXISTS outbox_tenant_id_due_idx ON outbox (tenant_id, available_at, seq) WHERE status = 'pending';

CREATE INDEX IF NOT EXISTS outbox_destination_due_idx ON outbox (destination, available_at, seq) WHERE status = 'pending';

-- txoutbox, optional (Outbox.Builder.fairClaims, PostgreSQL): the index fair claims read, per key of the
-- column they are fair across (tenant_id or destination), oldest first. Only fair claims need it, so the
-- table's own DDL does not create it: each index costs every append an index insert.
-- On a large table that takes writes, create it beforehand with CREATE INDEX CONCURRENTLY (same name and
-- definition); IF NOT EXISTS then leaves it be.
CREATE INDEX IF NOT EXISTS {name}_{fair_key}_due_idx ON {table} ({fair_key}, available_at, seq) WHERE status = 'pending';

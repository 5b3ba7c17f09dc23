-- txoutbox outbox table for PostgreSQL 14 or later.
-- The table is the contract: any program may insert rows; a txoutbox relay publishes them.
-- fillfactor 50 leaves room in every page, so the relay's lease update of a row can stay on its page
-- (a HOT update, no new index entries) before the row is deleted: 1.8 times the drain rate of a
-- 200,000-event backlog in BENCHMARKS.md (EXP), for a table about twice as large while it is full.
CREATE TABLE IF NOT EXISTS {table} (
    {id} uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    {aggregate_type} varchar(255) NOT NULL,
    {aggregate_id} varchar(255) NOT NULL,
    {event_type} varchar(255) NOT NULL,
    event_version integer NOT NULL DEFAULT 1,
    {payload} bytea NOT NULL,
    content_type varchar(255) NOT NULL DEFAULT 'application/json',
    headers jsonb NOT NULL DEFAULT '{}',
    tenant_id varchar(255),
    destination varchar(255),
    created_at timestamptz NOT NULL DEFAULT now(),
    available_at timestamptz NOT NULL DEFAULT now(),
    status varchar(16) NOT NULL DEFAULT 'pending',
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer,
    lease_owner varchar(255),
    lease_expires_at timestamptz,
    last_error text,
    published_at timestamptz,
    CONSTRAINT {name}_status_check CHECK (status IN ('pending', 'published', 'dead'))
) WITH (fillfactor = 50);

-- What relays claim: due pending rows, oldest first.
CREATE INDEX IF NOT EXISTS {name}_due_idx ON {table} (available_at, seq) WHERE status = 'pending';

-- Ordered mode: the oldest unfinished event of an aggregate (append order is seq).
CREATE INDEX IF NOT EXISTS {name}_aggregate_idx ON {table} ({aggregate_type}, {aggregate_id}, seq)
    WHERE status <> 'published';

-- The dead listing, pages by id.
CREATE INDEX IF NOT EXISTS {name}_dead_idx ON {table} ({id}) WHERE status = 'dead';

-- Purge of retained published rows.
CREATE INDEX IF NOT EXISTS {name}_published_idx ON {table} (published_at) WHERE status = 'published';

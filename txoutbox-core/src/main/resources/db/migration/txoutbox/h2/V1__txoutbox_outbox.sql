-- txoutbox outbox table for H2 2.2 or later, for embedded use and fast tests.
CREATE TABLE IF NOT EXISTS outbox (
    id UUID PRIMARY KEY,
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    aggregate_type VARCHAR(255) NOT NULL,
    aggregate_id VARCHAR(255) NOT NULL,
    event_type VARCHAR(255) NOT NULL,
    event_version INTEGER NOT NULL DEFAULT 1,
    payload BLOB NOT NULL,
    content_type VARCHAR(255) NOT NULL DEFAULT 'application/json',
    headers CHARACTER LARGE OBJECT NOT NULL DEFAULT '{}',
    tenant_id VARCHAR(255),
    destination VARCHAR(255),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    available_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    status VARCHAR(16) NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER,
    lease_owner VARCHAR(255),
    lease_expires_at TIMESTAMP WITH TIME ZONE,
    last_error CHARACTER LARGE OBJECT,
    published_at TIMESTAMP WITH TIME ZONE,
    CONSTRAINT outbox_status_check CHECK (status IN ('pending', 'published', 'dead'))
);

CREATE INDEX IF NOT EXISTS outbox_due_idx ON outbox (status, available_at, seq);

CREATE INDEX IF NOT EXISTS outbox_aggregate_idx ON outbox (aggregate_type, aggregate_id, seq);

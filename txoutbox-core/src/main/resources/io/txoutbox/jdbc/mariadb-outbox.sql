-- txoutbox outbox table for MariaDB 10.6 or later and MySQL 8.0.13 or later (InnoDB).
-- The table is the contract: any program may insert rows; a txoutbox relay publishes them.
-- Times are UTC (DATETIME(6)); ids are UUID text, so that MariaDB and MySQL read them the same way.
CREATE TABLE IF NOT EXISTS {table} (
    {id} CHAR(36) CHARACTER SET ascii NOT NULL,
    seq BIGINT NOT NULL AUTO_INCREMENT,
    {aggregate_type} VARCHAR(255) NOT NULL,
    {aggregate_id} VARCHAR(255) NOT NULL,
    {event_type} VARCHAR(255) NOT NULL,
    event_version INT NOT NULL DEFAULT 1,
    {payload} LONGBLOB NOT NULL,
    content_type VARCHAR(255) NOT NULL DEFAULT 'application/json',
    headers LONGTEXT NOT NULL DEFAULT ('{}'),
    tenant_id VARCHAR(255),
    destination VARCHAR(255),
    created_at DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    available_at DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    status VARCHAR(16) NOT NULL DEFAULT 'pending',
    attempts INT NOT NULL DEFAULT 0,
    max_attempts INT,
    lease_owner VARCHAR(255),
    lease_expires_at DATETIME(6),
    last_error TEXT,
    published_at DATETIME(6),
    PRIMARY KEY ({id}),
    UNIQUE KEY {name}_seq_uk (seq),
    KEY {name}_due_idx (status, available_at, seq),
    KEY {name}_aggregate_idx ({aggregate_type}, {aggregate_id}, seq),
    CONSTRAINT {name}_status_check CHECK (status IN ('pending', 'published', 'dead'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

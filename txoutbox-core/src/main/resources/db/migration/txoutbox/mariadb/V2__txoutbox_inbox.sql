-- txoutbox inbox table for MariaDB 10.6 or later and MySQL 8.0.13 or later: the ids of events a
-- consumer has processed.
CREATE TABLE IF NOT EXISTS inbox (
    consumer VARCHAR(255) NOT NULL,
    event_id CHAR(36) CHARACTER SET ascii NOT NULL,
    processed_at DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    PRIMARY KEY (consumer, event_id),
    KEY inbox_processed_idx (processed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- txoutbox inbox table for PostgreSQL 14 or later: the ids of events a consumer has processed.
CREATE TABLE IF NOT EXISTS inbox (
    consumer varchar(255) NOT NULL,
    event_id uuid NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);

CREATE INDEX IF NOT EXISTS inbox_processed_idx ON inbox (processed_at);

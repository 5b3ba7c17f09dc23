-- txoutbox inbox table for H2 2.2 or later: the ids of events a consumer has processed.
CREATE TABLE IF NOT EXISTS inbox (
    consumer VARCHAR(255) NOT NULL,
    event_id UUID NOT NULL,
    processed_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (consumer, event_id)
);

CREATE INDEX IF NOT EXISTS inbox_processed_idx ON inbox (processed_at);

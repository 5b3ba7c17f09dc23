package io.txoutbox.bench;

import java.util.List;
import java.util.UUID;

/** Where the raw-SQL relay and the peer send: nowhere (no-op) or to Kafka; returns once confirmed. */
interface Sink extends AutoCloseable {
    /** One event as the raw relay read it. */
    record Event(UUID id, String aggregateId, byte[] payload) {}

    /**
     * Sends a batch and returns when every event is confirmed.
     *
     * @throws Exception when any send failed
     */
    void send(List<Event> batch) throws Exception;

    @Override
    default void close() {}

    /** Confirms at once. */
    Sink NOOP = batch -> {};
}

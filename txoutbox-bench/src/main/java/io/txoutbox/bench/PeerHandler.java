package io.txoutbox.bench;

/**
 * What the peer library (gruelbox transaction-outbox) schedules: its outbox stores a call to this
 * interface and replays it after the commit. Public because the peer proxies it.
 */
public interface PeerHandler {
    /**
     * Delivers one event.
     *
     * @param eventId the event's id (a UUID as text)
     * @param aggregateId the aggregate's id (the Kafka key)
     * @param payload the JSON payload
     * @throws IllegalStateException when the delivery failed: the peer retries it later
     */
    void handle(String eventId, String aggregateId, String payload);
}

package io.txoutbox.reliability;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * The broker of a chaos run: the relays publish to it through the test's proxy, a broker fault stops
 * and starts it, and the oracle reads back everything it stored, duplicates included.
 */
interface ChaosBroker extends AutoCloseable {
    /** One stored message: the event id from its headers, its payload, its place in the broker's order. */
    record Arrival(UUID id, String payload, long sequence) {
        /**
         * @param eventId the message's event id header, or {@code null} when it has none
         * @param payload the message's bytes, read as UTF-8
         * @param sequence its place in the broker's order
         * @return the arrival
         */
        static Arrival of(String eventId, byte[] payload, long sequence) {
            return new Arrival(
                    eventId == null ? null : UUID.fromString(eventId),
                    new String(payload, StandardCharsets.UTF_8),
                    sequence);
        }
    }

    /**
     * @param transport which broker
     * @param runId the run's unique name, for the stream or queue
     * @return a broker, not started
     */
    static ChaosBroker of(ChaosConfig.Transport transport, String runId) {
        return switch (transport) {
            case NATS -> new NatsChaosBroker(runId);
            case SQS -> new SqsChaosBroker(runId);
            case JMS -> new JmsChaosBroker(runId);
        };
    }

    /** Starts the broker and creates the stream or queue the relays publish to. */
    void start() throws Exception;

    /** @return the loopback port the test's proxy forwards to */
    int port();

    /**
     * @param proxyHost the proxy's host
     * @param proxyPort the proxy's port
     * @return the first three arguments of {@link ChaosRelayMain}: transport, target through the proxy,
     *     destination
     */
    List<String> relayTarget(String proxyHost, int proxyPort);

    /** Stops the broker; what it acknowledged must survive until {@link #startBroker()}. */
    void stopBroker();

    /** Starts it again on the same port, with what it stored. */
    void startBroker();

    /** @return every message the broker holds, in the broker's order, duplicates included */
    List<Arrival> readAll() throws Exception;

    /** Deletes what the run created and stops the broker. */
    @Override
    void close();
}

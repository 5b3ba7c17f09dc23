package io.txoutbox.test.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.TcpProxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every transport passes against its real broker. Extend it with a short subclass that
 * says how to build the publisher for a given broker address and how to read what arrived; the
 * contract puts a {@link TcpProxy} between the publisher and the broker to inject outages. The outage
 * test's outbox is in a local PostgreSQL unless the subclass gives another database ({@link
 * #outboxDataSource()}).
 *
 * <ul>
 *   <li>a batch is confirmed per event, and each event arrives with its id, headers and payload;
 *   <li>an unreachable broker yields retries, not losses, and nothing is reported published before
 *       the broker confirmed it;
 *   <li>a broker outage while a real relay is publishing loses nothing: after recovery every event is
 *       delivered.
 * </ul>
 */
public abstract class PublisherContract {
    /** How many events the outage test relays. */
    protected static final int OUTAGE_EVENTS = 300;

    private TcpProxy proxy;
    private String destination;
    // The default outboxDataSource(), a HikariDataSource; typed DataSource so that the contract loads
    // without HikariCP for a subclass that gives its own.
    private DataSource ownPool;

    /** @return where the real broker listens */
    protected abstract InetSocketAddress brokerAddress();

    /**
     * @param host the host to connect to (the proxy's)
     * @param port the port to connect to (the proxy's)
     * @return a publisher of this transport, with its default routing, connected through the proxy
     * @throws Exception when it cannot be built
     */
    protected abstract Publisher newPublisher(String host, int port) throws Exception;

    /**
     * Starts reading a destination before anything is published to it, directly from the broker (not
     * through the proxy).
     *
     * @param destination the route every test event names
     * @return a consumer of what arrives there
     * @throws Exception when it cannot subscribe
     */
    protected abstract Received subscribe(String destination) throws Exception;

    /**
     * @return the data source of a database for the outbox of the outage test. By default a pool of a
     *     local PostgreSQL, {@code jdbc:postgresql://localhost:5432/test} as {@code postgres} unless the
     *     environment variables {@code TXOUTBOX_PG_URL} and {@code TXOUTBOX_PG_USER} say otherwise, opened
     *     on the first call and closed after the test (HikariCP and the PostgreSQL driver on the test class
     *     path); a subclass that overrides this closes its own
     */
    protected DataSource outboxDataSource() {
        if (ownPool == null) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(env("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test"));
            config.setUsername(env("TXOUTBOX_PG_USER", "postgres"));
            config.setPoolName(getClass().getSimpleName());
            config.setMaximumPoolSize(6);
            config.setMinimumIdle(0);
            config.setConnectionTimeout(10_000);
            ownPool = new HikariDataSource(config);
        }
        return ownPool;
    }

    /** @return how long a confirmation may take before the contract counts the event unconfirmed */
    protected Duration confirmTimeout() {
        return Duration.ofSeconds(10);
    }

    /**
     * @return how long the contract's own reader may take to see what the broker already confirmed: a
     *     bound on the test's consumer (a group join, a poll loop on a busy machine), not on the publisher
     */
    protected Duration arrivalTimeout() {
        return Duration.ofSeconds(30);
    }

    /**
     * @return the loopback port the proxy listens on; 0 (the default) for a free one. A broker that
     *     advertises its own address to clients (Kafka) returns the port it advertises, so that its
     *     clients keep coming back through the proxy
     */
    protected int proxyPort() {
        return 0;
    }

    /** @return a destination name for one test: letters, digits and dashes, unique per test */
    protected String newDestination() {
        return "txoutbox-contract-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    /** What a subscription saw: one message per arrival, duplicates included. */
    public interface Received extends AutoCloseable {
        /** @return the messages that arrived so far */
        List<Message> messages();

        /** Stops the subscription. */
        @Override
        default void close() {}
    }

    /**
     * One message as the broker delivered it.
     *
     * @param headers its headers, as the transport mapped them (at least the {@link MessageHeaders})
     * @param payload its body
     */
    public record Message(Map<String, String> headers, byte[] payload) {
        /** @return the {@code event-id} header */
        public String eventId() {
            return headers.get(MessageHeaders.EVENT_ID);
        }
    }

    @BeforeEach
    void startProxy() throws Exception {
        InetSocketAddress broker = brokerAddress();
        proxy = new TcpProxy(proxyPort(), broker.getHostString(), broker.getPort());
        destination = newDestination();
    }

    @AfterEach
    void stopProxy() {
        proxy.close();
    }

    @AfterEach
    void closeOwnPool() {
        if (ownPool != null) {
            ((HikariDataSource) ownPool).close();
            ownPool = null;
        }
    }

    /** @return the proxy between the publisher and the broker, for extra tests of a subclass */
    protected TcpProxy proxy() {
        return proxy;
    }

    /** @return this test's destination */
    protected String destination() {
        return destination;
    }

    @Test
    void every_event_of_a_batch_is_confirmed_and_arrives_with_its_id_headers_and_payload() throws Exception {
        List<ClaimedEvent> batch = batch(20, destination);
        try (Received received = subscribe(destination);
                Publisher publisher = newPublisher(proxy.host(), proxy.port())) {
            List<PublishOutcome> outcomes = publish(publisher, batch);
            assertThat(outcomes)
                    .hasSize(batch.size())
                    .allSatisfy(o -> assertThat(o.outcome()).as("outcome %s", o).isEqualTo(Outcome.PUBLISHED));
            await().atMost(arrivalTimeout()).until(() -> ids(received).containsAll(ids(batch)));
            for (ClaimedEvent sent : batch) {
                Message got = received.messages().stream()
                        .filter(m -> sent.id().toString().equals(m.eventId()))
                        .findFirst()
                        .orElseThrow();
                assertThat(got.payload()).isEqualTo(sent.payload());
                assertThat(got.headers())
                        .containsEntry(MessageHeaders.EVENT_TYPE, sent.eventType())
                        .containsEntry(MessageHeaders.AGGREGATE_TYPE, sent.aggregateType())
                        .containsEntry(MessageHeaders.AGGREGATE_ID, sent.aggregateId())
                        .containsEntry(MessageHeaders.EVENT_VERSION, "1")
                        .containsEntry(MessageHeaders.TENANT_ID, "tenant-1")
                        .containsEntry(MessageHeaders.CORRELATION_ID, "corr-" + sent.aggregateId())
                        .containsEntry(MessageHeaders.TRACEPARENT, sent.traceparent())
                        .containsEntry(MessageHeaders.CONTENT_TYPE, "application/json");
            }
        }
    }

    @Test
    void an_unreachable_broker_yields_retries_not_losses_and_nothing_is_published_before_confirmation()
            throws Exception {
        List<ClaimedEvent> batch = batch(5, destination);
        try (Received received = subscribe(destination);
                Publisher publisher = newPublisher(proxy.host(), proxy.port())) {
            assertThat(publish(publisher, batch(1, destination)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            proxy.cut();
            List<PublishOutcome> whileDown = publishOrTimeOut(publisher, batch);
            assertThat(whileDown)
                    .as("nothing may count as published while the broker is unreachable")
                    .noneMatch(o -> o.outcome() == Outcome.PUBLISHED);
            assertThat(whileDown)
                    .as("an outage is transient: retry, never dead")
                    .allMatch(o -> o.outcome() == Outcome.RETRY);
            proxy.restore();
            await().atMost(confirmTimeout().multipliedBy(3))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> publishOrTimeOut(publisher, batch).stream()
                            .allMatch(o -> o.outcome() == Outcome.PUBLISHED));
            await().atMost(arrivalTimeout()).until(() -> ids(received).containsAll(ids(batch)));
        }
    }

    @Test
    void a_broker_outage_while_a_relay_publishes_loses_nothing() throws Exception {
        DataSource dataSource = outboxDataSource();
        String table =
                "contract_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFL);
        Outbox outbox = Outbox.builder(dataSource)
                .table(table)
                .createSchemaIfMissing(true)
                .build();
        Set<String> appended = new HashSet<>();
        try (Received received = subscribe(destination);
                Publisher publisher = newPublisher(proxy.host(), proxy.port());
                Relay relay = outbox.relay(publisher)
                        .name("contract")
                        .batchSize(50)
                        .publishTimeout(Duration.ofSeconds(3))
                        .leaseDuration(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(200))
                        .backoff(new Backoff(Duration.ofMillis(100), 2.0, Duration.ofSeconds(1), true))
                        .maxAttempts(1_000)
                        .build()) {
            relay.start();
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < OUTAGE_EVENTS / 3; i++) {
                    String aggregate = "agg-" + (i % 30);
                    OutboxEvent event = OutboxEvent.builder("contract.tested")
                            .aggregate("contract", aggregate)
                            .jsonPayload("{\"n\":" + (round * 1000 + i) + "}")
                            .destination(destination)
                            .build();
                    outbox.inTransaction(c -> outbox.append(c, event));
                    appended.add(event.id().toString());
                }
                outbox.committed();
                if (round == 0) {
                    await().atMost(arrivalTimeout())
                            .until(() -> !received.messages().isEmpty());
                    proxy.cut();
                } else if (round == 1) {
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> relay.metrics().retried() > 0);
                    proxy.restore();
                }
            }
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> ids(received).containsAll(appended));
            assertThat(ids(received)).as("nothing invented").isSubsetOf(appended);
        } finally {
            try (Connection c = dataSource.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
                st.execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
            }
        }
    }

    /** Publishes and waits up to the confirm timeout; a failed or late stage means every event retries. */
    protected List<PublishOutcome> publishOrTimeOut(Publisher publisher, List<ClaimedEvent> batch) {
        try {
            return Publishing.publish(publisher, batch, confirmTimeout());
        } catch (TimeoutException | ExecutionException e) {
            List<PublishOutcome> retries = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                retries.add(PublishOutcome.retry("not confirmed: " + e));
            }
            return retries;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Publishes and waits up to the confirm timeout, failing the test if the stage fails. */
    protected List<PublishOutcome> publish(Publisher publisher, List<ClaimedEvent> batch) throws Exception {
        return Publishing.publish(publisher, batch, confirmTimeout());
    }

    /**
     * @param n how many events
     * @param destination the destination each names
     * @return a batch as a relay would claim it: two aggregates, JSON payloads, the usual headers
     */
    protected static List<ClaimedEvent> batch(int n, String destination) {
        List<ClaimedEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String aggregate = "agg-" + (i % 2);
            UUID id = UUID.randomUUID();
            batch.add(new ClaimedEvent(
                    id,
                    "contract",
                    aggregate,
                    "contract.tested",
                    1,
                    ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                    "application/json",
                    Map.of(
                            MessageHeaders.CORRELATION_ID,
                            "corr-" + aggregate,
                            MessageHeaders.TRACEPARENT,
                            "00-" + id.toString().replace("-", "") + "-00f067aa0ba902b7-01"),
                    "tenant-1",
                    destination,
                    Instant.now(),
                    1,
                    null));
        }
        return batch;
    }

    /** An environment variable, or {@code fallback} when it is unset or blank. */
    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static Set<String> ids(Received received) {
        Set<String> ids = new HashSet<>();
        for (Message m : received.messages()) {
            ids.add(m.eventId());
        }
        return ids;
    }

    private static Set<String> ids(List<ClaimedEvent> batch) {
        Set<String> ids = new HashSet<>();
        for (ClaimedEvent e : batch) {
            ids.add(e.id().toString());
        }
        return ids;
    }
}

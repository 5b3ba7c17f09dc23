package io.txoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A relay built from txoutbox's JDBC store on an in-memory H2, without an outbox: the claim, publish and
 * mark path against a real database, fast. The contracts in integration-tests run the same guarantees on
 * PostgreSQL, MariaDB and H2 through the outbox.
 */
class RelayOnH2Test {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private final JdbcDataSource dataSource = new JdbcDataSource();
    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final InstantSource clock = now::get;
    private OutboxStore store;

    @BeforeEach
    void createTable() {
        dataSource.setURL("jdbc:h2:mem:relay_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ";DB_CLOSE_DELAY=-1");
        store = Outbox.builder(dataSource)
                .dialect(Dialect.H2)
                .table("outbox")
                .createSchemaIfMissing(true)
                .buildStore();
    }

    @AfterEach
    void dropDatabase() throws SQLException {
        store.close();
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP ALL OBJECTS");
        }
    }

    private UUID append(String type) throws SQLException {
        OutboxEvent event = OutboxEvent.builder(type)
                .aggregate("order", "o-1")
                .jsonPayload("{}")
                .build();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            store.append(c, List.of(event), clock.instant());
            c.commit();
        }
        return event.id();
    }

    private String column(UUID id, String column) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM outbox WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "(no row)";
            }
        }
    }

    private static Publisher answering(PublishOutcome outcome) {
        return batch -> CompletableFuture.completedFuture(Collections.nCopies(batch.size(), outcome));
    }

    @Test
    void a_relay_built_from_the_store_publishes_what_was_appended_and_deletes_it() throws SQLException {
        UUID id = append("order.placed");
        List<UUID> published = new java.util.concurrent.CopyOnWriteArrayList<>();
        Publisher recording = batch -> {
            batch.forEach(e -> published.add(e.id()));
            return CompletableFuture.completedFuture(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
        };
        try (Relay relay = Relay.builder(store, clock, recording).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(relay.runOnce()).isZero();
        }
        assertThat(published).containsExactly(id);
        assertThat(column(id, "status")).isEqualTo("(no row)");
    }

    @Test
    void a_retried_event_waits_for_its_backoff_on_the_relay_clock_then_goes_dead_on_its_last_attempt()
            throws SQLException {
        UUID id = append("order.placed");
        Backoff minute = new Backoff(Duration.ofMinutes(1), 1.0, Duration.ofMinutes(1), false);
        try (Relay relay = Relay.builder(store, clock, answering(PublishOutcome.retry("broker down")))
                .backoff(minute)
                .maxAttempts(2)
                .build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(column(id, "status")).isEqualTo("pending");
            assertThat(relay.runOnce()).as("not due before its backoff").isZero();
            now.set(T0.plus(Duration.ofMinutes(1)));
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(relay.metrics()).isEqualTo(new RelayMetrics(2, 0, 1, 1, 0, 0));
        }
        assertThat(column(id, "status")).isEqualTo("dead");
        assertThat(column(id, "last_error")).isEqualTo("gave up after 2 attempts; last error: broker down");
        assertThat(column(id, "attempts")).isEqualTo("2");
    }

    @Test
    void a_mark_after_another_relay_took_the_lease_over_is_fenced_on_the_database() throws SQLException {
        UUID id = append("order.placed");
        // While the broker confirms, another relay takes the row over (as after an expired lease).
        Publisher stalled = batch -> {
            try (Connection c = dataSource.getConnection();
                    Statement st = c.createStatement()) {
                st.executeUpdate("UPDATE outbox SET lease_owner = 'another-relay'");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return CompletableFuture.completedFuture(List.of(PublishOutcome.PUBLISHED));
        };
        try (Relay relay = Relay.builder(store, clock, stalled).build()) {
            relay.runOnce();
            assertThat(relay.metrics().fenced()).isEqualTo(1);
            assertThat(relay.metrics().published()).isZero();
        }
        assertThat(column(id, "lease_owner"))
                .as("the new owner's row, untouched")
                .isEqualTo("another-relay");
        assertThat(column(id, "status")).isEqualTo("pending");
    }

    @Test
    void stop_returns_the_leases_still_held_without_counting_the_attempt() throws SQLException {
        UUID id = append("order.placed");
        CompletableFuture<List<PublishOutcome>> never = new CompletableFuture<>();
        Relay relay = Relay.builder(store, clock, batch -> never)
                .publishTimeout(Duration.ofMillis(200))
                .leaseDuration(Duration.ofMinutes(5))
                .build();
        // Claimed directly with the relay's owner, as a crash between claim and mark would leave it.
        store.claim(relay.owner(), 10, Duration.ofMinutes(5), clock.instant());
        assertThat(column(id, "lease_owner")).isEqualTo(relay.owner());
        relay.stop();
        assertThat(column(id, "lease_owner")).isNull();
        assertThat(column(id, "attempts")).isEqualTo("0");
    }
}

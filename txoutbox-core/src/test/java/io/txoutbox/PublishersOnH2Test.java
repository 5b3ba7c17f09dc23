package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Publishers#byEventType} under a real relay on H2: a route's events are marked when that route
 * confirms, the relay claims on while a slow route's part is out, and only a bounded number of batches
 * wait for the slow route at once.
 */
class PublishersOnH2Test {
    private final JdbcDataSource dataSource = new JdbcDataSource();

    /** Confirms at once, remembering what it published. */
    private final List<UUID> fastPublished = new CopyOnWriteArrayList<>();

    private final Publisher fast = batch -> {
        batch.forEach(e -> fastPublished.add(e.id()));
        return CompletableFuture.completedFuture(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
    };

    /** Answers only when the test says so. */
    private final List<CompletableFuture<List<PublishOutcome>>> held = new CopyOnWriteArrayList<>();

    private final List<Integer> heldSizes = new CopyOnWriteArrayList<>();

    private final Publisher slow = batch -> {
        CompletableFuture<List<PublishOutcome>> f = new CompletableFuture<>();
        heldSizes.add(batch.size());
        held.add(f);
        return f;
    };

    @BeforeEach
    void database() {
        dataSource.setURL("jdbc:h2:mem:routes_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ";DB_CLOSE_DELAY=-1");
    }

    @AfterEach
    void drop() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP ALL OBJECTS");
        }
    }

    private OutboxStore store() {
        return Outbox.builder(dataSource)
                .dialect(Dialect.H2)
                .table("outbox")
                .createSchemaIfMissing(true)
                .buildStore();
    }

    /** Appends {@code pairs} transactions of one fast and one slow event each. */
    private List<UUID> appendPairs(OutboxStore store, int pairs, boolean withSlow) throws SQLException {
        List<UUID> fastIds = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < pairs; i++) {
                List<OutboxEvent> events = new ArrayList<>();
                OutboxEvent f = OutboxEvent.builder("fast.placed")
                        .aggregate("a", "f-" + i)
                        .jsonPayload("{}")
                        .build();
                events.add(f);
                fastIds.add(f.id());
                if (withSlow) {
                    events.add(OutboxEvent.builder("slow.placed")
                            .aggregate("a", "s-" + i)
                            .jsonPayload("{}")
                            .build());
                }
                store.append(c, events, InstantSource.system().instant());
                c.commit();
            }
        }
        return fastIds;
    }

    private long count(String where) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM outbox WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s");
            }
            Thread.sleep(10);
        }
    }

    private long countUnchecked(String where) {
        try {
            return count(where);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void answerAll() {
        for (int i = 0; i < held.size(); i++) {
            held.get(i).complete(Collections.nCopies(heldSizes.get(i), PublishOutcome.PUBLISHED));
        }
    }

    @Test
    void a_route_is_marked_when_it_confirms_and_the_relay_claims_on_while_a_slow_route_is_out() throws Exception {
        try (OutboxStore store = store();
                Publisher routed = Publishers.byEventType(Map.of("fast.*", fast, "slow.*", slow));
                Relay relay = Relay.builder(store, InstantSource.system(), routed)
                        .batchSize(100)
                        .build()) {
            List<UUID> first = appendPairs(store, 5, true);
            relay.start();
            await(() -> countUnchecked("event_type = 'fast.placed'") == 0);
            assertThat(count("event_type = 'slow.placed' AND status = 'pending'"))
                    .isEqualTo(5);
            assertThat(held).hasSize(1);

            // The batch whose slow part is still out no longer holds the relay's one slot.
            List<UUID> second = appendPairs(store, 5, false);
            await(() -> countUnchecked("event_type = 'fast.placed'") == 0);
            assertThat(held).hasSize(1);

            answerAll();
            await(() -> countUnchecked("1 = 1") == 0);
            List<UUID> all = new ArrayList<>(first);
            all.addAll(second);
            assertThat(fastPublished).containsExactlyInAnyOrderElementsOf(all);
        }
    }

    @Test
    void only_a_bounded_number_of_batches_wait_for_a_slow_route_at_once() throws Exception {
        try (OutboxStore store = store();
                Publisher routed = Publishers.byEventType(Map.of("fast.*", fast, "slow.*", slow));
                Relay relay = Relay.builder(store, InstantSource.system(), routed)
                        .batchSize(2)
                        .maxInFlightBatches(1)
                        .build()) {
            appendPairs(store, 40, true); // 40 batches of one fast and one slow event
            relay.start();
            // 32 batches detached and a 33rd holding the relay's slot: the relay claims no further.
            await(() -> held.size() == 33);
            assertThat(count("attempts = 0")).isEqualTo(2 * (40 - 33));
            answerAll();
            await(() -> held.size() == 40);
            answerAll();
            await(() -> countUnchecked("1 = 1") == 0);
            assertThat(fastPublished).hasSize(40).doesNotHaveDuplicates();
        }
    }

    @Test
    void an_exact_type_beats_the_longest_prefix_which_beats_the_wildcard_and_an_unrouted_event_is_dead() {
        EventTypeRoutes routes =
                new EventTypeRoutes(Map.of("order.*", fast, "order.placed.*", fast, "order.paid", fast));
        assertThat(routes.route("order.paid")).isEqualTo("order.paid");
        assertThat(routes.route("order.placed.eu")).isEqualTo("order.placed.*");
        assertThat(routes.route("order.shipped")).isEqualTo("order.*");
        assertThat(routes.route("invoice.sent")).isNull();
        assertThat(new EventTypeRoutes(Map.of("*", fast, "order.*", slow)).route("invoice.sent"))
                .isEqualTo("*");
        assertThatThrownBy(() -> Publishers.byEventType(Map.of("or*der", fast)))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("'or*der'");
        assertThatThrownBy(() -> Publishers.byEventType(Map.of()))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("routes is empty");
    }

    @Test
    void an_event_no_route_takes_is_dead_naming_the_routes() {
        Publisher routed = Publishers.byEventType(Map.of("order.*", fast));
        ClaimedEvent e = new ClaimedEvent(
                UUID.randomUUID(),
                "invoice",
                "i-1",
                "invoice.sent",
                1,
                new byte[0],
                null,
                Map.of(),
                null,
                null,
                java.time.Instant.now(),
                1,
                null);
        assertThat(routed.publish(List.of(e)).toCompletableFuture().join())
                .singleElement()
                .satisfies(o -> assertThat(o.reason()).contains("invoice.sent").contains("order.*"));
    }
}

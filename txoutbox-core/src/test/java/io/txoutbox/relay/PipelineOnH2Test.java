package io.txoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxValidationException;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pipelining on a real database (H2): while a slow broker confirms batches, the relay claims the next
 * ones, never more than {@code maxInFlightBatches} at once; every event is published once and marked;
 * in ordered mode an aggregate never has two events in flight and keeps its order; a stopping relay
 * marks the batches it has in flight before it returns its leases.
 */
class PipelineOnH2Test {
    private final JdbcDataSource dataSource = new JdbcDataSource();
    private final ScheduledExecutorService broker = Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void database() {
        dataSource.setURL("jdbc:h2:mem:pipeline_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ";DB_CLOSE_DELAY=-1");
    }

    @AfterEach
    void drop() throws SQLException {
        broker.shutdownNow();
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP ALL OBJECTS");
        }
    }

    /** A broker that confirms each batch after a delay, and watches what is in flight. */
    private final class SlowBroker implements Publisher {
        final List<UUID> published = new CopyOnWriteArrayList<>();
        final List<String> violations = new CopyOnWriteArrayList<>();
        private final Set<String> aggregatesInFlight = new HashSet<>();
        private final Map<String, List<UUID>> order = new HashMap<>();
        private int batchesInFlight;
        int mostBatchesInFlight;

        @Override
        public synchronized CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
            batchesInFlight++;
            mostBatchesInFlight = Math.max(mostBatchesInFlight, batchesInFlight);
            for (ClaimedEvent e : batch) {
                if (!aggregatesInFlight.add(e.aggregateId())) {
                    violations.add("two events of " + e.aggregateId() + " in flight");
                }
                order.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>()).add(e.id());
            }
            CompletableFuture<List<PublishOutcome>> done = new CompletableFuture<>();
            broker.schedule(
                    () -> {
                        synchronized (this) {
                            batchesInFlight--;
                            for (ClaimedEvent e : batch) {
                                aggregatesInFlight.remove(e.aggregateId());
                                published.add(e.id());
                            }
                        }
                        done.complete(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
                    },
                    50,
                    TimeUnit.MILLISECONDS);
            return done;
        }

        synchronized List<UUID> orderOf(String aggregateId) {
            return List.copyOf(order.getOrDefault(aggregateId, List.of()));
        }
    }

    private OutboxStore store(DeadHeadPolicy ordered) {
        Outbox.Builder b =
                Outbox.builder(dataSource).dialect(Dialect.H2).table("outbox").createSchemaIfMissing(true);
        return (ordered == null ? b : b.ordered(ordered)).buildStore();
    }

    private Map<String, List<UUID>> append(OutboxStore store, int aggregates, int perAggregate) throws SQLException {
        Map<String, List<UUID>> ids = new HashMap<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            for (int n = 0; n < perAggregate; n++) {
                List<OutboxEvent> events = new ArrayList<>();
                for (int a = 0; a < aggregates; a++) {
                    OutboxEvent e = OutboxEvent.builder("order.placed")
                            .aggregate("order", "o-" + a)
                            .jsonPayload("{}")
                            .build();
                    events.add(e);
                    ids.computeIfAbsent("o-" + a, k -> new ArrayList<>()).add(e.id());
                }
                store.append(c, events, InstantSource.system().instant());
                c.commit();
            }
        }
        return ids;
    }

    private long count(String where) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM outbox WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void awaitPublished(SlowBroker to, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (to.published.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    @Test
    void a_slow_broker_has_several_batches_in_flight_never_more_than_the_bound_and_each_event_once() throws Exception {
        try (OutboxStore store = store(null)) {
            Map<String, List<UUID>> appended = append(store, 50, 8); // 400 events, 40 batches of 10
            SlowBroker to = new SlowBroker();
            try (Relay relay = Relay.builder(store, InstantSource.system(), to)
                    .batchSize(10)
                    .maxInFlightBatches(3)
                    .build()) {
                relay.start();
                awaitPublished(to, 400);
            }
            assertThat(to.published).hasSize(400).doesNotHaveDuplicates();
            assertThat(to.published)
                    .containsExactlyInAnyOrderElementsOf(
                            appended.values().stream().flatMap(List::stream).toList());
            assertThat(to.mostBatchesInFlight).as("pipelined").isGreaterThan(1).isLessThanOrEqualTo(3);
            assertThat(count("1 = 1"))
                    .as("every published row marked and deleted")
                    .isZero();
        }
    }

    @Test
    void ordered_mode_with_pipelining_never_has_two_events_of_an_aggregate_in_flight_and_keeps_their_order()
            throws Exception {
        try (OutboxStore store = store(DeadHeadPolicy.BLOCK)) {
            Map<String, List<UUID>> appended = append(store, 20, 10); // 200 events, 20 heads at a time
            SlowBroker to = new SlowBroker();
            try (Relay relay = Relay.builder(store, InstantSource.system(), to)
                    .batchSize(5)
                    .maxInFlightBatches(4)
                    .build()) {
                relay.start();
                awaitPublished(to, 200);
            }
            assertThat(to.violations).isEmpty();
            assertThat(to.mostBatchesInFlight).as("pipelined").isGreaterThan(1);
            for (Map.Entry<String, List<UUID>> aggregate : appended.entrySet()) {
                assertThat(to.orderOf(aggregate.getKey())).containsExactlyElementsOf(aggregate.getValue());
            }
            assertThat(count("1 = 1")).isZero();
        }
    }

    @Test
    void a_stopping_relay_marks_its_batches_in_flight_before_it_returns() throws Exception {
        try (OutboxStore store = store(null)) {
            append(store, 100, 10); // 1,000 events
            SlowBroker to = new SlowBroker();
            Relay relay = Relay.builder(store, InstantSource.system(), to)
                    .batchSize(10)
                    .maxInFlightBatches(4)
                    .build();
            relay.start();
            awaitPublished(to, 100);
            relay.stop();
            int published = to.published.size();
            assertThat(published).isLessThan(1_000);
            assertThat(count("lease_owner IS NOT NULL"))
                    .as("no lease left behind")
                    .isZero();
            assertThat(count("1 = 1")).as("what was confirmed was marked").isEqualTo(1_000 - published);
            assertThat(to.published).doesNotHaveDuplicates();
        }
    }

    @Test
    void the_bound_is_checked_naming_the_setting() {
        for (int bad : new int[] {0, 17}) {
            assertThatThrownBy(() -> Relay.settings().maxInFlightBatches(bad).validate())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageContaining("Relay.Builder.maxInFlightBatches")
                    .hasMessageContaining(String.valueOf(bad));
        }
    }
}

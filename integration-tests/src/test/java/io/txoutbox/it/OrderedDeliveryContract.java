package io.txoutbox.it;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStats;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Ordered mode: the events of one aggregate are published in append order, across relays, kills and
 * restarts, because a relay only claims the oldest unfinished event of an aggregate, read from the
 * table. A failing head holds back its own aggregate only.
 */
abstract class OrderedDeliveryContract extends DatabaseTest {
    private static final int AGGREGATES = 200;
    private static final int PER_AGGREGATE = 50;

    @Test
    void three_relays_with_flaky_publishes_and_a_killed_relay_deliver_every_aggregate_in_append_order()
            throws Exception {
        Outbox outbox = outboxBuilder().ordered(DeadHeadPolicy.BLOCK).build();
        String broker = newTable();
        BrokerTable.create(this, database(), broker);
        List<Relay> relays = new ArrayList<>();
        Process child = startChild(outbox.table(), broker, 1);
        Process restarted = null;
        try {
            for (int i = 0; i < 2; i++) {
                relays.add(OrderedRelayMain.relay(
                        outbox, new BrokerTable(dataSource(), broker, 0.1, 100 + i), "ordered-" + i));
            }
            relays.forEach(Relay::start);
            for (int n = 0; n < PER_AGGREGATE; n++) {
                List<OutboxEvent> round = new ArrayList<>();
                for (int a = 0; a < AGGREGATES; a++) {
                    round.add(OutboxEvent.builder("seq.tested")
                            .aggregate("account", "acc-" + a)
                            .jsonPayload(Integer.toString(n))
                            .build());
                    if (round.size() == 50) {
                        List<OutboxEvent> tx = List.copyOf(round);
                        outbox.inTransaction(c -> outbox.appendAll(c, tx));
                        round.clear();
                    }
                }
                if (n == PER_AGGREGATE / 3) {
                    // Kill the child relay mid-run (SIGKILL: no stop, no lease return) and start another.
                    await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM " + broker) > 1_000);
                    child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    restarted = startChild(outbox.table(), broker, 2);
                }
            }
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> rows(outbox) == 0);
        } finally {
            relays.forEach(Relay::stop);
            child.destroyForcibly();
            if (restarted != null) {
                restarted.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        Map<String, List<String>> arrivals = BrokerTable.arrivals(dataSource(), broker);
        assertThat(arrivals).hasSize(AGGREGATES);
        List<String> appendOrder = new ArrayList<>();
        for (int n = 0; n < PER_AGGREGATE; n++) {
            appendOrder.add(Integer.toString(n));
        }
        arrivals.forEach((aggregate, payloads) -> assertThat(new ArrayList<>(new LinkedHashSet<>(payloads)))
                .as("first arrivals of %s", aggregate)
                .containsExactlyElementsOf(appendOrder));
        for (Relay relay : relays) {
            assertThat(relay.metrics().retried()).as("flaky publishes happened").isPositive();
        }
    }

    @Test
    void one_claim_takes_only_the_head_of_each_aggregate() {
        Outbox outbox = outboxBuilder().ordered(DeadHeadPolicy.BLOCK).build();
        for (int n = 0; n < 3; n++) {
            appendCommitted(outbox, event("step", "a"), event("step", "b"));
        }
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.runOnce()).isZero();
        }
        assertThat(broker.published()).hasSize(6);
    }

    @Test
    void a_retrying_head_holds_back_its_own_aggregate_only() {
        SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        Outbox outbox =
                outboxBuilder().clock(clock).ordered(DeadHeadPolicy.BLOCK).build();
        List<OutboxEvent> stuck = new ArrayList<>();
        for (int n = 0; n < 5; n++) {
            stuck.add(appendCommitted(outbox, numbered("stuck", n)).get(0));
            appendCommitted(outbox, numbered("fast-1", n), numbered("fast-2", n));
        }
        RecordingPublisher broker = new RecordingPublisher()
                .answer(e -> e.aggregateId().equals("stuck")
                        ? PublishOutcome.retry("downstream refuses")
                        : PublishOutcome.PUBLISHED);
        try (Relay relay = outbox.relay(broker).maxAttempts(100).build()) {
            for (int i = 0; i < 12; i++) {
                relay.runOnce();
                clock.advance(Duration.ofMinutes(10));
            }
        }
        assertThat(payloads(broker.publishedOfAggregate("fast-1"))).containsExactly("0", "1", "2", "3", "4");
        assertThat(payloads(broker.publishedOfAggregate("fast-2"))).containsExactly("0", "1", "2", "3", "4");
        assertThat(broker.attempts())
                .filteredOn(e -> e.aggregateId().equals("stuck"))
                .as("only the head of the stuck aggregate is ever tried")
                .allSatisfy(e -> assertThat(e.id()).isEqualTo(stuck.get(0).id()))
                .hasSizeGreaterThan(5);
    }

    @Test
    void an_idle_ordered_relay_does_not_count_events_held_back_behind_a_retrying_head_as_due() {
        SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        Outbox.Builder ordered = outboxBuilder().clock(clock).ordered(DeadHeadPolicy.BLOCK);
        try (OutboxStore store = ordered.buildStore();
                Outbox outbox = ordered.build()) {
            appendCommitted(outbox, numbered("held", 0), numbered("held", 1));
            RecordingPublisher broker = new RecordingPublisher().answer(e -> PublishOutcome.retry("later"));
            try (Relay relay = Relay.builder(store, clock, broker)
                    .backoff(new Backoff(Duration.ofMinutes(1), 2.0, Duration.ofMinutes(1), false))
                    .build()) {
                relay.runOnce();
            }
            assertThat(store.nextDueAt())
                    .as("the head's retry time, not the successor's (already past) available time")
                    .contains(Instant.parse("2030-01-01T00:01:00Z"));
        }
    }

    @Test
    void a_dead_head_blocks_its_aggregate_by_default_shows_in_stats_and_revive_releases_it_in_order() {
        Outbox outbox = outboxBuilder().ordered(DeadHeadPolicy.BLOCK).build();
        for (int n = 0; n < 3; n++) {
            appendCommitted(outbox, numbered("blocked", n), numbered("free", n));
        }
        RecordingPublisher broker = new RecordingPublisher()
                .answer(e ->
                        e.aggregateId().equals("blocked") && e.payloadAsString().equals("0")
                                ? PublishOutcome.dead("poison")
                                : PublishOutcome.PUBLISHED);
        try (Relay relay = outbox.relay(broker).build()) {
            for (int i = 0; i < 5; i++) {
                relay.runOnce();
            }
            assertThat(payloads(broker.publishedOfAggregate("free"))).containsExactly("0", "1", "2");
            assertThat(broker.publishedOfAggregate("blocked")).isEmpty();
            OutboxStats stats = outbox.admin().stats();
            assertThat(stats.dead()).isEqualTo(1);
            assertThat(stats.blockedAggregates()).isEqualTo(1);
            assertThat(stats.blockedEvents()).isEqualTo(2);
            assertThat(outbox.admin().dead(DeadQuery.first(10))).singleElement().satisfies(d -> assertThat(d.heldBack())
                    .isEqualTo(2));

            broker.answer(e -> PublishOutcome.PUBLISHED);
            assertThat(outbox.admin().revive(DeadSelector.all())).isEqualTo(1);
            for (int i = 0; i < 4; i++) {
                relay.runOnce();
            }
        }
        assertThat(payloads(broker.publishedOfAggregate("blocked"))).containsExactly("0", "1", "2");
        assertThat(outbox.admin().stats().blockedAggregates()).isZero();
        assertThatOutbox(outbox).isDrained();
    }

    @Test
    void deleting_a_dead_head_releases_the_aggregate() {
        Outbox outbox = outboxBuilder().ordered(DeadHeadPolicy.BLOCK).build();
        appendCommitted(outbox, numbered("a", 0), numbered("a", 1));
        RecordingPublisher broker = new RecordingPublisher()
                .answer(e -> e.payloadAsString().equals("0") ? PublishOutcome.dead("bad") : PublishOutcome.PUBLISHED);
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
            assertThat(relay.runOnce()).isZero();
            List<DeadEvent> dead = outbox.admin().dead(DeadQuery.first(10));
            assertThat(outbox.admin()
                            .deleteDead(DeadSelector.ids(List.of(dead.get(0).id()))))
                    .isEqualTo(1);
            assertThat(relay.runOnce()).isEqualTo(1);
        }
        assertThat(payloads(broker.publishedOfAggregate("a"))).containsExactly("1");
    }

    @Test
    void skip_policy_publishes_past_a_dead_head_and_reports_nothing_blocked() {
        Outbox outbox = outboxBuilder().ordered(DeadHeadPolicy.SKIP).build();
        for (int n = 0; n < 3; n++) {
            appendCommitted(outbox, numbered("skipping", n));
        }
        RecordingPublisher broker = new RecordingPublisher()
                .answer(e ->
                        e.payloadAsString().equals("0") ? PublishOutcome.dead("poison") : PublishOutcome.PUBLISHED);
        try (Relay relay = outbox.relay(broker).build()) {
            for (int i = 0; i < 4; i++) {
                relay.runOnce();
            }
        }
        assertThat(payloads(broker.publishedOfAggregate("skipping"))).containsExactly("1", "2");
        OutboxStats stats = outbox.admin().stats();
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.blockedAggregates()).isZero();
        assertThat(outbox.admin().dead(DeadQuery.first(10)).get(0).heldBack()).isZero();
    }

    /**
     * Pipelining in ordered mode: the relay claims while earlier batches are still unconfirmed (each batch is
     * held until the next one arrives, or a second passes), and no aggregate ever has two events in flight, so
     * each one's events arrive in append order.
     */
    @Test
    void a_pipelined_ordered_relay_never_has_two_events_of_one_aggregate_in_flight() {
        Outbox outbox = outboxBuilder().ordered(DeadHeadPolicy.BLOCK).build();
        int aggregates = 10;
        int perAggregate = 6;
        List<OutboxEvent> events = new ArrayList<>();
        for (int n = 0; n < perAggregate; n++) {
            for (int a = 0; a < aggregates; a++) {
                events.add(numbered("p-" + a, n));
            }
        }
        outbox.inTransaction(c -> outbox.appendAll(c, events));
        HoldingPublisher broker = new HoldingPublisher();
        try (Relay relay =
                outbox.relay(broker).batchSize(4).maxInFlightBatches(4).build()) {
            relay.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> rows(outbox) == 0);
        }
        assertThat(broker.overlaps)
                .as("events of one aggregate in flight at once")
                .isEmpty();
        assertThat(broker.mostInFlight).as("batches in flight at once").isGreaterThan(1);
        List<String> appendOrder = new ArrayList<>();
        for (int n = 0; n < perAggregate; n++) {
            appendOrder.add(Integer.toString(n));
        }
        for (int a = 0; a < aggregates; a++) {
            assertThat(broker.arrivals.get("p-" + a)).as("arrivals of p-%d", a).containsExactlyElementsOf(appendOrder);
        }
    }

    /**
     * Confirms each batch only when the next batch arrives (or after a second), so that a pipelining relay
     * has several in flight; records which aggregates are in flight and what arrived, in order.
     */
    private static final class HoldingPublisher implements io.txoutbox.spi.Publisher {
        private final Map<String, List<String>> arrivals = new java.util.HashMap<>();
        private final java.util.Set<String> inFlight = new java.util.HashSet<>();
        private final List<String> overlaps = new ArrayList<>();
        private final java.util.ArrayDeque<Runnable> held = new java.util.ArrayDeque<>();
        private int mostInFlight;

        @Override
        public java.util.concurrent.CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
            java.util.concurrent.CompletableFuture<List<PublishOutcome>> done =
                    new java.util.concurrent.CompletableFuture<>();
            Runnable confirm = () -> {
                synchronized (this) {
                    batch.forEach(e -> inFlight.remove(e.aggregateId()));
                }
                done.complete(java.util.Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
            };
            List<Runnable> release;
            synchronized (this) {
                for (ClaimedEvent e : batch) {
                    if (!inFlight.add(e.aggregateId())) {
                        overlaps.add(e.aggregateId() + " " + e.payloadAsString());
                    }
                    arrivals.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>())
                            .add(e.payloadAsString());
                }
                mostInFlight = Math.max(mostInFlight, held.size() + 1);
                release = new ArrayList<>(held);
                held.clear();
                held.add(confirm);
            }
            release.forEach(Runnable::run);
            java.util.concurrent.CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS)
                    .execute(() -> {
                        synchronized (this) {
                            if (!held.remove(confirm)) {
                                return;
                            }
                        }
                        confirm.run();
                    });
            return done;
        }
    }

    private static OutboxEvent numbered(String aggregate, int n) {
        return OutboxEvent.builder("step")
                .aggregate("account", aggregate)
                .jsonPayload(Integer.toString(n))
                .build();
    }

    private static List<String> payloads(List<ClaimedEvent> events) {
        return events.stream().map(ClaimedEvent::payloadAsString).toList();
    }

    private Process startChild(String table, String broker, int seed) throws Exception {
        return ChildJvm.start(
                List.of(), OrderedRelayMain.class, database().name(), table, broker, Integer.toString(seed));
    }
}

package io.txoutbox.it;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxStats;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Acceptance 10: stats, dead listing, revive, delete, purge and pause/resume behave as documented. */
abstract class OperationsContract extends DatabaseTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void stats_count_pending_in_flight_retrying_dead_and_oldest_age_per_type() throws Exception {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = outboxBuilder().clock(clock).build();
        appendCommitted(outbox, event("order.placed", "1"), event("order.placed", "2"));
        clock.advance(Duration.ofSeconds(30));
        appendCommitted(outbox, event("order.paid", "1"));
        clock.advance(Duration.ofSeconds(30));

        OutboxStats stats = outbox.admin().stats();
        assertThat(stats.pending()).isEqualTo(3);
        assertThat(stats.oldestPendingAge()).isEqualTo(Duration.ofMinutes(1));
        assertThat(stats.byType()).containsOnlyKeys("order.placed", "order.paid");
        assertThat(stats.byType().get("order.placed").pending()).isEqualTo(2);

        RecordingPublisher broker = new RecordingPublisher()
                .answer(e -> e.aggregateId().equals("1") && e.eventType().equals("order.placed")
                        ? PublishOutcome.dead("unroutable")
                        : e.eventType().equals("order.paid")
                                ? PublishOutcome.retry("timeout")
                                : PublishOutcome.PUBLISHED);
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        stats = outbox.admin().stats();
        assertThat(stats.pending()).isEqualTo(1);
        assertThat(stats.retrying()).isEqualTo(1);
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.inFlight()).isZero();
        assertThat(stats.byType().get("order.placed").dead()).isEqualTo(1);
        assertThat(stats.byType().get("order.paid").retrying()).isEqualTo(1);
        assertThat(stats.oldestPendingAge()).isEqualTo(Duration.ofSeconds(30));

        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Publisher holds = batch -> CompletableFuture.supplyAsync(() -> {
            holding.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return batch.stream().map(e -> PublishOutcome.PUBLISHED).toList();
        });
        clock.advance(Duration.ofHours(1));
        try (Relay relay = outbox.relay(holds).build()) {
            CompletableFuture<Integer> run = CompletableFuture.supplyAsync(relay::runOnce);
            holding.await();
            assertThat(outbox.admin().stats().inFlight()).isEqualTo(1);
            assertThat(outbox.admin().stats().pending()).isZero();
            release.countDown();
            run.get();
        }
        assertThatOutbox(outbox).hasInFlight(0).hasPending(0).hasDead(1);
    }

    @Test
    void dead_listing_pages_by_id_and_filters_by_type_then_revive_and_delete_select() {
        Outbox outbox = newOutbox();
        List<io.txoutbox.OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.add(event("email.welcome", "u-" + i));
        }
        for (int i = 0; i < 3; i++) {
            events.add(event("webhook.sent", "w-" + i));
        }
        appendCommitted(outbox, events.toArray(io.txoutbox.OutboxEvent[]::new));
        RecordingPublisher broker =
                new RecordingPublisher().answer(e -> PublishOutcome.dead("rejected " + e.aggregateId()));
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        List<DeadEvent> firstPage = outbox.admin().dead(DeadQuery.first(3));
        List<DeadEvent> secondPage =
                outbox.admin().dead(DeadQuery.first(3).after(firstPage.get(2).id()));
        List<DeadEvent> thirdPage =
                outbox.admin().dead(DeadQuery.first(3).after(secondPage.get(2).id()));
        assertThat(firstPage).hasSize(3);
        assertThat(secondPage).hasSize(3);
        assertThat(thirdPage).hasSize(2);
        List<DeadEvent> all = new ArrayList<>(firstPage);
        all.addAll(secondPage);
        all.addAll(thirdPage);
        assertThat(all).extracting(DeadEvent::id).doesNotHaveDuplicates().isSorted();
        assertThat(all).allSatisfy(d -> {
            assertThat(d.lastError()).isEqualTo("rejected " + d.aggregateId());
            assertThat(d.attempts()).isEqualTo(1);
        });
        assertThat(outbox.admin().dead(DeadQuery.first(10).ofType("webhook.sent")))
                .hasSize(3);

        broker.answer(e -> PublishOutcome.PUBLISHED);
        assertThat(outbox.admin().revive(DeadSelector.type("webhook.sent"))).isEqualTo(3);
        assertThatOutbox(outbox).hasPending(3).hasDead(5);
        assertThat(outbox.admin()
                        .revive(DeadSelector.ids(List.of(firstPage.get(0).id()))))
                .isEqualTo(1);
        assertThat(outbox.admin()
                        .deleteDead(DeadSelector.ids(List.of(firstPage.get(1).id()))))
                .isEqualTo(1);
        assertThat(outbox.admin().revive(DeadSelector.all())).isEqualTo(3);
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.published()).hasSize(7);
        assertThatOutbox(outbox).isDrained();
        assertThat(outbox.admin().deleteDead(DeadSelector.all())).isZero();
    }

    @Test
    void retention_keeps_published_rows_and_purge_removes_the_old_ones() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = outboxBuilder().clock(clock).build();
        RecordingPublisher broker = new RecordingPublisher();
        appendCommitted(outbox, event("order.placed", "1"), event("order.placed", "2"));
        try (Relay relay =
                outbox.relay(broker).retainPublished(Duration.ofDays(7)).build()) {
            relay.runOnce();
            clock.advance(Duration.ofDays(1));
            appendCommitted(outbox, event("order.placed", "3"));
            relay.runOnce();
        }
        assertThatOutbox(outbox).hasRetainedPublished(3).hasPending(0);
        clock.advance(Duration.ofDays(7)).advance(Duration.ofHours(-12));
        assertThat(outbox.admin().purgePublished(Duration.ofDays(7))).isEqualTo(2);
        assertThatOutbox(outbox).hasRetainedPublished(1);
        assertThat(outbox.admin().purgePublished(Duration.ZERO)).isEqualTo(1);
        assertThat(rows(outbox)).isZero();
    }

    @Test
    void a_retaining_relay_purges_by_itself_in_small_batches() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = outboxBuilder().clock(clock).build();
        RecordingPublisher broker = new RecordingPublisher();
        io.txoutbox.OutboxEvent[] events = new io.txoutbox.OutboxEvent[30];
        for (int i = 0; i < events.length; i++) {
            events[i] = event("order.placed", "o-" + i);
        }
        appendCommitted(outbox, events);
        try (Relay relay = outbox.relay(broker)
                .retainPublished(Duration.ofMinutes(1))
                .purgeInterval(Duration.ofMillis(1))
                .pollInterval(Duration.ofMillis(50))
                .build()) {
            relay.start();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> outbox.admin().stats().published() == 30);
            clock.advance(Duration.ofMinutes(2));
            await().atMost(Duration.ofSeconds(20)).until(() -> rows(outbox) == 0);
        }
    }

    @Test
    void a_paused_relay_claims_nothing_until_resumed() {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay =
                outbox.relay(broker).pollInterval(Duration.ofMillis(50)).build()) {
            relay.start();
            relay.pause();
            assertThat(relay.isPaused()).isTrue();
            appendCommitted(outbox, event("order.placed", "1"));
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> broker.attempts().isEmpty() && rows(outbox) == 1);
            relay.resume();
            await().atMost(Duration.ofSeconds(10)).until(() -> broker.publishedCount() == 1);
        }
    }

    @Test
    void stop_returns_the_leases_of_a_batch_it_could_not_finish() {
        Outbox outbox = newOutbox();
        appendCommitted(outbox, event("order.placed", "1"));
        try (Relay relay = outbox.relay(batch -> new CompletableFuture<>())
                .publishTimeout(Duration.ofMillis(300))
                .leaseDuration(Duration.ofMinutes(5))
                .build()) {
            relay.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> relay.metrics().retried() == 1);
        }
        assertThat(count("SELECT count(*) FROM " + outbox.table() + " WHERE lease_owner IS NOT NULL"))
                .isZero();
        assertThatOutbox(outbox).hasRetrying(1);
    }
}

package io.txoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.spi.RelayListener.BatchReport;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * One relay cycle (claim, publish, settle, mark, count) on a store of the SPI, without an outbox: what
 * becomes of each outcome, how fenced rows are counted, and that a batch always ends in a mark.
 */
class RelayCycleTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Backoff FIXED = new Backoff(Duration.ofSeconds(10), 2.0, Duration.ofMinutes(5), false);

    private final FakeStore store = new FakeStore();
    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final InstantSource clock = now::get;
    private final List<BatchReport> reports = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final RelayListener listener = new RelayListener() {
        @Override
        public void onBatch(BatchReport report) {
            reports.add(report);
        }

        @Override
        public void onError(String relay, String phase, Throwable error) {
            errors.add(phase);
        }
    };

    private Relay relay(Publisher publisher) {
        return Relay.builder(store, clock, publisher)
                .backoff(FIXED)
                .maxAttempts(3)
                .listener(listener)
                .build();
    }

    private static Publisher answering(PublishOutcome outcome) {
        return batch -> CompletableFuture.completedFuture(Collections.nCopies(batch.size(), outcome));
    }

    private Completion onlyMark() {
        assertThat(store.marks).hasSize(1);
        assertThat(store.marks.get(0)).hasSize(1);
        return store.marks.get(0).get(0);
    }

    @Test
    void a_published_event_is_marked_published_and_counted() {
        UUID id = store.add("order.placed");
        try (Relay relay = relay(answering(PublishOutcome.PUBLISHED))) {
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(onlyMark().outcome()).isEqualTo(Outcome.PUBLISHED);
            assertThat(store.row(id).state).isEqualTo("published");
            assertThat(relay.metrics()).isEqualTo(new RelayMetrics(1, 1, 0, 0, 0, 0));
        }
        assertThat(reports).singleElement().satisfies(r -> assertThat(r.count(Outcome.PUBLISHED))
                .isEqualTo(1));
    }

    @Test
    void a_retry_is_due_again_after_the_backoff_of_its_attempt_on_the_relay_clock() {
        store.add("order.placed");
        try (Relay relay = relay(answering(PublishOutcome.retry("broker down")))) {
            relay.runOnce();
            Completion retry = onlyMark();
            assertThat(retry.outcome()).isEqualTo(Outcome.RETRY);
            assertThat(retry.availableAt()).isEqualTo(T0.plusSeconds(10));
            assertThat(retry.error()).isEqualTo("broker down");
            assertThat(relay.metrics().retried()).isEqualTo(1);
        }
    }

    @Test
    void a_retry_on_the_last_attempt_is_marked_dead_naming_the_attempts_and_the_last_error() {
        UUID id = store.add("order.placed");
        store.row(id).attempts = 2; // the claim makes it the third of three
        try (Relay relay = relay(answering(PublishOutcome.retry("broker down")))) {
            relay.runOnce();
            Completion dead = onlyMark();
            assertThat(dead.outcome()).isEqualTo(Outcome.DEAD);
            assertThat(dead.error()).isEqualTo("gave up after 3 attempts; last error: broker down");
            assertThat(relay.metrics().dead()).isEqualTo(1);
            assertThat(relay.metrics().retried()).isZero();
        }
    }

    @Test
    void an_events_own_attempt_budget_wins_over_the_relays() {
        store.add("order.placed", 1);
        try (Relay relay = relay(answering(PublishOutcome.retry("broker down")))) {
            relay.runOnce();
            assertThat(onlyMark().outcome()).isEqualTo(Outcome.DEAD);
        }
    }

    @Test
    void a_brokers_not_before_time_is_honoured_but_never_in_the_past_nor_beyond_a_day() {
        store.add("a");
        store.add("b");
        store.add("c");
        Instant soon = T0.plusSeconds(42);
        List<PublishOutcome> answers = List.of(
                PublishOutcome.retryNotBefore("429", soon),
                PublishOutcome.retryNotBefore("429", T0.minusSeconds(60)),
                PublishOutcome.retryNotBefore("429", T0.plus(Duration.ofDays(30))));
        try (Relay relay = relay(batch -> CompletableFuture.completedFuture(answers))) {
            relay.runOnce();
        }
        assertThat(store.marks.get(0))
                .extracting(Completion::availableAt)
                .containsExactly(soon, T0, T0.plus(Duration.ofHours(24)));
    }

    @Test
    void a_permanent_failure_is_dead_at_once_whatever_the_budget() {
        store.add("order.placed");
        try (Relay relay = relay(answering(PublishOutcome.dead("unroutable")))) {
            relay.runOnce();
            assertThat(onlyMark()).isEqualTo(new Completion(onlyMark().id(), Outcome.DEAD, null, "unroutable"));
        }
    }

    @Test
    void rows_another_relay_took_over_are_counted_as_fenced_and_not_as_published() {
        UUID lost = store.add("a");
        store.add("b");
        store.takenOver.add(lost);
        try (Relay relay = relay(answering(PublishOutcome.PUBLISHED))) {
            relay.runOnce();
            assertThat(relay.metrics().published()).isEqualTo(1);
            assertThat(relay.metrics().fenced()).isEqualTo(1);
        }
        assertThat(reports).singleElement().satisfies(r -> {
            assertThat(r.fenced()).containsExactly(lost);
            assertThat(r.count(Outcome.PUBLISHED)).isEqualTo(1);
        });
    }

    @Test
    void a_publisher_that_throws_still_ends_in_a_mark_as_a_retry() {
        store.add("order.placed");
        try (Relay relay = relay(batch -> {
            throw new IllegalStateException("no connection");
        })) {
            relay.runOnce();
            Completion retry = onlyMark();
            assertThat(retry.outcome()).isEqualTo(Outcome.RETRY);
            assertThat(retry.error()).isEqualTo("publisher failed: IllegalStateException: no connection");
        }
        assertThat(errors).contains("publish");
    }

    @Test
    void a_publisher_that_returns_the_wrong_number_of_outcomes_retries_the_batch() {
        store.add("a");
        store.add("b");
        try (Relay relay = relay(batch -> CompletableFuture.completedFuture(List.of(PublishOutcome.PUBLISHED)))) {
            relay.runOnce();
        }
        assertThat(store.marks.get(0)).extracting(Completion::outcome).containsOnly(Outcome.RETRY);
        assertThat(store.marks.get(0).get(0).error()).contains("returned 1 outcomes for 2 events");
    }

    @Test
    void a_publish_that_never_confirms_is_retried_after_the_publish_timeout() {
        store.add("order.placed");
        Publisher silent = batch -> new CompletableFuture<>();
        try (Relay relay = Relay.builder(store, clock, silent)
                .publishTimeout(Duration.ofMillis(200))
                .leaseDuration(Duration.ofSeconds(5))
                .build()) {
            relay.runOnce();
            assertThat(onlyMark().outcome()).isEqualTo(Outcome.RETRY);
            assertThat(onlyMark().error()).isEqualTo("relay 'relay' publish timed out after 200 ms (batch=1)");
        }
    }

    @Test
    void a_batch_whose_lease_would_end_before_the_publish_timeout_has_its_lease_extended() {
        store.add("order.placed");
        // The claim takes long, so the lease (from the claim) ends before the publish timeout (from the
        // call); the broker confirms only once the lease was extended, so without it the batch times out.
        store.duringClaim = () -> sleep(Duration.ofMillis(400));
        CompletableFuture<List<PublishOutcome>> confirmed = new CompletableFuture<>();
        store.onExtend = () -> confirmed.complete(List.of(PublishOutcome.PUBLISHED));
        try (Relay relay = Relay.builder(store, clock, batch -> confirmed)
                .leaseDuration(Duration.ofMillis(1_000))
                .publishTimeout(Duration.ofMillis(900))
                .build()) {
            relay.runOnce();
            assertThat(onlyMark().outcome()).isEqualTo(Outcome.PUBLISHED);
        }
        assertThat(store.extensions).isNotEmpty().allSatisfy(d -> assertThat(d)
                .isLessThanOrEqualTo(Duration.ofSeconds(1)));
    }

    @Test
    void a_mark_the_database_refuses_is_tried_three_times_then_left_to_the_lease() {
        store.add("order.placed");
        store.failingMarks.set(3);
        try (Relay relay = relay(answering(PublishOutcome.PUBLISHED))) {
            relay.runOnce();
            assertThat(store.marks).isEmpty();
            assertThat(relay.metrics().published()).as("nothing was marked").isZero();
            assertThat(relay.metrics().errors()).isEqualTo(3);
        }
        assertThat(errors).containsExactly("complete", "complete", "complete");
        assertThat(reports).singleElement().satisfies(r -> assertThat(r.fenced())
                .isEmpty());
    }

    @Test
    void a_mark_that_fails_once_is_tried_again() {
        store.add("order.placed");
        store.failingMarks.set(1);
        try (Relay relay = relay(answering(PublishOutcome.PUBLISHED))) {
            relay.runOnce();
            assertThat(relay.metrics().published()).isEqualTo(1);
        }
    }

    @Test
    void an_empty_claim_publishes_and_marks_nothing() {
        List<List<ClaimedEvent>> published = new CopyOnWriteArrayList<>();
        try (Relay relay = relay(batch -> {
            published.add(batch);
            return CompletableFuture.completedFuture(List.of());
        })) {
            assertThat(relay.runOnce()).isZero();
            assertThat(relay.metrics().batches()).isZero();
        }
        assertThat(published).isEmpty();
        assertThat(store.marks).isEmpty();
    }

    @Test
    void the_byte_budget_goes_to_the_claim() {
        try (Relay relay = Relay.builder(store, clock, answering(PublishOutcome.PUBLISHED))
                        .maxBatchBytes(12_345)
                        .build();
                Relay byDefault = Relay.builder(store, clock, answering(PublishOutcome.PUBLISHED))
                        .build()) {
            relay.runOnce();
            byDefault.runOnce();
        }
        assertThat(store.claimedBudgets).containsExactly(12_345L, Relay.Builder.defaultMaxBatchBytes());
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

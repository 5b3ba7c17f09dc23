package io.txoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's loop on a store of the SPI, without an outbox: the adaptive poll, wake-ups, the pause after
 * failures, the announcement of idleness, pause and resume, and stop.
 */
class RelayLoopTest {
    /** Long enough that a test passing within its bound was woken, not polled. */
    private static final Duration LONG_POLL = Duration.ofMinutes(1);

    private static final Duration BOUND = Duration.ofSeconds(10);

    private final FakeStore store = new FakeStore();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2030-01-01T00:00:00Z"));
    private final InstantSource clock = now::get;
    private final AtomicBoolean publisherClosed = new AtomicBoolean();
    private final Publisher publisher = new Publisher() {
        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
            return CompletableFuture.completedFuture(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
        }

        @Override
        public void close() {
            publisherClosed.set(true);
        }
    };
    private Relay relay;

    @AfterEach
    void stop() {
        if (relay != null) {
            relay.stop();
        }
    }

    private DefaultRelay relay(Relay.Builder b) {
        relay = b.build();
        return (DefaultRelay) relay;
    }

    private boolean published(UUID id) {
        return store.row(id).state.equals("published");
    }

    @Test
    void the_adaptive_sleep_doubles_with_every_empty_claim_up_to_the_poll_interval() {
        DefaultRelay r = relay(Relay.builder(store, clock, publisher)
                .minPollInterval(Duration.ofMillis(10))
                .pollInterval(Duration.ofMillis(100)));
        assertThat(r.idleWait(0)).isEqualTo(Duration.ofMillis(10));
        assertThat(r.idleWait(1)).isEqualTo(Duration.ofMillis(20));
        assertThat(r.idleWait(3)).isEqualTo(Duration.ofMillis(80));
        assertThat(r.idleWait(4)).isEqualTo(Duration.ofMillis(100));
        assertThat(r.idleWait(30)).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void a_short_sleep_does_not_ask_for_the_next_due_time_and_a_long_one_ends_when_it_is_due() {
        DefaultRelay r = relay(Relay.builder(store, clock, publisher)
                .minPollInterval(Duration.ofMillis(10))
                .pollInterval(Duration.ofSeconds(2)));
        r.idleWait(1);
        assertThat(store.nextDueQueries).as("20 ms: below the threshold").hasValue(0);

        store.nextDue = Optional.of(now.get().plusMillis(300));
        assertThat(r.idleWait(10)).as("due before the adaptive sleep ends").isEqualTo(Duration.ofMillis(300));
        store.nextDue = Optional.of(now.get().plusSeconds(60));
        assertThat(r.idleWait(10)).as("due after it").isEqualTo(Duration.ofSeconds(2));
        store.nextDue = Optional.of(now.get().minusSeconds(1));
        assertThat(r.idleWait(10)).as("overdue: never below the minimum").isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void the_pause_after_failed_cycles_doubles_from_100_ms_to_at_most_30_s() {
        Duration pause = Duration.ZERO;
        StringBuilder seen = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            pause = DefaultRelay.nextErrorPause(pause);
            seen.append(pause.toMillis()).append(' ');
        }
        assertThat(seen.toString().strip()).isEqualTo("100 200 400 800 1600 3200 6400 12800 25600 30000 30000 30000");
    }

    @Test
    void the_loop_survives_failing_claims_and_publishes_once_the_store_answers() {
        store.failingClaims.set(3);
        UUID id = store.add("order.placed");
        relay(Relay.builder(store, clock, publisher).pollInterval(Duration.ofMillis(200)));
        relay.start();
        await().atMost(BOUND).until(() -> published(id));
        assertThat(relay.metrics().errors()).isGreaterThanOrEqualTo(3);
        assertThat(relay.isRunning()).isTrue();
    }

    @Test
    void an_idle_relay_wakes_at_once_when_a_commit_signals_it() {
        relay(Relay.builder(store, clock, publisher).pollInterval(LONG_POLL).minPollInterval(LONG_POLL));
        relay.start();
        // It asks for the next due time just before it sleeps.
        await().atMost(BOUND).until(() -> store.nextDueQueries.get() >= 1);
        UUID id = store.add("order.placed");
        store.wake();
        await().atMost(BOUND).until(() -> published(id));
    }

    @Test
    void a_wake_up_that_comes_during_a_claim_is_not_lost() {
        AtomicReference<UUID> committed = new AtomicReference<>();
        // A commit lands while the first claim runs and after it looked: the claim misses the row, and
        // only the wake-up it sent can bring the relay back before its (long) poll.
        store.duringClaim = () -> {
            if (committed.get() == null) {
                store.duringClaim = () -> {};
                committed.set(UUID.randomUUID());
                store.wake();
            }
        };
        relay(Relay.builder(store, clock, publisher).pollInterval(LONG_POLL).minPollInterval(LONG_POLL));
        relay.start();
        await().atMost(BOUND).until(() -> store.claims.get() >= 2);
    }

    @Test
    void a_relay_announces_idleness_after_its_sleep_has_grown_and_busyness_when_work_comes() {
        relay(Relay.builder(store, clock, publisher)
                .minPollInterval(Duration.ofMillis(5))
                .pollInterval(Duration.ofMillis(40)));
        relay.start();
        await().atMost(BOUND).until(() -> store.idles.get() >= 1);
        assertThat(store.claims.get())
                .as("announced only once the sleep has grown")
                .isGreaterThanOrEqualTo(2);
        UUID id = store.add("order.placed");
        await().atMost(BOUND).until(() -> published(id) && store.busies.get() >= 1);
    }

    @Test
    void a_paused_relay_claims_nothing_until_resumed() {
        relay(Relay.builder(store, clock, publisher).pollInterval(Duration.ofMillis(20)));
        relay.pause();
        relay.start();
        UUID id = store.add("order.placed");
        await().during(Duration.ofMillis(300)).atMost(BOUND).until(() -> !published(id));
        assertThat(relay.isPaused()).isTrue();
        relay.resume();
        await().atMost(BOUND).until(() -> published(id));
    }

    @Test
    void stop_returns_leases_ends_the_subscription_and_never_closes_the_publisher() {
        relay(Relay.builder(store, clock, publisher).pollInterval(LONG_POLL));
        relay.start();
        await().atMost(BOUND).until(() -> store.claims.get() >= 1);
        relay.stop();
        relay.stop();
        assertThat(relay.isRunning()).isFalse();
        assertThat(store.released).as("once, idempotent").hasValue(1);
        assertThat(store.closedSubscriptions).hasValue(1);
        assertThat(publisherClosed).isFalse();
        assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void a_relay_is_refused_on_a_table_in_change_data_capture_mode() {
        store.changeDataCapture = true;
        assertThatThrownBy(() -> Relay.builder(store, clock, publisher).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("change-data-capture mode")
                .satisfies(e -> assertThat(((OutboxValidationException) e).field())
                        .isEqualTo("Outbox.Builder.changeDataCapture"));
    }

    @Test
    void a_relay_needs_a_store_a_clock_and_a_publisher() {
        assertThatThrownBy(() -> Relay.builder(null, clock, publisher).build())
                .hasMessage("Relay.Builder.store is missing; it is required");
        assertThatThrownBy(() -> Relay.builder(store, null, publisher).build())
                .hasMessage("Relay.Builder.clock is missing; it is required");
        assertThatThrownBy(() -> Relay.builder(store, clock, null).build())
                .hasMessage("Relay.Builder.publisher is missing; it is required");
    }

    @Test
    void settings_are_checked_without_a_store_naming_the_field_and_the_limit() {
        assertThatThrownBy(() -> Relay.settings().batchSize(0).validate())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("Relay.Builder.batchSize is 0; it must be between 1 and 10000")
                .satisfies(e -> {
                    OutboxValidationException v = (OutboxValidationException) e;
                    assertThat(v.field()).isEqualTo("Relay.Builder.batchSize");
                    assertThat(v.limit()).isEqualTo("1..10000");
                });
        assertThatThrownBy(() -> Relay.settings()
                        .leaseDuration(Duration.ofSeconds(5))
                        .publishTimeout(Duration.ofSeconds(5))
                        .validate())
                .hasMessageStartingWith("Relay.Builder.leaseDuration is 5s; it must be longer than"
                        + " Relay.Builder.publishTimeout (5s)");
        assertThatThrownBy(() -> Relay.settings().pollInterval(Duration.ZERO).validate())
                .hasMessage("Relay.Builder.pollInterval is 0s; it must be positive");
        assertThatThrownBy(() -> Relay.settings()
                        .leaseDuration(Duration.ofSeconds(Long.MAX_VALUE))
                        .validate())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("Relay.Builder.leaseDuration is 9223372036854775807s; it must be at most 1d");
        assertThatThrownBy(
                        () -> Relay.settings().pollInterval(Duration.ofDays(2)).validate())
                .hasMessage("Relay.Builder.pollInterval is 2d; it must be at most 1d");
        assertThatThrownBy(() -> Relay.settings()
                        .retainPublished(Duration.ofDays(40_000))
                        .validate())
                .hasMessage("Relay.Builder.retainPublished is 40000d; it must be at most 36525d");
        assertThat(Relay.settings().leaseDuration(Duration.ofDays(1)).validate())
                .as("a day's lease is the longest accepted")
                .isNotNull();
        assertThat(Relay.settings().validate()).as("the defaults are valid").isNotNull();
        assertThatThrownBy(() -> Relay.settings().build()).hasMessage("Relay.Builder.store is missing; it is required");
    }
}

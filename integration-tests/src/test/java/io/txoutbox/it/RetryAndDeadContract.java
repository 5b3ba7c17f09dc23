package io.txoutbox.it;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 6: retries follow the backoff schedule (on a clock the test controls), the event is dead
 * after its last attempt, revive publishes it, and a poison event never holds back the others.
 */
abstract class RetryAndDeadContract extends DatabaseTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void retries_follow_the_backoff_schedule_then_dead_then_revive_publishes() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = outboxBuilder().clock(clock).build();
        RecordingPublisher broker = new RecordingPublisher().retryType("poison", "broker refused");
        UUID poison = appendCommitted(outbox, event("poison", "p-1")).get(0).id();
        Backoff exact = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(5), false);
        try (Relay relay = outbox.relay(broker).backoff(exact).maxAttempts(5).build()) {
            // Failures 1..4 wait 1 s, 2 s, 4 s, then 5 s (the cap).
            Duration[] expected = {
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(5)
            };
            for (int attempt = 1; attempt <= 4; attempt++) {
                Instant attemptAt = clock.instant();
                assertThat(relay.runOnce())
                        .as("attempt %s claims the event", attempt)
                        .isEqualTo(1);
                Instant due = availableAt(outbox, poison);
                assertThat(Duration.between(attemptAt, due))
                        .as("delay after failure %s", attempt)
                        .isEqualTo(expected[attempt - 1]);
                assertThat(column(outbox, poison, "attempts")).isEqualTo(Integer.toString(attempt));
                assertThat(column(outbox, poison, "last_error")).isEqualTo("broker refused");
                assertThatOutbox(outbox).hasRetrying(1).hasDead(0);

                clock.set(due.minusMillis(1));
                assertThat(relay.runOnce()).as("not due 1 ms before its time").isZero();
                clock.set(due);
            }
            assertThat(relay.runOnce()).as("the fifth and last attempt").isEqualTo(1);
            assertThatOutbox(outbox)
                    .hasDead(1)
                    .hasPending(0)
                    .hasDeadEventWithReasonContaining("gave up after 5 attempts; last error: broker refused");
            assertThat(broker.attempts()).hasSize(5);
            assertThat(broker.published()).isEmpty();

            broker.answer(e -> PublishOutcome.PUBLISHED);
            assertThat(outbox.admin().revive(DeadSelector.ids(List.of(poison)))).isEqualTo(1);
            assertThat(column(outbox, poison, "attempts"))
                    .as("a fresh attempt budget")
                    .isEqualTo("0");
            assertThat(relay.runOnce()).isEqualTo(1);
        }
        assertThat(broker.publishedIds()).containsExactly(poison);
        assertThatOutbox(outbox).isDrained();
    }

    @Test
    void full_jitter_draws_each_delay_between_zero_and_the_ceiling() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = outboxBuilder().clock(clock).build();
        RecordingPublisher broker = new RecordingPublisher().answer(e -> PublishOutcome.retry("down"));
        List<OutboxEvent> events = appendCommitted(
                outbox, event("a", "1"), event("a", "2"), event("a", "3"), event("a", "4"), event("a", "5"));
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(5);
        }
        for (OutboxEvent e : events) {
            assertThat(Duration.between(T0, availableAt(outbox, e.id())))
                    .isBetween(Duration.ZERO, Backoff.DEFAULT.ceiling(1));
        }
    }

    @Test
    void a_poison_event_never_holds_back_the_others() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = outboxBuilder().clock(clock).build();
        RecordingPublisher broker = new RecordingPublisher().retryType("poison", "cannot serialise");
        appendCommitted(outbox, event("poison", "same"), event("order.placed", "same"), event("order.placed", "x"));
        try (Relay relay = outbox.relay(broker).maxAttempts(3).build()) {
            relay.runOnce();
            assertThat(broker.published()).hasSize(2);
            for (int i = 0; i < 5; i++) {
                appendCommitted(outbox, event("order.paid", "o-" + i));
                clock.advance(Duration.ofMinutes(10));
                relay.runOnce();
            }
            assertThat(broker.published()).hasSize(7);
        }
        assertThatOutbox(outbox).hasDead(1).hasPending(0).hasDeadEventWithReasonContaining("cannot serialise");
    }

    @Test
    void a_permanent_failure_is_dead_at_once_and_an_event_budget_overrides_the_relay() {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher()
                .answer(e -> e.eventType().equals("too.big")
                        ? PublishOutcome.dead("message too large for the broker")
                        : PublishOutcome.retry("flaky"));
        appendCommitted(
                outbox,
                event("too.big", "1"),
                OutboxEvent.builder("once")
                        .aggregate("order", "2")
                        .jsonPayload("{}")
                        .maxAttempts(1)
                        .build());
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.metrics().dead()).isEqualTo(2);
        }
        List<DeadEvent> dead = outbox.admin().dead(DeadQuery.first(10));
        assertThat(dead).extracting(DeadEvent::eventType).containsExactlyInAnyOrder("too.big", "once");
        assertThat(dead)
                .filteredOn(d -> d.eventType().equals("too.big"))
                .singleElement()
                .satisfies(d -> assertThat(d.lastError()).isEqualTo("message too large for the broker"));
        assertThat(dead)
                .filteredOn(d -> d.eventType().equals("once"))
                .singleElement()
                .satisfies(d -> assertThat(d.lastError()).isEqualTo("gave up after 1 attempts; last error: flaky"));
    }

    @Test
    void retry_after_from_the_broker_wins_over_the_backoff() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = outboxBuilder().clock(clock).build();
        Instant notBefore = T0.plus(Duration.ofMinutes(3));
        RecordingPublisher broker =
                new RecordingPublisher().answer(e -> PublishOutcome.retryNotBefore("429 Too Many Requests", notBefore));
        UUID id = appendCommitted(outbox, event("hook", "1")).get(0).id();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(availableAt(outbox, id)).isEqualTo(notBefore);
    }

    private Instant availableAt(Outbox outbox, UUID id) {
        return time(outbox, id, "available_at");
    }
}

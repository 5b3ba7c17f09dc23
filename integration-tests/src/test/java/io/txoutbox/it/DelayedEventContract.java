package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Acceptance 7: a delayed event is not published before it is due, and is published soon after. */
abstract class DelayedEventContract extends DatabaseTest {

    @Test
    void delayed_event_waits_until_due_on_the_outbox_clock() {
        SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        Outbox outbox = outboxBuilder().clock(clock).build();
        RecordingPublisher broker = new RecordingPublisher();
        appendCommitted(
                outbox,
                OutboxEvent.builder("reminder.due")
                        .aggregate("booking", "b-1")
                        .jsonPayload("{}")
                        .delay(Duration.ofHours(1))
                        .build(),
                OutboxEvent.builder("reminder.fixed")
                        .aggregate("booking", "b-2")
                        .jsonPayload("{}")
                        .availableAt(clock.instant().plus(Duration.ofHours(2)))
                        .build());
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isZero();
            clock.advance(Duration.ofMinutes(59));
            assertThat(relay.runOnce()).isZero();
            clock.advance(Duration.ofMinutes(1));
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(broker.published()).extracting(e -> e.eventType()).containsExactly("reminder.due");
            clock.advance(Duration.ofHours(1));
            assertThat(relay.runOnce()).isEqualTo(1);
        }
        assertThat(broker.published()).extracting(e -> e.eventType()).containsExactly("reminder.due", "reminder.fixed");
    }

    @Test
    void running_relay_sleeps_until_the_delayed_event_is_due_not_a_poll_interval() {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay =
                outbox.relay(broker).pollInterval(Duration.ofMinutes(5)).build()) {
            relay.start();
            Instant appendedAt = Instant.now();
            appendCommitted(
                    outbox,
                    OutboxEvent.builder("reminder.due")
                            .aggregate("booking", "b-1")
                            .jsonPayload("{}")
                            .delay(Duration.ofSeconds(2))
                            .build());
            outbox.committed();
            await().atMost(Duration.ofSeconds(30)).until(() -> broker.publishedCount() == 1);
            assertThat(Duration.between(appendedAt, Instant.now()))
                    .as("not before it was due")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        }
    }

    @Test
    void due_times_at_both_ends_of_the_range_every_database_holds_are_stored_exactly() {
        Outbox outbox = newOutbox();
        Instant earliest = Instant.parse("1000-01-01T00:00:00Z");
        Instant latest = Instant.parse("9999-12-31T23:59:59.999999Z");
        List<OutboxEvent> stored = appendCommitted(
                outbox,
                OutboxEvent.builder("due.earliest")
                        .aggregate("booking", "b-1")
                        .jsonPayload("{}")
                        .availableAt(earliest)
                        .build(),
                OutboxEvent.builder("due.latest")
                        .aggregate("booking", "b-2")
                        .jsonPayload("{}")
                        .availableAt(latest)
                        .build());
        assertThat(time(outbox, stored.get(0).id(), "available_at")).isEqualTo(earliest);
        assertThat(time(outbox, stored.get(1).id(), "available_at")).isEqualTo(latest);
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce())
                    .as("the earliest is due, the latest is not")
                    .isEqualTo(1);
        }
        assertThat(broker.published()).extracting(e -> e.eventType()).containsExactly("due.earliest");
    }

    @Test
    void due_times_and_delays_out_of_that_range_are_rejected_naming_the_field_and_the_limit() {
        for (Instant bad : List.of(
                Instant.MAX,
                Instant.MIN,
                Instant.parse("+10000-01-01T00:00:00Z"),
                Instant.parse("9999-12-31T23:59:59.9999995Z"),
                Instant.parse("0999-12-31T23:59:59.999999999Z"))) {
            assertThatThrownBy(() -> OutboxEvent.builder("due.bad")
                            .aggregate("booking", "b-1")
                            .jsonPayload("{}")
                            .availableAt(bad)
                            .build())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageStartingWith("OutboxEvent.availableAt is " + bad + "; it must be between"
                            + " 1000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z")
                    .extracting(e -> ((OutboxValidationException) e).limit())
                    .isEqualTo("1000-01-01T00:00:00Z..9999-12-31T23:59:59.999999Z");
        }
        for (Duration huge : List.of(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Duration.ofDays(10_000 * 366L))) {
            assertThatThrownBy(() -> OutboxEvent.builder("due.bad")
                            .aggregate("booking", "b-1")
                            .jsonPayload("{}")
                            .delay(huge)
                            .build())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageStartingWith("OutboxEvent.delay is " + huge + "; it must be at most");
        }
        SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        Outbox outbox = outboxBuilder().clock(clock).build();
        OutboxEvent farFuture = OutboxEvent.builder("due.bad")
                .aggregate("booking", "b-1")
                .jsonPayload("{}")
                .delay(Duration.between(clock.instant(), Instant.parse("+10000-01-01T00:00:00Z")))
                .build();
        assertThatThrownBy(() -> appendCommitted(outbox, farFuture))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("OutboxEvent.delay is ")
                .hasMessageContaining("would be due after 9999-12-31T23:59:59.999999Z");
        assertThat(rows(outbox)).isZero();
    }
}

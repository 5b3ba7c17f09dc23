package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.SettableClock;
import java.time.Duration;
import java.time.Instant;
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
}

package io.txoutbox.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RecordingPublisherTest {

    @Test
    void records_attempts_and_counts_only_published_events_with_duplicates() throws Exception {
        RecordingPublisher p = new RecordingPublisher().retryType("flaky", "down");
        ClaimedEvent a = claimed("ok", 1);
        ClaimedEvent b = claimed("flaky", 1);
        List<PublishOutcome> outcomes =
                p.publish(List.of(a, b, a)).toCompletableFuture().get();
        assertThat(outcomes)
                .extracting(PublishOutcome::outcome)
                .containsExactly(Outcome.PUBLISHED, Outcome.RETRY, Outcome.PUBLISHED);
        assertThat(p.attempts()).hasSize(3);
        assertThat(p.publishedIds()).containsExactly(a.id());
        assertThat(p.duplicates()).containsExactly(Map.entry(a.id(), 2));
        assertThat(p.attemptedIds()).containsExactlyInAnyOrder(a.id(), b.id());
        p.clear();
        assertThat(p.attempts()).isEmpty();
    }

    @Test
    void settable_clock_moves_only_when_told() {
        SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(clock.instant()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        clock.advance(Duration.ofMinutes(5));
        assertThat(clock.instant()).isEqualTo(Instant.parse("2030-01-01T00:05:00Z"));
        clock.set(Instant.EPOCH);
        assertThat(clock.millis()).isZero();
    }

    private static ClaimedEvent claimed(String type, int attempt) {
        return new ClaimedEvent(
                UUID.randomUUID(),
                "order",
                "o-1",
                type,
                1,
                "{}".getBytes(),
                "application/json",
                Map.of(),
                null,
                null,
                Instant.EPOCH,
                attempt,
                null);
    }
}

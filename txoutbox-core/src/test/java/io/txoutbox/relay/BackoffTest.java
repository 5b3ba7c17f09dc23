package io.txoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void default_ceilings_double_from_one_second_up_to_five_minutes() {
        Backoff b = Backoff.DEFAULT;
        assertThat(b.ceiling(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(b.ceiling(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(b.ceiling(8)).isEqualTo(Duration.ofSeconds(128));
        assertThat(b.ceiling(9)).isEqualTo(Duration.ofSeconds(256));
        assertThat(b.ceiling(10)).isEqualTo(Duration.ofMinutes(5));
        assertThat(b.ceiling(1_000)).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void full_jitter_stays_within_zero_and_the_ceiling_and_spreads() {
        SplittableRandom random = new SplittableRandom(42);
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 10_000; i++) {
            long ms = Backoff.DEFAULT.delay(3, random).toMillis();
            assertThat(ms).isBetween(0L, 4_000L);
            min = Math.min(min, ms);
            max = Math.max(max, ms);
        }
        assertThat(min).isLessThan(400);
        assertThat(max).isGreaterThan(3_600);
    }

    @Test
    void without_jitter_the_delay_is_the_ceiling() {
        Backoff b = new Backoff(Duration.ofMillis(100), 3.0, Duration.ofSeconds(2), false);
        assertThat(b.delay(1, new SplittableRandom())).isEqualTo(Duration.ofMillis(100));
        assertThat(b.delay(3, new SplittableRandom())).isEqualTo(Duration.ofMillis(900));
        assertThat(b.delay(4, new SplittableRandom())).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void contradictions_are_rejected_naming_the_field() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, 2, Duration.ofSeconds(1), true))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("Backoff.base is 0s; it must be positive");
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(1), true))
                .hasMessage("Backoff.factor is 0.5; it must be 1 or more");
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), 2, Duration.ofSeconds(1), true))
                .hasMessage("Backoff.max is 1s; it must be at least Backoff.base (2s)");
    }
}

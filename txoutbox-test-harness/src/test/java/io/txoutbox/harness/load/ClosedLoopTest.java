package io.txoutbox.harness.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClosedLoopTest {
    @Test
    void every_thread_runs_the_work_and_only_completions_after_the_warm_up_count() throws Exception {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AtomicLong runs = new AtomicLong();
        double perSecond = ClosedLoop.perSecond(3, Duration.ofMillis(100), Duration.ofMillis(200), () -> {
            threads.add(Thread.currentThread().getName());
            runs.incrementAndGet();
            Thread.sleep(1);
        });
        assertThat(threads).containsExactlyInAnyOrder("closed-loop-0", "closed-loop-1", "closed-loop-2");
        assertThat(perSecond).isPositive();
        // Completions during the warm-up ran but are not in the rate: fewer counted than run.
        assertThat(perSecond * 0.2).isLessThan(runs.get());
    }

    @Test
    void the_first_failure_stops_the_run_and_is_rethrown() {
        AtomicLong runs = new AtomicLong();
        assertThatThrownBy(() -> ClosedLoop.perSecond(2, Duration.ZERO, Duration.ofMinutes(10), () -> {
                    if (runs.incrementAndGet() == 5) {
                        throw new IOException("the database went away");
                    }
                }))
                .isInstanceOf(IOException.class)
                .hasMessage("the database went away");
    }

    @Test
    void settings_out_of_range_are_refused_naming_them() {
        assertThatThrownBy(() -> ClosedLoop.perSecond(0, Duration.ZERO, Duration.ofSeconds(1), () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ClosedLoop.threads is 0; it must be at least 1");
        assertThatThrownBy(() -> ClosedLoop.perSecond(1, Duration.ofSeconds(-1), Duration.ofSeconds(1), () -> {}))
                .hasMessage("ClosedLoop.warmUp is PT-1S; it must not be negative");
        assertThatThrownBy(() -> ClosedLoop.perSecond(1, Duration.ZERO, Duration.ZERO, () -> {}))
                .hasMessage("ClosedLoop.measured is PT0S; it must be positive");
    }
}

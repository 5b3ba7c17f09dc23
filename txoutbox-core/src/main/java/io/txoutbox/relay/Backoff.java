package io.txoutbox.relay;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff between attempts: the ceiling after the n-th failed attempt is {@code base ×
 * factor^(n-1)}, capped at {@code max}. With full jitter (the default) the delay is drawn uniformly
 * from zero to the ceiling, which spreads the retries of many events that failed together.
 *
 * @param base the ceiling after the first failure (default 1 s)
 * @param factor how much the ceiling grows per failure, 1 or more (default 2)
 * @param max the largest ceiling (default 5 min)
 * @param fullJitter draw the delay from {@code [0, ceiling]} (default); otherwise wait the ceiling
 */
public record Backoff(Duration base, double factor, Duration max, boolean fullJitter) {
    /** Base 1 s, factor 2, cap 5 min, full jitter. */
    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5), true);

    /** Rejects contradictions. */
    public Backoff {
        if (base == null || base.isNegative() || base.isZero()) {
            throw OutboxValidationException.notPositive("Backoff.base", base);
        }
        if (!(factor >= 1.0) || Double.isInfinite(factor)) {
            throw OutboxValidationException.belowMinimum("Backoff.factor", factor, 1);
        }
        if (max == null || max.compareTo(base) < 0) {
            throw OutboxValidationException.rule(
                    "Backoff.max", max, "be at least Backoff.base (" + base + ")", ">= base");
        }
    }

    /**
     * @param failedAttempts how many attempts have failed so far, 1 or more
     * @return the longest delay before the next attempt
     */
    public Duration ceiling(int failedAttempts) {
        double millis = base.toMillis() * Math.pow(factor, Math.max(0, failedAttempts - 1));
        return millis >= max.toMillis() ? max : Duration.ofMillis((long) millis);
    }

    /**
     * @param failedAttempts how many attempts have failed so far, 1 or more
     * @param random the source of jitter
     * @return the delay before the next attempt
     */
    public Duration delay(int failedAttempts, RandomGenerator random) {
        Duration ceiling = ceiling(failedAttempts);
        if (!fullJitter) {
            return ceiling;
        }
        return Duration.ofMillis(random.nextLong(ceiling.toMillis() + 1));
    }
}

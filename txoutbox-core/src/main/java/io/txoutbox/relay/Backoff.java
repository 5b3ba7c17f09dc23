package io.txoutbox.relay;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;
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
    /** The ceiling after the first failure. */
    public static final Setting<Duration> BASE = Setting.builder("base", Duration.class)
            .defaultValue(Duration.ofSeconds(1))
            .positiveUpTo(RelaySettings.MAX_CYCLE_DURATION)
            .doc("The delay ceiling after the first failed attempt.")
            .build();

    /** How much the ceiling grows per failure. */
    public static final Setting<Double> FACTOR = Setting.builder("factor", Double.class)
            .defaultValue(2.0)
            .rule(f -> f >= 1.0 && !Double.isInfinite(f), "be 1 or more", ">= 1")
            .doc("How much the ceiling grows per failed attempt.")
            .build();

    /** The largest ceiling. */
    public static final Setting<Duration> MAX = Setting.builder("max", Duration.class)
            .defaultValue(Duration.ofMinutes(5))
            .positiveUpTo(RelaySettings.MAX_CYCLE_DURATION)
            .doc("The largest delay ceiling; at least the base.")
            .build();

    /** Whether the delay is drawn from zero to the ceiling. */
    public static final Setting<Boolean> FULL_JITTER = Setting.builder("fullJitter", Boolean.class)
            .key("jitter")
            .defaultValue(true)
            .doc("Draw the delay from zero to the ceiling, which spreads the retries of events that failed"
                    + " together; otherwise wait the ceiling.")
            .build();

    /** The settings of a backoff, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(BASE, FACTOR, MAX, FULL_JITTER);

    private static final Spelling JAVA = Spelling.java("Backoff");

    /** Base 1 s, factor 2, cap 5 min, full jitter. */
    public static final Backoff DEFAULT = of(new SettingValues(), JAVA);

    /** Rejects contradictions. */
    public Backoff {
        check(base, factor, max, JAVA);
    }

    /**
     * @param values the parts given; the rest take their defaults
     * @param spelling how the caller spells the parts, for a refusal
     * @return the backoff
     * @throws OutboxValidationException naming, in {@code spelling}, a part that is out of bounds or
     *     contradicts another
     */
    public static Backoff of(SettingValues values, Spelling spelling) {
        Duration base = values.checked(BASE, spelling);
        double factor = values.checked(FACTOR, spelling);
        Duration max = values.checked(MAX, spelling);
        check(base, factor, max, spelling);
        return new Backoff(base, factor, max, values.checked(FULL_JITTER, spelling));
    }

    private static void check(Duration base, double factor, Duration max, Spelling spelling) {
        BASE.check(base, spelling.of(BASE));
        FACTOR.check(factor, spelling.of(FACTOR));
        MAX.check(max, spelling.of(MAX));
        if (max.compareTo(base) < 0) {
            throw OutboxValidationException.rule(
                    spelling.of(MAX),
                    Setting.show(max),
                    "be at least " + spelling.of(BASE) + " (" + Setting.show(base) + ")",
                    ">= base");
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

package io.txoutbox.internal.transport;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;

/**
 * The checks the transports' builders share, so that a setting is refused with the same words by all.
 * The {@code require} methods throw {@link IllegalArgumentException}, the {@code check} methods {@link
 * OutboxValidationException} (which names the setting and the limit); each builder keeps the one it
 * documents.
 */
public final class Settings {
    /** The longest broker timeout a builder accepts. */
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    private Settings() {}

    /**
     * @param condition what must hold
     * @param message the message, naming the setting and the value
     * @throws IllegalArgumentException with {@code message} unless {@code condition}
     */
    public static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * @param timeout the value given
     * @param setting its name, for example {@code NatsPublisher.Builder.publishTimeout}
     * @throws IllegalArgumentException unless positive and at most {@link #MAX_TIMEOUT}
     */
    public static void requireTimeout(Duration timeout, String setting) {
        require(timeoutPositive(timeout), positiveMessage(timeout, setting));
        require(timeoutBounded(timeout), boundMessage(timeout, setting));
    }

    /**
     * @param value the value given
     * @param setting its name
     * @throws IllegalArgumentException when {@code null} or blank
     */
    public static void requireNotBlank(String value, String setting) {
        require(value != null && !value.isBlank(), setting + " must not be blank");
    }

    /**
     * @param condition what must hold
     * @param field the setting, for {@link OutboxValidationException#field()}
     * @param limit the bound, or {@code null} when the problem is not a bound
     * @param message the message, naming the setting and the value
     * @throws OutboxValidationException unless {@code condition}
     */
    public static void check(boolean condition, String field, String limit, String message) {
        if (!condition) {
            throw new OutboxValidationException(field, limit, message);
        }
    }

    /**
     * @param timeout the value given
     * @param setting its name, for example {@code SqsPublisher.Builder.publishTimeout}
     * @throws OutboxValidationException unless positive ({@code limit} "> 0") and at most {@link
     *     #MAX_TIMEOUT} ({@code limit} "10 minutes")
     */
    public static void checkTimeout(Duration timeout, String setting) {
        check(timeoutPositive(timeout), setting, "> 0", positiveMessage(timeout, setting));
        check(timeoutBounded(timeout), setting, "10 minutes", boundMessage(timeout, setting));
    }

    /**
     * @param duration the value given
     * @param setting its name, for example {@code MqttPublisher.Builder.completionTimeout}
     * @throws OutboxValidationException unless positive: {@link OutboxValidationException#notPositive}
     */
    public static void checkPositive(Duration duration, String setting) {
        if (!timeoutPositive(duration)) {
            throw OutboxValidationException.notPositive(setting, duration);
        }
    }

    private static boolean timeoutPositive(Duration timeout) {
        return timeout != null && !timeout.isNegative() && !timeout.isZero();
    }

    private static boolean timeoutBounded(Duration timeout) {
        return timeout.compareTo(MAX_TIMEOUT) <= 0;
    }

    private static String positiveMessage(Duration timeout, String setting) {
        return setting + " must be positive, not " + timeout;
    }

    private static String boundMessage(Duration timeout, String setting) {
        return setting + " is " + timeout + "; at most 10 minutes";
    }
}

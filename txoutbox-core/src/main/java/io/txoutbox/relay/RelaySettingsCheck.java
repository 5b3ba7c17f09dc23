package io.txoutbox.relay;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The rules of a relay's settings, checked by {@link Relay.Builder#build()} and {@link
 * Relay.Builder#validate()}: each refusal names the setting, its value and its limit.
 */
final class RelaySettingsCheck {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * The longest lease, publish timeout or poll interval: a day. Longer ones are mistakes (a lease of years
     * lends a crashed relay's batch out for years), and past a point their arithmetic fails on every claim
     * ({@code toMillis()} overflows; MariaDB's {@code DATE_ADD} past year 9999 gives a NULL expiry, which
     * reads as no lease at all).
     */
    static final Duration MAX_CYCLE_DURATION = Duration.ofDays(1);

    /** The longest retention or purge interval: a hundred years, as the relay server's YAML allows. */
    static final Duration MAX_RETENTION = Duration.ofDays(36_525);

    private RelaySettingsCheck() {}

    /** @return the effective minimum poll interval, after every setting of the builder is checked */
    static Duration check(Relay.Builder b) {
        if (b.name == null || !NAME.matcher(b.name).matches()) {
            throw new OutboxValidationException(
                    "Relay.Builder.name",
                    NAME.pattern(),
                    "Relay.Builder.name '" + b.name + "' must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        if (b.batchSize < 1 || b.batchSize > Relay.Builder.MAX_BATCH_SIZE) {
            throw OutboxValidationException.outOfRange(
                    "Relay.Builder.batchSize", b.batchSize, 1, Relay.Builder.MAX_BATCH_SIZE);
        }
        if (b.maxInFlightBatches < 1 || b.maxInFlightBatches > Relay.Builder.MAX_IN_FLIGHT_BATCHES) {
            throw OutboxValidationException.outOfRange(
                    "Relay.Builder.maxInFlightBatches", b.maxInFlightBatches, 1, Relay.Builder.MAX_IN_FLIGHT_BATCHES);
        }
        if (b.maxBatchBytes < 0 || (b.maxBatchBytes == 0 && b.maxBatchBytesSet)) {
            throw OutboxValidationException.belowMinimum("Relay.Builder.maxBatchBytes", b.maxBatchBytes, 1);
        }
        if (b.maxAttempts < 1 || b.maxAttempts > Relay.Builder.MAX_ATTEMPTS_LIMIT) {
            throw OutboxValidationException.outOfRange(
                    "Relay.Builder.maxAttempts", b.maxAttempts, 1, Relay.Builder.MAX_ATTEMPTS_LIMIT);
        }
        positive("pollInterval", b.pollInterval);
        Duration minPoll = b.minPollInterval;
        if (minPoll == null) {
            minPoll = Relay.Builder.DEFAULT_MIN_POLL_INTERVAL.compareTo(b.pollInterval) < 0
                    ? Relay.Builder.DEFAULT_MIN_POLL_INTERVAL
                    : b.pollInterval;
        }
        positive("minPollInterval", minPoll);
        if (minPoll.compareTo(b.pollInterval) > 0) {
            throw new OutboxValidationException(
                    "Relay.Builder.minPollInterval",
                    "<= pollInterval",
                    "Relay.Builder.minPollInterval (" + minPoll.toMillis()
                            + " ms) must not be longer than Relay.Builder.pollInterval (" + b.pollInterval.toMillis()
                            + " ms)");
        }
        positive("leaseDuration", b.leaseDuration);
        positive("publishTimeout", b.publishTimeout);
        positive("purgeInterval", b.purgeInterval);
        atMost("pollInterval", b.pollInterval, MAX_CYCLE_DURATION);
        atMost("leaseDuration", b.leaseDuration, MAX_CYCLE_DURATION);
        atMost("publishTimeout", b.publishTimeout, MAX_CYCLE_DURATION);
        atMost("purgeInterval", b.purgeInterval, MAX_RETENTION);
        if (b.retainPublished != null) {
            atMost("retainPublished", b.retainPublished, MAX_RETENTION);
        }
        if (b.backoff == null) {
            throw new OutboxValidationException("Relay.Builder.backoff", null, "Relay.Builder.backoff is missing");
        }
        if (b.leaseDuration.compareTo(b.publishTimeout) <= 0) {
            throw new OutboxValidationException(
                    "Relay.Builder.leaseDuration",
                    "> publishTimeout",
                    "Relay.Builder.leaseDuration (" + b.leaseDuration.toMillis()
                            + " ms) must be longer than Relay.Builder.publishTimeout (" + b.publishTimeout.toMillis()
                            + " ms): a lease that ends while the broker is still confirming lets another relay"
                            + " publish the same batch");
        }
        if (b.retainPublished != null && b.retainPublished.isNegative()) {
            throw OutboxValidationException.negative("Relay.Builder.retainPublished", b.retainPublished);
        }
        return minPoll;
    }

    private static void atMost(String field, Duration value, Duration max) {
        if (value.compareTo(max) > 0) {
            throw OutboxValidationException.rule("Relay.Builder." + field, value, "be at most " + max, "<= " + max);
        }
    }

    private static void positive(String field, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw OutboxValidationException.notPositive("Relay.Builder." + field, value);
        }
    }
}

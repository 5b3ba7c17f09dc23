package io.txoutbox.spring;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The starter's own {@code txoutbox.*} properties. The outbox's and the relay's settings ({@code
 * txoutbox.table}, {@code txoutbox.relay.batch-size} and the others) are the library's, bound through its
 * descriptors ({@link LibraryProperties}) and not declared here. Every value is checked at start-up, and
 * an invalid one stops the application with a message naming the property.
 *
 * @param allowAppendWithoutTransaction let SpringOutbox.append(event) run outside a Spring-managed
 *     transaction, where the event commits on its own; off by default because it
 *     breaks atomicity with the business change
 * @param traceContext stamp the W3C trace context of the current OpenTelemetry span on appended events
 *     (when opentelemetry-api is on the classpath)
 * @param relay the embedded relay's switch
 * @param health the actuator health indicator
 * @param metrics the Micrometer meters
 * @param startup what the outbox does when its database cannot be reached at start-up
 */
@ConfigurationProperties("txoutbox")
public record TxOutboxProperties(
        @DefaultValue("false") boolean allowAppendWithoutTransaction,
        @DefaultValue("true") boolean traceContext,
        @DefaultValue Relay relay,
        @DefaultValue Health health,
        @DefaultValue Metrics metrics,
        @DefaultValue Startup startup) {

    /**
     * Start-up ({@code txoutbox.startup.*}).
     *
     * @param retry when the database cannot be reached at start-up (SQLState 08, 57P, 53, a lost
     *     connection), start anyway and retry with backoff: the health is DOWN and appends fail until the
     *     database comes, then the relay starts. Off: the application fails to start. A wrong password or
     *     database name, or a missing table, always fails the start.
     * @param maxBackoff the longest wait between two attempts
     */
    public record Startup(
            @DefaultValue("true") boolean retry,
            @DefaultValue("30s") Duration maxBackoff) {
        /** Checks the backoff. */
        public Startup {
            if (maxBackoff == null || maxBackoff.toMillis() < 100) {
                throw new OutboxValidationException(
                        "txoutbox.startup.max-backoff",
                        ">= 100ms",
                        "txoutbox.startup.max-backoff is " + maxBackoff + "; it must be at least 100ms");
            }
        }
    }

    /**
     * The embedded relay's switch. Its settings ({@code txoutbox.relay.batch-size} and the others) are the
     * library's ({@link io.txoutbox.relay.RelaySettings#SETTINGS}), bound through their descriptors by the
     * auto-configuration, not declared here.
     *
     * @param enabled run a relay in this application (it starts only when a Publisher bean or OutboxHandler
     *     beans exist)
     */
    public record Relay(@DefaultValue("true") boolean enabled) {}

    /**
     * The health indicator ({@code txoutbox.health.*}), contributed as {@code txoutbox}.
     *
     * @param deadThreshold the health is DOWN when more dead events than this are in the table
     * @param oldestPendingAgeThreshold the health is DOWN when the oldest unpublished event is older than
     *     this; unset (the default) leaves the age out, because delayed events are old on purpose
     */
    public record Health(@DefaultValue("0") long deadThreshold, Duration oldestPendingAgeThreshold) {
        /** Checks the thresholds. */
        public Health {
            if (deadThreshold < 0) {
                throw new OutboxValidationException(
                        "txoutbox.health.dead-threshold",
                        ">= 0",
                        "txoutbox.health.dead-threshold is " + deadThreshold + "; it must be 0 or more");
            }
            if (oldestPendingAgeThreshold != null
                    && (oldestPendingAgeThreshold.isNegative() || oldestPendingAgeThreshold.isZero())) {
                throw new OutboxValidationException(
                        "txoutbox.health.oldest-pending-age-threshold",
                        "> 0",
                        "txoutbox.health.oldest-pending-age-threshold is " + oldestPendingAgeThreshold
                                + "; it must be positive, or unset to leave the age out");
            }
        }
    }

    /**
     * The Micrometer meters' switch ({@code txoutbox.metrics.enabled}); their settings ({@code
     * txoutbox.metrics.max-types} and the others) are the library's ({@code MetricsSettings}), bound through
     * their descriptors.
     *
     * @param enabled register the meters (when a MeterRegistry bean exists)
     */
    public record Metrics(@DefaultValue("true") boolean enabled) {}
}

package io.txoutbox.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * The result of publishing one event, as a {@link Publisher} reports it.
 *
 * @param outcome published, retry or dead
 * @param reason why it failed (kept as the event's last error), or {@code null} when published
 * @param notBefore for a retry, the earliest time to try again (a broker's {@code Retry-After}), or
 *     {@code null} to follow the relay's backoff
 */
public record PublishOutcome(Outcome outcome, String reason, Instant notBefore) {
    /** The broker confirmed the event. */
    public static final PublishOutcome PUBLISHED = new PublishOutcome(Outcome.PUBLISHED, null, null);

    /** Checks that failures carry a reason. */
    public PublishOutcome {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome != Outcome.PUBLISHED && (reason == null || reason.isBlank())) {
            throw new IllegalArgumentException("a " + outcome + " outcome needs a reason");
        }
        if (notBefore != null && outcome != Outcome.RETRY) {
            throw new IllegalArgumentException("notBefore only applies to a RETRY outcome, not " + outcome);
        }
    }

    /**
     * @param reason why it failed
     * @return retry after the relay's backoff
     */
    public static PublishOutcome retry(String reason) {
        return new PublishOutcome(Outcome.RETRY, reason, null);
    }

    /**
     * @param reason why it failed
     * @param notBefore the earliest time to try again, for example from a {@code Retry-After} header
     * @return retry no sooner than {@code notBefore}
     */
    public static PublishOutcome retryNotBefore(String reason, Instant notBefore) {
        return new PublishOutcome(Outcome.RETRY, reason, Objects.requireNonNull(notBefore, "notBefore"));
    }

    /**
     * @param reason why it can never succeed as it is
     * @return dead: kept in the table for an operator to inspect and revive
     */
    public static PublishOutcome dead(String reason) {
        return new PublishOutcome(Outcome.DEAD, reason, null);
    }
}

package io.txoutbox.relay;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;

/**
 * How a publish outcome becomes a mark: a retry on the event's last attempt turns dead, a retry is due
 * again after the backoff (or the broker's not-before time, within bounds), and the completion to write
 * is built from that. Pure logic on the relay's clock; thread-safe.
 */
final class Settlement {
    /** The longest a retry may be pushed out by a broker's {@code Retry-After}. */
    static final Duration MAX_NOT_BEFORE = Duration.ofHours(24);

    private final int maxAttempts;
    private final Backoff backoff;
    private final RandomGenerator random;
    private final ReentrantLock randomLock = new ReentrantLock();

    /**
     * @param maxAttempts the attempt budget of an event that names none
     * @param backoff the delay between attempts
     * @param random the source of the backoff's jitter (not thread-safe: guarded here)
     */
    Settlement(int maxAttempts, Backoff backoff, RandomGenerator random) {
        this.maxAttempts = maxAttempts;
        this.backoff = backoff;
        this.random = random;
    }

    /** @return the outcome to mark: a retry on the event's last attempt becomes dead, naming the last error */
    PublishOutcome settle(ClaimedEvent event, PublishOutcome outcome) {
        if (outcome.outcome() != Outcome.RETRY) {
            return outcome;
        }
        int budget = event.maxAttempts() != null ? event.maxAttempts() : maxAttempts;
        if (event.attempt() >= budget) {
            return PublishOutcome.dead(
                    "gave up after " + event.attempt() + " attempts; last error: " + outcome.reason());
        }
        return outcome;
    }

    /** @return the completion of a settled outcome: a retry due after the backoff or its not-before time */
    Completion completion(ClaimedEvent event, PublishOutcome outcome, Instant now) {
        return switch (outcome.outcome()) {
            case PUBLISHED -> new Completion(event.id(), Outcome.PUBLISHED, null, null);
            case DEAD -> new Completion(event.id(), Outcome.DEAD, null, outcome.reason());
            case RETRY ->
                new Completion(
                        event.id(), Outcome.RETRY, nextAttemptAt(outcome, now, event.attempt()), outcome.reason());
        };
    }

    /** A completion that cannot fail: the backoff if it works, else one second. */
    Completion safeCompletion(ClaimedEvent event, PublishOutcome outcome, Instant now) {
        try {
            return completion(event, outcome, now);
        } catch (RuntimeException e) {
            return outcome.outcome() == Outcome.RETRY
                    ? new Completion(event.id(), Outcome.RETRY, now.plusSeconds(1), outcome.reason())
                    : new Completion(event.id(), outcome.outcome(), null, outcome.reason());
        }
    }

    /** A broker's not-before time is honoured between now and {@link #MAX_NOT_BEFORE}; else the backoff. */
    Instant nextAttemptAt(PublishOutcome outcome, Instant now, int attempt) {
        if (outcome.notBefore() != null) {
            Instant latest = now.plus(MAX_NOT_BEFORE);
            Instant notBefore = outcome.notBefore();
            return notBefore.isBefore(now) ? now : notBefore.isAfter(latest) ? latest : notBefore;
        }
        randomLock.lock();
        try {
            return now.plus(backoff.delay(attempt, random));
        } finally {
            randomLock.unlock();
        }
    }
}

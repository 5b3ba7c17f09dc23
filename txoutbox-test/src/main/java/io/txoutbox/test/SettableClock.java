package io.txoutbox.test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock your test moves by hand. Give it to {@code Outbox.builder(...).clock(clock)}: append times,
 * due times, retries and ages follow it; leases stay on the database clock. Thread-safe.
 */
public final class SettableClock implements InstantSource {
    private final AtomicReference<Instant> now;

    /** @param start the time the clock shows until it is moved */
    public SettableClock(Instant start) {
        this.now = new AtomicReference<>(Objects.requireNonNull(start, "start"));
    }

    /** @return a clock that shows the current time until it is moved */
    public static SettableClock startingNow() {
        return new SettableClock(Instant.now());
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    /**
     * @param instant the new time
     * @return this clock
     */
    public SettableClock set(Instant instant) {
        now.set(Objects.requireNonNull(instant, "instant"));
        return this;
    }

    /**
     * @param duration how far to move the clock forward (or back, if negative)
     * @return this clock
     */
    public SettableClock advance(Duration duration) {
        now.updateAndGet(t -> t.plus(duration));
        return this;
    }

    @Override
    public String toString() {
        return "SettableClock[" + now.get() + "]";
    }
}

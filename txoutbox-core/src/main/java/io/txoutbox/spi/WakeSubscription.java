package io.txoutbox.spi;

/**
 * A relay's subscription to the wake-ups of its store ({@link OutboxStore#subscribe}). Closing it ends
 * the subscription and stops what it started.
 *
 * <p>The relay also tells the store when it goes idle and when it has work again, so that a store can
 * ask writers that are not txoutbox to wake only idle relays (on PostgreSQL, see the outbox's foreign
 * writer wake-ups). A store that announces idleness wakes the relay once more when the announcement has
 * taken effect, so that the relay looks for rows a last time before it sleeps; a store that does not
 * ignores both calls.
 */
public interface WakeSubscription extends AutoCloseable {
    /** A subscription that does nothing. */
    WakeSubscription NONE = () -> {};

    /** The relay found nothing to do and is about to sleep for a while. Returns at once. */
    default void idle() {}

    /** The relay has work again: writers need not wake it. Returns at once. */
    default void busy() {}

    /** Ends the subscription; idempotent. */
    @Override
    void close();
}

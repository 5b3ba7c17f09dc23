package io.txoutbox;

/**
 * Counters of the notifications an outbox sends after commit to wake relays in other processes
 * ({@link Outbox#committed()}, PostgreSQL only). They only grow.
 *
 * @param sent notifications sent
 * @param requested commits that asked for one (the difference was coalesced into a notification already
 *     on its way)
 * @param failures attempts that failed and were retried
 */
public record WakeupCounters(long sent, long requested, long failures) {
    /** All zero: the database cannot notify, or notifications are off. */
    public static final WakeupCounters NONE = new WakeupCounters(0, 0, 0);
}

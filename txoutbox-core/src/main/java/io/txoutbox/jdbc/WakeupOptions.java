package io.txoutbox.jdbc;

import java.time.Duration;

/**
 * How a store wakes relays in other processes (PostgreSQL only; elsewhere relays of other processes
 * poll).
 *
 * @param notifyAfterCommit send a notification after an appending transaction committed ({@code
 *     Outbox#committed}), on a connection of its own
 * @param notifyWindow at most one such notification per table per window; {@link Duration#ZERO} sends
 *     one per committed transaction
 * @param foreignWriterTrigger install (with the schema) and expect the trigger that wakes idle relays
 *     when programs other than txoutbox insert rows
 */
public record WakeupOptions(boolean notifyAfterCommit, Duration notifyWindow, boolean foreignWriterTrigger) {
    /** The default window: short enough to add little latency, long enough to coalesce a busy table's commits. */
    public static final Duration DEFAULT_NOTIFY_WINDOW = Duration.ofMillis(2);

    /** The longest window that can be configured. */
    public static final Duration MAX_NOTIFY_WINDOW = Duration.ofSeconds(1);

    /** Notifications after commit with the default window; no trigger. */
    public static final WakeupOptions DEFAULT = new WakeupOptions(true, DEFAULT_NOTIFY_WINDOW, false);

    /** Checks the window. */
    public WakeupOptions {
        if (notifyWindow == null || notifyWindow.isNegative() || notifyWindow.compareTo(MAX_NOTIFY_WINDOW) > 0) {
            throw new IllegalArgumentException("notifyWindow is " + notifyWindow + "; it must be between 0 and "
                    + MAX_NOTIFY_WINDOW.toMillis() + " ms");
        }
    }
}

package io.txoutbox.jdbc;

import java.time.Duration;

/**
 * How a store wakes relays in other processes (PostgreSQL only; elsewhere relays of other processes
 * poll). Checked by {@code Outbox.Builder}.
 *
 * @param notifyAfterCommit send a notification after an appending transaction committed ({@code
 *     Outbox#committed}), on a connection of its own
 * @param notifyWindow at most one such notification per table per window; {@link Duration#ZERO} sends
 *     one per committed transaction
 * @param foreignWriterTrigger install (with the schema) and expect the trigger that wakes idle relays
 *     when programs other than txoutbox insert rows
 */
record WakeupOptions(boolean notifyAfterCommit, Duration notifyWindow, boolean foreignWriterTrigger) {}

package io.txoutbox.spi;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStats;
import io.txoutbox.WakeupCounters;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * Where the outbox lives: every SQL statement txoutbox runs goes through a store. txoutbox's JDBC store
 * implements it for each supported database ({@link io.txoutbox.Outbox.Builder#buildStore()} builds
 * one); an {@link io.txoutbox.Outbox}, a {@link io.txoutbox.relay.Relay} ({@link
 * io.txoutbox.relay.Relay#builder}) and integrations only see this interface.
 *
 * <p>Every method but {@link #append} uses its own short autocommit work on a connection of the store's
 * {@code DataSource}; none holds a transaction open across calls. Failures are {@link
 * io.txoutbox.OutboxStoreException}s.
 */
public interface OutboxStore extends AutoCloseable {

    /** @return the table's name as configured, for messages and metrics */
    String table();

    /**
     * @return whether the table is in change-data-capture mode: a connector reads its change stream,
     *     {@link #append} deletes every row it inserts in the same transaction, and no relay may claim
     *     from it (default false)
     */
    default boolean changeDataCapture() {
        return false;
    }

    /**
     * Inserts validated events through the caller's connection, inside the caller's transaction. Never
     * commits, never opens a connection.
     *
     * @param connection the caller's connection, in the transaction of the business change
     * @param events the events, already validated
     * @param now the time of the append, from the outbox clock
     */
    void append(Connection connection, List<OutboxEvent> events, Instant now);

    /**
     * Claims up to {@code limit} due events in one statement that commits at once: each row gets the
     * lease owner and an expiry computed on the database clock, and its attempt count goes up by one.
     * Rows leased by someone else whose lease has not expired, and rows locked by a concurrent claim, are
     * skipped.
     *
     * @param owner the lease owner, unique per relay instance
     * @param limit the batch size
     * @param lease how long the lease lasts, on the database clock
     * @param now the relay clock's now: rows with {@code available_at} after it are not due
     * @return the claimed events
     */
    default ClaimResult claim(String owner, int limit, Duration lease, Instant now) {
        return claim(owner, limit, Long.MAX_VALUE, lease, now);
    }

    /**
     * Claims like {@link #claim(String, int, Duration, Instant)}, within a byte budget: rows are taken in
     * claim order while the bytes of the rows before them (payload, headers and the other text columns the
     * store reads) stay under {@code maxBytes}, so the first
     * row is always taken, even when it alone is larger than the budget. The store reads no payload of a
     * row it does not take.
     *
     * @param owner the lease owner, unique per relay instance
     * @param limit the batch size
     * @param maxBytes the byte budget of the batch
     * @param lease how long the lease lasts, on the database clock
     * @param now the relay clock's now: rows with {@code available_at} after it are not due
     * @return the claimed events
     */
    ClaimResult claim(String owner, int limit, long maxBytes, Duration lease, Instant now);

    /**
     * Claims like {@link #claim(String, int, long, Duration, Instant)}, held to an attempt budget: a row
     * whose attempts already reached its budget (its own {@code maxAttempts}, else {@code maxAttempts}) is
     * leased without counting another attempt and without reading its payload, and returned among the
     * unreadable rows with the reason, so that it goes dead whatever kept its attempts from ending in a
     * mark (a row too large to read, a relay that crashed). The byte budget counts every variable-size
     * column the store reads. A store without such a check claims as the method without the budget (the
     * default).
     *
     * @param owner the lease owner, unique per relay instance
     * @param limit the batch size
     * @param maxBytes the byte budget of the batch
     * @param maxAttempts the attempt budget of rows without one of their own, 1 or more
     * @param lease how long the lease lasts, on the database clock
     * @param now the relay clock's now: rows with {@code available_at} after it are not due
     * @return the claimed events
     */
    default ClaimResult claim(String owner, int limit, long maxBytes, int maxAttempts, Duration lease, Instant now) {
        return claim(owner, limit, maxBytes, lease, now);
    }

    /**
     * Extends the lease of rows an owner still holds, to {@code lease} from now on the database clock:
     * for a batch still legitimately in flight. Rows whose lease passed to another owner are left alone.
     * A store that cannot extend leases returns 0; the relay then relies on the lease of the claim.
     *
     * @param owner the lease owner that claimed the rows
     * @param ids the rows
     * @param lease the new remaining lease
     * @return how many rows were extended
     */
    default int extendLease(String owner, Collection<UUID> ids, Duration lease) {
        return 0;
    }

    /**
     * Marks claimed rows in one statement, fenced by the lease owner: rows whose lease has passed to
     * another owner are left alone.
     *
     * @param owner the lease owner that claimed the rows
     * @param completions one per row
     * @param now the relay clock's now (the publish time of retained rows)
     * @param retainPublished keep published rows (state published) instead of deleting them
     * @return the ids that were marked; the others were fenced off
     */
    Set<UUID> complete(String owner, List<Completion> completions, Instant now, boolean retainPublished);

    /**
     * Returns the leases an owner still holds, without counting the attempt.
     *
     * @param owner the lease owner
     * @return how many rows were released
     */
    int releaseLeases(String owner);

    /**
     * @return the earliest {@code available_at} of pending rows that are not leased, if any; lets an idle
     *     relay sleep exactly until the next delayed event or retry is due. A store may leave out rows that
     *     are already due (the PostgreSQL store does: those are for its claims to find), so that the answer is
     *     cheap however many published rows wait for vacuum
     */
    Optional<Instant> nextDueAt();

    /**
     * @param now the outbox clock's now, for the oldest pending age
     * @return counts by state and type, in one query
     */
    OutboxStats stats(Instant now);

    /**
     * @param query type filter and page
     * @return one page of dead events, by id
     */
    List<DeadEvent> listDead(DeadQuery query);

    /**
     * Puts dead events back to pending with a fresh attempt budget, due at {@code now}, and wakes relays.
     *
     * @param selector which dead events
     * @param now the outbox clock's now
     * @return how many were revived
     */
    int revive(DeadSelector selector, Instant now);

    /**
     * @param selector which dead events
     * @return how many were deleted
     */
    int deleteDead(DeadSelector selector);

    /**
     * Deletes retained published rows older than a time, in small batches so no statement locks much.
     *
     * @param olderThan the cut-off, on the outbox clock
     * @param batchSize rows per delete statement
     * @return how many rows were deleted
     */
    int purgePublished(Instant olderThan, int batchSize);

    /**
     * Creates the table and its indexes if they do not exist (and, when the outbox asks for wake-ups of
     * writers that are not txoutbox, their trigger); removes the trigger of txoutbox 0.1 that notified
     * from every appending transaction.
     */
    void createSchema();

    /**
     * Checks that the table exists with every column this version needs, and warns (with the fix) about
     * a wake-up trigger that is missing or that costs every appending commit.
     *
     * @throws io.txoutbox.OutboxSchemaException naming the table and what is missing
     */
    void validateSchema();

    /**
     * Subscribes to wake-ups: an append committed in this JVM ({@link #signalCommitted()}), and on
     * databases that have it, a notification from another process (PostgreSQL {@code LISTEN/NOTIFY}: sent
     * after commit by appenders in other JVMs, and by the optional trigger for writers that are not
     * txoutbox). A wake-up is a hint; relays still poll.
     *
     * @param wake called on every wake-up, from any thread; must return quickly
     * @param listen also listen for the database's notifications, where it has them
     * @param threadFactory makes the listening thread, if the store needs one
     * @param onError hears failures of the listening connection (it reconnects by itself)
     * @return the subscription; the relay reports its idleness through it and closes it when it stops
     */
    WakeSubscription subscribe(Runnable wake, boolean listen, ThreadFactory threadFactory, Consumer<Throwable> onError);

    /**
     * Tells relays that a transaction that appended has committed: those of this JVM at once, and where
     * the store can, those of other processes through a notification sent soon after on a connection of
     * its own, outside every business transaction. Never blocks and never throws: a failed notification
     * is retried, and relays poll anyway.
     */
    void signalCommitted();

    /**
     * @return the after-commit notifications {@link #signalCommitted()} asked for, sent and failed (default
     *     all zero: a store that notifies no other process)
     */
    default WakeupCounters wakeupCounters() {
        return WakeupCounters.NONE;
    }

    /**
     * Stops what the store started (the JDBC store's notifier thread and its connection); never closes the
     * data source. Idempotent. Default: nothing to stop.
     */
    @Override
    default void close() {}
}

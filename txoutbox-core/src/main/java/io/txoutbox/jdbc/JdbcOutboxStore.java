package io.txoutbox.jdbc;

import io.txoutbox.ClaimFairness;
import io.txoutbox.DeadEvent;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxTable;
import io.txoutbox.WakeupCounters;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.WakeSubscription;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The JDBC outbox store of one table: the {@link OutboxStore} SPI, each job handed to the class that owns
 * it. {@link Appender} appends; {@link Claims} and {@link Marks} are the relay's claim-and-mark path;
 * {@link AdminQueries} the operations; {@link SchemaManager} creates and checks the table; {@link
 * Wakeups} wakes relays. Their statements come from one {@link SqlDialect}, rendered once for the table
 * by {@link OutboxSql}; {@link Jdbc} borrows the connections. Thread-safe; one per table and data source.
 */
final class JdbcOutboxStore implements OutboxStore {
    private final String table;
    private final boolean changeDataCapture;
    private final Appender appender;
    private final Claims claims;
    private final Marks marks;
    private final AdminQueries admin;
    private final SchemaManager schema;
    private final Wakeups wakeups;
    /** The archive of published rows in time partitions, or {@code null}: published rows stay in the table. */
    private final PublishedPartitions partitions;
    /**
     * The lowest {@code available_at} this thread appended since it last signalled a commit: the hint of
     * its next {@link #signalCommitted()}, called after commit on the thread that appended (as {@code
     * Outbox#inTransaction} and the Spring integration do). A transaction that rolled back leaves a hint
     * that only makes relays look behind once more than they need.
     */
    private final ThreadLocal<Instant> appendedSince = new ThreadLocal<>();

    /**
     * @param dataSource where the table lives; the store borrows a connection per operation (and one for
     *     as long as a relay listens, on PostgreSQL)
     * @param table the table and its column names
     * @param dialect the database's SQL
     * @param ordered the dead-head policy of ordered mode, or {@code null} for unordered
     * @param options how relays of other processes are woken
     * @param threadFactory makes the notifier's thread, or {@code null} for a daemon thread named {@code
     *     txoutbox-notify-<table>}
     * @param changeDataCapture whether append deletes each inserted row in the same transaction, for a
     *     table read by a change-data-capture connector instead of relays (which then need no wake-ups)
     * @param publishedPartitions the width of the archive's periods, or {@code null} to keep published
     *     rows in the table
     * @param fairClaims the column claims are fair across, or {@code null} to claim oldest first
     * @param clock the outbox's clock, which stamps published times (unused without partitions)
     */
    JdbcOutboxStore(
            DataSource dataSource,
            OutboxTable table,
            SqlDialect dialect,
            DeadHeadPolicy ordered,
            WakeupOptions options,
            ThreadFactory threadFactory,
            boolean changeDataCapture,
            Duration publishedPartitions,
            ClaimFairness fairClaims,
            InstantSource clock) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource is required");
        }
        OutboxSql sql = new OutboxSql(dialect, table, ordered, fairClaims);
        Jdbc jdbc = new Jdbc(dataSource, table.qualifiedName());
        Binder bind = new Binder(dialect);
        this.table = table.qualifiedName();
        this.changeDataCapture = changeDataCapture;
        this.appender = new Appender(sql, bind, changeDataCapture);
        this.claims = Claims.of(sql, jdbc, bind);
        this.partitions = publishedPartitions == null
                ? null
                : new PublishedPartitions(sql, jdbc, bind, publishedPartitions, clock);
        this.marks = partitions == null
                ? Marks.of(sql, jdbc, bind)
                : new OneStatementMarks(sql, jdbc, bind, partitions.markSql());
        this.admin = new AdminQueries(
                sql, jdbc, bind, changeDataCapture, partitions == null ? dialect.stats() : partitions.statsTemplate());
        this.schema = new SchemaManager(sql, jdbc, options);
        ThreadFactory notifierThreads = threadFactory != null
                ? threadFactory
                : r -> {
                    Thread t = new Thread(r, "txoutbox-notify-" + table.qualifiedName());
                    t.setDaemon(true);
                    return t;
                };
        this.wakeups = new Wakeups(dataSource, sql, options, notifierThreads, changeDataCapture, claims::hint);
        claims.connect(wakeups::wakeRelaysHere, marks::releaseLeases);
    }

    @Override
    public String table() {
        return table;
    }

    @Override
    public boolean changeDataCapture() {
        return changeDataCapture;
    }

    @Override
    public void append(Connection connection, List<OutboxEvent> events, Instant now) {
        appender.append(connection, events, now);
        if (events.isEmpty()) {
            return;
        }
        // Where the rows sit, as low as they may be: an explicit time, else now (a delay is later).
        Instant lowest = now;
        for (OutboxEvent e : events) {
            if (e.availableAt() != null && e.availableAt().isBefore(lowest)) {
                lowest = e.availableAt();
            }
        }
        Instant before = appendedSince.get();
        if (before == null || lowest.isBefore(before)) {
            appendedSince.set(lowest);
        }
    }

    @Override
    public ClaimResult claim(String owner, int limit, long maxBytes, Duration lease, Instant now) {
        return claims.claim(owner, limit, maxBytes, ClaimedRows.MAX_ATTEMPTS, lease, now);
    }

    @Override
    public ClaimResult claim(String owner, int limit, long maxBytes, int maxAttempts, Duration lease, Instant now) {
        return claims.claim(owner, limit, maxBytes, maxAttempts, lease, now);
    }

    @Override
    public int extendLease(String owner, Collection<UUID> ids, Duration lease) {
        return marks.extendLease(owner, ids, lease);
    }

    @Override
    public Set<UUID> complete(String owner, List<Completion> completions, Instant now, boolean retainPublished) {
        if (completions.isEmpty()) {
            return Set.of();
        }
        return marks.complete(owner, completions, now, retainPublished);
    }

    @Override
    public int releaseLeases(String owner) {
        Instant floor = claims.floorOf(owner);
        claims.forget(owner);
        int released = marks.releaseLeases(owner);
        if (released > 0 && floor != null) {
            // The rows may lie below other relays' floors: tell them where, as a commit would.
            wakeups.signalCommitted(floor);
        }
        return released;
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return claims.nextDueAt();
    }

    @Override
    public OutboxStats stats(Instant now) {
        return admin.stats(now);
    }

    @Override
    public List<DeadEvent> listDead(DeadQuery query) {
        return admin.listDead(query);
    }

    @Override
    public int revive(DeadSelector selector, Instant now) {
        int revived = admin.revive(selector, now);
        if (revived > 0) {
            signalCommitted();
        }
        return revived;
    }

    @Override
    public int deleteDead(DeadSelector selector) {
        return admin.deleteDead(selector);
    }

    @Override
    public int purgePublished(Instant olderThan, int batchSize) {
        return partitions == null ? admin.purgePublished(olderThan, batchSize) : partitions.purge(olderThan, batchSize);
    }

    @Override
    public void createSchema() {
        schema.createSchema();
        if (partitions != null) {
            partitions.createSchema();
        }
    }

    @Override
    public void validateSchema() {
        schema.validateSchema();
        if (partitions != null) {
            partitions.validateSchema();
        }
    }

    @Override
    public WakeSubscription subscribe(
            Runnable wake, boolean listen, ThreadFactory threadFactory, Consumer<Throwable> onError) {
        return wakeups.subscribe(wake, listen, threadFactory, onError);
    }

    @Override
    public void signalCommitted() {
        Instant hint = appendedSince.get();
        if (hint != null) {
            appendedSince.remove();
        }
        wakeups.signalCommitted(hint);
    }

    @Override
    public WakeupCounters wakeupCounters() {
        return wakeups.counters();
    }

    /** Stops the notifier and gives its connection back; idempotent. Never closes the data source. */
    @Override
    public void close() {
        claims.close();
        wakeups.close();
    }

    @Override
    public String toString() {
        return "JdbcOutboxStore[" + table + "]";
    }
}

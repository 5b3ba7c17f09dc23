package io.txoutbox.jdbc;

import io.txoutbox.OutboxTable;
import io.txoutbox.WakeupCounters;
import io.txoutbox.spi.WakeSubscription;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * How relays of one table are woken: directly, when a transaction of this JVM that appended has committed
 * ({@link #signalCommitted()}); on PostgreSQL also through notifications, which the {@link PgNotifier}
 * sends after commit for relays of other processes, and which a relay's {@link PgListener} hears (from
 * appenders anywhere and from the optional foreign-writer trigger). See {@link PgWakeups} for the
 * protocol. Elsewhere relays of other processes poll.
 *
 * <p>A wake-up may carry a hint: where the committed transaction's rows sit (their lowest {@code
 * available_at}), handed to the claims before relays are woken, so a relay whose cursor is past it looks
 * behind at once (see {@link ClaimCursor}).
 */
final class Wakeups implements AutoCloseable {
    private final DataSource dataSource;
    private final OutboxTable table;
    private final boolean canListen;
    private final List<Runnable> subscribers = new CopyOnWriteArrayList<>();
    private final PgNotifier notifier;
    private final Consumer<Instant> hints;

    /**
     * @param dataSource where the listening and notifying connections come from
     * @param sql the table, whose channel relays listen on, and its database: only where that {@link
     *     SqlDialect#supportsListen() listens} are there notifications
     * @param options whether to notify after commit, and the coalescing window
     * @param threadFactory makes the notifier's thread
     * @param changeDataCapture a table without relays, which need no notifications
     * @param hints takes where committed rows sit (the claims' {@link Claims#hint}); never throws
     */
    Wakeups(
            DataSource dataSource,
            OutboxSql sql,
            WakeupOptions options,
            ThreadFactory threadFactory,
            boolean changeDataCapture,
            Consumer<Instant> hints) {
        this.dataSource = dataSource;
        this.hints = hints;
        this.table = sql.table();
        this.canListen = sql.dialect().supportsListen();
        this.notifier = canListen && options.notifyAfterCommit() && !changeDataCapture
                ? new PgNotifier(dataSource, table.channel(), options.notifyWindow(), threadFactory)
                : PgNotifier.NONE;
    }

    /** See {@link io.txoutbox.spi.OutboxStore#subscribe}. */
    WakeSubscription subscribe(
            Runnable wake, boolean listen, ThreadFactory threadFactory, Consumer<Throwable> onError) {
        subscribers.add(wake);
        PgListener listener = listen && canListen
                ? PgListener.startIfAvailable(dataSource, table.channel(), wake, hints, threadFactory, onError)
                : null;
        if (listener == null) {
            return () -> subscribers.remove(wake);
        }
        return new WakeSubscription() {
            @Override
            public void idle() {
                listener.idle();
            }

            @Override
            public void busy() {
                listener.busy();
            }

            @Override
            public void close() {
                subscribers.remove(wake);
                listener.close();
            }
        };
    }

    /**
     * See {@link io.txoutbox.spi.OutboxStore#signalCommitted}: never blocks, never throws.
     *
     * @param availableAt the lowest {@code available_at} of the committed transaction's rows, or {@code
     *     null} when not known
     */
    void signalCommitted(Instant availableAt) {
        if (availableAt != null) {
            hints.accept(availableAt);
        }
        wakeRelaysHere();
        notifier.request(availableAt);
    }

    /** Wakes the relays of this store in this JVM, and no others: never blocks, never throws. */
    void wakeRelaysHere() {
        for (Runnable wake : subscribers) {
            wake.run();
        }
    }

    /** @return the after-commit notifications asked for, sent and failed */
    WakeupCounters counters() {
        return new WakeupCounters(notifier.sent(), notifier.requested(), notifier.failures());
    }

    /** Stops the notifier and gives its connection back; idempotent. */
    @Override
    public void close() {
        notifier.close();
    }
}

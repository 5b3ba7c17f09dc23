package io.txoutbox.spring;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxAdmin;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.OutboxTable;
import io.txoutbox.WakeupCounters;
import io.txoutbox.internal.admin.DatabaseFailure;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * An {@link Outbox} whose appends join the current Spring-managed transaction ({@code @Transactional},
 * {@code TransactionTemplate}): {@link #append(OutboxEvent)} writes through the transaction's own
 * connection of the data source, so the event commits or rolls back with your JDBC, JPA/Hibernate or
 * jOOQ changes. After the commit it wakes the relays in this JVM, once per transaction.
 *
 * <pre>{@code
 * @Transactional
 * public void placeOrder(Order order) {
 *     orders.save(order);
 *     outbox.append(OutboxEvent.builder("order.placed")
 *             .aggregate("order", order.id())
 *             .jsonPayload(json(order))
 *             .build());
 * }
 * }</pre>
 *
 * <p>Outside a transaction, or in a transaction that does not hold a connection of this data source (a
 * transaction manager for another database, say), {@code append} throws instead of committing the
 * event on its own, unless {@code txoutbox.allow-append-without-transaction=true}. The other methods
 * delegate to the outbox built from the properties. Thread-safe.
 */
public final class SpringOutbox implements Outbox {
    private static final Logger log = LoggerFactory.getLogger(SpringOutbox.class);

    private volatile Outbox delegate;
    private final DataSource dataSource;
    private final boolean allowWithoutTransaction;
    private final String table;
    private final Supplier<Outbox> attempt;
    private final Duration maxBackoff;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Runnable> whenReady = new ArrayList<>();
    private volatile String waiting;
    private volatile RuntimeException refused;
    private ScheduledExecutorService retries;

    /**
     * @param delegate the outbox on {@code dataSource}
     * @param dataSource the data source whose Spring-managed connection appends use
     * @param allowWithoutTransaction let appends outside a transaction commit on their own
     */
    public SpringOutbox(Outbox delegate, DataSource dataSource, boolean allowWithoutTransaction) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.allowWithoutTransaction = allowWithoutTransaction;
        this.table = delegate.table();
        this.attempt = null;
        this.maxBackoff = Duration.ZERO;
    }

    /**
     * An outbox whose database was not reachable at start-up: {@code attempt} builds the real one, tried in
     * the background with backoff (and at once by any call that needs it) until the database answers.
     */
    SpringOutbox(
            Supplier<Outbox> attempt,
            String table,
            String reason,
            DataSource dataSource,
            boolean allowWithoutTransaction,
            Duration maxBackoff) {
        this.attempt = Objects.requireNonNull(attempt, "attempt");
        this.table = table;
        this.waiting = reason;
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.allowWithoutTransaction = allowWithoutTransaction;
        this.maxBackoff = maxBackoff;
        this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "txoutbox-startup");
            t.setDaemon(true);
            return t;
        });
        schedule(1);
    }

    /** @return whether the outbox reached its database (always, unless it started while it was down) */
    public boolean isReady() {
        return delegate != null;
    }

    /**
     * @return why the outbox is not ready: the database's last answer while it waits for it, or the
     *     configuration error it met once the database came; {@code null} when it is ready
     */
    public String waitingFor() {
        RuntimeException r = refused;
        return r != null ? "configuration error: " + r.getMessage() : waiting;
    }

    /** Runs {@code action} once the outbox is ready: now if it is, else when the database comes. */
    void whenReady(Runnable action) {
        lock.lock();
        try {
            if (delegate == null) {
                whenReady.add(action);
                return;
            }
        } finally {
            lock.unlock();
        }
        action.run();
    }

    /**
     * At context shutdown: stops waiting for the database, and closes the outbox it wraps (its after-commit
     * notifier); never the data source. Idempotent.
     */
    @Override
    public void close() {
        Outbox ready;
        lock.lock();
        try {
            if (retries != null) {
                retries.shutdownNow();
            }
            whenReady.clear();
            ready = delegate;
        } finally {
            lock.unlock();
        }
        if (ready != null) {
            ready.close();
        }
    }

    private void schedule(int n) {
        long max = maxBackoff.toMillis();
        long base = Math.min(max, 1000L << Math.min(n - 1, 20));
        long delay = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
        try {
            retries.schedule(
                    () -> {
                        try {
                            if (tryNow() == null) {
                                log.warn(
                                        "txoutbox: table {} still waits for its database (attempt {}): {}",
                                        table,
                                        n + 1,
                                        waiting);
                                schedule(n + 1);
                            }
                        } catch (RuntimeException e) {
                            log.error(
                                    "txoutbox: table {} cannot start once its database came: {}",
                                    table,
                                    e.getMessage());
                        }
                    },
                    delay,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // Closed with the context.
        }
    }

    /**
     * One attempt to build the real outbox.
     *
     * @return the outbox, or {@code null} while the database is unavailable
     * @throws RuntimeException the configuration error the database answered (then kept and not retried)
     */
    private Outbox tryNow() {
        List<Runnable> actions;
        lock.lock();
        try {
            if (delegate != null) {
                return delegate;
            }
            if (refused != null) {
                throw refused;
            }
            try {
                delegate = attempt.get();
            } catch (RuntimeException e) {
                if (DatabaseFailure.isUnavailability(e)) {
                    waiting = DatabaseFailure.reason(e);
                    return null;
                }
                refused = e;
                throw e;
            }
            waiting = null;
            log.info("txoutbox: table {} reached its database; the outbox is ready", table);
            actions = new ArrayList<>(whenReady);
            whenReady.clear();
            retries.shutdown();
        } finally {
            lock.unlock();
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException e) {
                log.error("txoutbox: starting after the database came failed", e);
            }
        }
        return delegate;
    }

    /** The outbox, or a clear failure while it waits for its database. */
    private Outbox current() {
        Outbox d = delegate;
        if (d != null) {
            return d;
        }
        d = tryNow();
        if (d == null) {
            throw new OutboxException("txoutbox: the outbox on table " + table
                    + " is not ready: it waits for its database (" + waiting + ")");
        }
        return d;
    }

    /**
     * Appends one event in the current Spring-managed transaction.
     *
     * @param event the event
     * @return the event as written (with the scope's correlation and trace context)
     * @throws OutboxException when no transaction of this data source is active (unless allowed)
     * @throws io.txoutbox.OutboxValidationException before any write, naming the field and the limit
     * @throws io.txoutbox.OutboxStoreException when the insert fails; the transaction must roll back
     */
    public OutboxEvent append(OutboxEvent event) {
        return appendAll(List.of(Objects.requireNonNull(event, "event"))).get(0);
    }

    /**
     * Appends several events with one JDBC batch in the current Spring-managed transaction.
     *
     * @param events the events
     * @return the events as written
     * @throws OutboxException when no transaction of this data source is active (unless allowed)
     * @throws io.txoutbox.OutboxValidationException before any write, naming the event, field and limit
     * @throws io.txoutbox.OutboxStoreException when the insert fails; the transaction must roll back
     */
    public List<OutboxEvent> appendAll(List<OutboxEvent> events) {
        boolean inTransaction = TransactionSynchronizationManager.isActualTransactionActive();
        if (!inTransaction && !allowWithoutTransaction) {
            throw new OutboxException("txoutbox: append(event) needs an active Spring-managed transaction"
                    + " (@Transactional or TransactionTemplate) on table " + table()
                    + ": outside one the event would commit on its own, and a later failure of your business"
                    + " change would leave an event for something that never happened (atomicity broken)."
                    + " Set txoutbox.allow-append-without-transaction=true to allow it");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            // A transaction on another DataSource still lends us a connection of ours, bound to the thread
            // but in autocommit: the event would commit alone. Autocommit off is what joining looks like.
            boolean joined = inTransaction && !autoCommit(connection);
            if (inTransaction && !joined && !allowWithoutTransaction) {
                throw new OutboxException("txoutbox: the current transaction holds no connection of the outbox's"
                        + " DataSource (table " + table() + "): is its transaction manager for another"
                        + " DataSource, or a JpaTransactionManager whose JPA dialect does not expose the JDBC"
                        + " connection? The event would commit on its own (atomicity broken)");
            }
            List<OutboxEvent> written = current().appendAll(connection, events);
            signalAfterCommit(joined);
            return written;
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /**
     * Appends through the given connection, as the core does, and wakes the relays after the current
     * Spring transaction commits (if one is active).
     */
    @Override
    public OutboxEvent append(Connection connection, OutboxEvent event) {
        OutboxEvent written = current().append(connection, event);
        signalAfterCommit(TransactionSynchronizationManager.isActualTransactionActive());
        return written;
    }

    /**
     * Appends through the given connection, as the core does, and wakes the relays after the current
     * Spring transaction commits (if one is active).
     */
    @Override
    public List<OutboxEvent> appendAll(Connection connection, List<OutboxEvent> events) {
        List<OutboxEvent> written = current().appendAll(connection, events);
        signalAfterCommit(TransactionSynchronizationManager.isActualTransactionActive());
        return written;
    }

    private boolean autoCommit(Connection connection) {
        try {
            return connection.getAutoCommit();
        } catch (SQLException e) {
            throw OutboxStoreException.of("append", table(), e);
        }
    }

    /** Wakes relays after the transaction's commit, once per transaction; at once when there is none. */
    private void signalAfterCommit(boolean transactional) {
        if (!transactional || !TransactionSynchronizationManager.isSynchronizationActive()) {
            if (!transactional) {
                current().committed(); // autocommit: the row is already committed
            }
            return;
        }
        for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
            if (s instanceof CommitSignal signal && signal.outbox == current()) {
                return;
            }
        }
        TransactionSynchronizationManager.registerSynchronization(new CommitSignal(current()));
    }

    @Override
    public void committed() {
        Outbox d = delegate;
        if (d != null) {
            d.committed();
        }
    }

    @Override
    public <T> T inTransaction(TransactionWork<T> work) {
        return current().inTransaction(work);
    }

    @Override
    public OutboxAdmin admin() {
        return current().admin();
    }

    @Override
    public void createSchema() {
        current().createSchema();
    }

    @Override
    public Relay.Builder relay(Publisher publisher) {
        return current().relay(publisher);
    }

    @Override
    public OutboxTable outboxTable() {
        return current().outboxTable();
    }

    /** @return the wrapped outbox's counters; all zero while it waits for its database */
    @Override
    public WakeupCounters wakeupCounters() {
        Outbox d = delegate;
        return d == null ? WakeupCounters.NONE : d.wakeupCounters();
    }

    /** @return the outbox's clock; the system clock while it waits for its database */
    @Override
    public InstantSource clock() {
        Outbox d = delegate;
        return d == null ? InstantSource.system() : d.clock();
    }

    @Override
    public String table() {
        Outbox d = delegate;
        return d == null ? table : d.table();
    }

    /**
     * @return the core outbox this one delegates to
     * @throws OutboxException while it waits for its database
     */
    public Outbox delegate() {
        return current();
    }

    @Override
    public String toString() {
        return "SpringOutbox[table=" + table() + ", allowAppendWithoutTransaction=" + allowWithoutTransaction
                + (delegate == null ? ", waiting for the database" : "") + "]";
    }

    /** Wakes the relays of one outbox after the commit of the transaction it was registered in. */
    private static final class CommitSignal implements TransactionSynchronization {
        private final Outbox outbox;

        CommitSignal(Outbox outbox) {
            this.outbox = outbox;
        }

        @Override
        public void afterCommit() {
            outbox.committed();
        }
    }
}

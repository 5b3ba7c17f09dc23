package io.txoutbox.spring;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxAdmin;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxException;
import io.txoutbox.jdbc.SqlExceptions;
import io.txoutbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
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
    private final Outbox delegate;
    private final DataSource dataSource;
    private final boolean allowWithoutTransaction;

    /**
     * @param delegate the outbox on {@code dataSource}
     * @param dataSource the data source whose Spring-managed connection appends use
     * @param allowWithoutTransaction let appends outside a transaction commit on their own
     */
    public SpringOutbox(Outbox delegate, DataSource dataSource, boolean allowWithoutTransaction) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.allowWithoutTransaction = allowWithoutTransaction;
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
                    + " (@Transactional or TransactionTemplate) on table " + delegate.table()
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
                        + " DataSource (table " + delegate.table() + "): is its transaction manager for another"
                        + " DataSource, or a JpaTransactionManager whose JPA dialect does not expose the JDBC"
                        + " connection? The event would commit on its own (atomicity broken)");
            }
            List<OutboxEvent> written = delegate.appendAll(connection, events);
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
        OutboxEvent written = delegate.append(connection, event);
        signalAfterCommit(TransactionSynchronizationManager.isActualTransactionActive());
        return written;
    }

    /**
     * Appends through the given connection, as the core does, and wakes the relays after the current
     * Spring transaction commits (if one is active).
     */
    @Override
    public List<OutboxEvent> appendAll(Connection connection, List<OutboxEvent> events) {
        List<OutboxEvent> written = delegate.appendAll(connection, events);
        signalAfterCommit(TransactionSynchronizationManager.isActualTransactionActive());
        return written;
    }

    private boolean autoCommit(Connection connection) {
        try {
            return connection.getAutoCommit();
        } catch (SQLException e) {
            throw SqlExceptions.translate("append", delegate.table(), e);
        }
    }

    /** Wakes relays after the transaction's commit, once per transaction; at once when there is none. */
    private void signalAfterCommit(boolean transactional) {
        if (!transactional || !TransactionSynchronizationManager.isSynchronizationActive()) {
            if (!transactional) {
                delegate.committed(); // autocommit: the row is already committed
            }
            return;
        }
        for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
            if (s instanceof CommitSignal signal && signal.outbox == delegate) {
                return;
            }
        }
        TransactionSynchronizationManager.registerSynchronization(new CommitSignal(delegate));
    }

    @Override
    public void committed() {
        delegate.committed();
    }

    /** Closes the outbox it wraps (its after-commit notifier); never the data source. */
    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public <T> T inTransaction(TransactionWork<T> work) {
        return delegate.inTransaction(work);
    }

    @Override
    public OutboxAdmin admin() {
        return delegate.admin();
    }

    @Override
    public void createSchema() {
        delegate.createSchema();
    }

    @Override
    public OutboxStore store() {
        return delegate.store();
    }

    @Override
    public InstantSource clock() {
        return delegate.clock();
    }

    /** @return the core outbox this one delegates to */
    public Outbox delegate() {
        return delegate;
    }

    @Override
    public String toString() {
        return "SpringOutbox[table=" + delegate.table() + ", allowAppendWithoutTransaction=" + allowWithoutTransaction
                + "]";
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

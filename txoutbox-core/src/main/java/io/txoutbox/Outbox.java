package io.txoutbox;

import io.txoutbox.jdbc.JdbcBackend;
import io.txoutbox.relay.Relay;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The transactional outbox: append events through the connection of your own transaction; a {@link
 * Relay} publishes them after the commit, at least once.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder(dataSource).table("outbox").build();
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     insertOrder(c, order);
 *     outbox.append(c, OutboxEvent.builder("order.placed")
 *             .aggregate("order", order.id())
 *             .jsonPayload(order.toJson())
 *             .build());
 *     c.commit();          // the order and its event exist together, or neither does
 *     outbox.committed();  // wakes relays at once: in this JVM, and in others through the database
 * }
 * }</pre>
 *
 * <p>Append never commits, never opens its own connection and never publishes; nothing it does notifies
 * from inside your transaction. An {@code Outbox} is thread-safe; build one per table, share it, and
 * {@link #close()} it at shutdown.
 */
public interface Outbox extends AutoCloseable {

    /**
     * @param dataSource the application's data source: the table lives there, and relays and the
     *     operations API borrow connections from it (append never does)
     * @return a builder
     */
    static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Validates the event, stamps the scope's correlation, causation, tenant and trace context on it
     * where it names none, and inserts it through {@code connection}. Does not commit.
     *
     * @param connection the connection of the caller's transaction
     * @param event the event
     * @return the event as written (with the scope's values)
     * @throws OutboxValidationException before any write, naming the field and the limit
     * @throws OutboxStoreException when the insert fails; roll the transaction back
     */
    OutboxEvent append(Connection connection, OutboxEvent event);

    /**
     * Appends several events with one JDBC batch. Every event is validated before any is written.
     *
     * @param connection the connection of the caller's transaction
     * @param events the events
     * @return the events as written
     * @throws OutboxValidationException before any write, naming the event, the field and the limit
     * @throws OutboxStoreException when the insert fails; roll the transaction back
     */
    List<OutboxEvent> appendAll(Connection connection, List<OutboxEvent> events);

    /**
     * Tells relays that a transaction which appended has committed, so they wake at once instead of at
     * their next poll: relays of this outbox in this JVM directly, and on PostgreSQL relays anywhere
     * through one notification sent soon after on a connection of this outbox's own, outside every
     * business transaction, at most one per {@link Builder#notifyWindow(Duration) window}. Call it after
     * your commit (the Spring integration and {@link #inTransaction} do it for you); without it, relays
     * find the events at their next poll.
     *
     * <p>Returns at once: it never blocks, never touches the database and never throws. A notification
     * that fails is retried in the background.
     */
    void committed();

    /**
     * Runs work in a new transaction on a connection of this outbox's data source, commits it, and
     * signals {@link #committed()}; rolls back if the work throws. A convenience for code without a
     * transaction manager: the appends inside are still part of your transaction.
     *
     * @param work what to do in the transaction: business writes and appends
     * @param <T> what the work returns
     * @return what the work returned
     * @throws OutboxException wrapping a checked exception of the work, or an {@link
     *     OutboxStoreException} when the database fails
     */
    <T> T inTransaction(TransactionWork<T> work);

    /**
     * The shortcut to {@link Relay#builder}: a relay of this outbox's table, on its store and clock.
     *
     * @param publisher where the relay publishes
     * @return a builder of a relay for this outbox's table
     */
    Relay.Builder relay(Publisher publisher);

    /** @return stats, dead events, revive, delete and purge */
    OutboxAdmin admin();

    /**
     * Creates the table and its indexes if they do not exist (and the trigger of {@link
     * Builder#foreignWriterWakeups(boolean)} when asked for).
     */
    void createSchema();

    /**
     * Stops what this outbox started: the thread that sends after-commit notifications, and the
     * connection it may hold. Never closes the data source; idempotent. Relays built from this outbox
     * should be stopped first.
     */
    @Override
    default void close() {}

    /** @return the clock of this outbox: append times, due times, backoff, ages */
    InstantSource clock();

    /** @return the table and its column mapping (what a change-data-capture connector must read) */
    OutboxTable outboxTable();

    /** @return the table's name, for messages and metrics */
    default String table() {
        return outboxTable().qualifiedName();
    }

    /**
     * @return the after-commit notifications {@link #committed()} asked for, sent and failed (all zero
     *     where the database cannot notify, or with {@link Builder#notifyAfterCommit(boolean)} off)
     */
    default WakeupCounters wakeupCounters() {
        return WakeupCounters.NONE;
    }

    /**
     * Work done in a transaction by {@link #inTransaction}.
     *
     * @param <T> what the work returns
     */
    @FunctionalInterface
    interface TransactionWork<T> {
        /**
         * @param connection the transaction's connection, autocommit off
         * @return a result
         * @throws Exception to roll back
         */
        T run(Connection connection) throws Exception;
    }

    /** Builds an {@link Outbox}; every setting is checked at {@link #build()}. */
    final class Builder {
        final DataSource dataSource;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(OutboxSettings.SETTINGS, OutboxSettings.JAVA, "an outbox");

        private OutboxTable.Columns columns = OutboxTable.Columns.DEFAULT;
        private Dialect dialect;
        private InstantSource clock = InstantSource.system();
        private Supplier<EventScope> scope = () -> EventScope.EMPTY;
        private ThreadFactory threadFactory;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * @param table the table name, optionally schema-qualified (default {@code outbox})
         * @return this builder
         */
        public Builder table(String table) {
            return set(OutboxSettings.TABLE, table);
        }

        /**
         * @param columns the names of the mappable columns (default txoutbox's own)
         * @return this builder
         */
        public Builder columns(OutboxTable.Columns columns) {
            this.columns = Objects.requireNonNull(columns, "columns");
            return this;
        }

        /**
         * @param dialect the database's dialect (default: detected from the data source, and logged)
         * @return this builder
         */
        public Builder dialect(Dialect dialect) {
            this.dialect = dialect;
            return this;
        }

        /**
         * @param clock the clock of append times, due times, backoff and ages (default the system clock);
         *     leases always use the database clock
         * @return this builder
         */
        public Builder clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param scope supplies, on the appending thread, the correlation, causation, tenant and trace
         *     context to stamp on events that do not name them
         * @return this builder
         */
        public Builder scope(Supplier<EventScope> scope) {
            this.scope = Objects.requireNonNull(scope, "scope");
            return this;
        }

        /**
         * @param maxPayloadBytes the largest payload accepted at append (default 1 MiB, at most 64 MiB)
         * @return this builder
         */
        public Builder maxPayloadBytes(int maxPayloadBytes) {
            return set(OutboxSettings.MAX_PAYLOAD_BYTES, maxPayloadBytes);
        }

        /**
         * Publishes the events of one aggregate (aggregate type and id) in append order, across any
         * number of relays and restarts: a relay only claims the oldest unfinished event of an aggregate,
         * read from the table. A retrying event holds back its own aggregate only. Every relay of the
         * table must be built from an ordered outbox with the same policy.
         *
         * @param deadHead what a dead event does to the later events of its aggregate ({@link
         *     DeadHeadPolicy#BLOCK} waits for an operator; {@link DeadHeadPolicy#SKIP} goes on)
         * @return this builder
         */
        public Builder ordered(DeadHeadPolicy deadHead) {
            return set(OutboxSettings.ORDERED, Objects.requireNonNull(deadHead, "deadHead"));
        }

        /**
         * Change-data-capture mode, for a table that a connector (Debezium's outbox event router) reads
         * from the database's change stream instead of a relay: append inserts each event and deletes it
         * again in the same transaction. The change stream carries every committed INSERT, and the table
         * stays empty, so nothing is left to vacuum. Relays are refused on such an outbox ({@link
         * Relay.Builder#build()}), an event with a delay or a future {@code availableAt} is refused at
         * append (the connector publishes at commit), and {@link OutboxStats#changeDataCapture()} says
         * so. The table is the same in both modes, so producers can move between them while a relay and
         * a connector overlap; the procedure is in the txoutbox-debezium module's README.
         *
         * @param changeDataCapture true for a table read by a change-data-capture connector (default
         *     false: relays read the table)
         * @return this builder
         */
        public Builder changeDataCapture(boolean changeDataCapture) {
            return set(OutboxSettings.CHANGE_DATA_CAPTURE, changeDataCapture);
        }

        /**
         * Retention without bloat (PostgreSQL): a relay that {@link Relay.Builder#retainPublished retains}
         * published rows moves each into {@code <table>_published}, partitioned by {@code published_at} in
         * periods of this width, and its purge drops whole partitions older than the retention (a row stays
         * the retention plus at most one period). The table keeps only pending and dead rows.
         *
         * @param width a whole number of hours, 1 hour to 31 days (default unset: rows stay in the table)
         * @return this builder
         */
        public Builder publishedPartitions(Duration width) {
            return set(OutboxSettings.PUBLISHED_PARTITIONS, width);
        }

        /**
         * Claims shared fairly across tenants (or destinations), so that one key's backlog does not delay
         * another key's events: each claim takes the oldest due row of every key before the second of any
         * (see {@link ClaimFairness}), in unordered and in ordered mode. It needs an index of its own
         * ({@link ClaimFairness}); PostgreSQL only. Every relay of the table should be built from an outbox
         * with the same setting, or those without it claim oldest first.
         *
         * @param fairness the column to be fair across, or {@code null} (default) to claim oldest first
         * @return this builder
         */
        public Builder fairClaims(ClaimFairness fairness) {
            return set(OutboxSettings.FAIR_CLAIMS, fairness);
        }

        /**
         * @param create create the table at {@link #build()} if it does not exist (default false: use
         *     your migrations in production)
         * @return this builder
         */
        public Builder createSchemaIfMissing(boolean create) {
            return set(OutboxSettings.CREATE_SCHEMA, create);
        }

        /**
         * @param validate check the table's shape at {@link #build()} (default true)
         * @return this builder
         */
        public Builder validateSchema(boolean validate) {
            return set(OutboxSettings.VALIDATE_SCHEMA, validate);
        }

        /**
         * On PostgreSQL, {@link Outbox#committed()} also wakes relays in other processes with one
         * notification, sent on a connection this outbox borrows from the data source while commits keep
         * coming (and gives back after a quiet window), never from inside a business transaction.
         *
         * @param notify send it (default true); false leaves relays of other processes to their poll
         * @return this builder
         */
        public Builder notifyAfterCommit(boolean notify) {
            return set(OutboxSettings.NOTIFY_AFTER_COMMIT, notify);
        }

        /**
         * @param window the coalescing window of after-commit notifications: at most one per table per
         *     window, the first at once (default 2 ms; 0 to 1 s; 0 sends one per committed transaction).
         *     While commits keep coming at one or more per millisecond the window widens, up to 10 ms (or
         *     this window when longer), and it narrows back as they thin out: each notification is a
         *     transaction of its own, and under such a stream they cost the appenders several percent
         * @return this builder
         */
        public Builder notifyWindow(Duration window) {
            return set(OutboxSettings.NOTIFY_WINDOW, window);
        }

        /**
         * For tables that programs other than txoutbox insert into (psql, services in other languages),
         * which cannot call {@link Outbox#committed()}: on PostgreSQL, {@link #createSchemaIfMissing}
         * and {@link Outbox#createSchema()} add a trigger that wakes relays at the writer's commit, but
         * only while a relay is idle, so it costs busy tables no notification; the schema check warns
         * when it is missing. Without it such rows are found by the relays' adaptive poll. txoutbox's own
         * appenders do not need it.
         *
         * @param wakeups add and expect the trigger (default false)
         * @return this builder
         */
        public Builder foreignWriterWakeups(boolean wakeups) {
            return set(OutboxSettings.FOREIGN_WRITER_WAKEUPS, wakeups);
        }

        /**
         * @param threadFactory makes the thread that sends after-commit notifications (default: a daemon
         *     thread named {@code txoutbox-notify-<table>}, started at the first {@link
         *     Outbox#committed()})
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = threadFactory;
            return this;
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which the checks at {@link #build()} keep), before
         * customizations in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(OutboxSettings settings) {
            columns = settings.table().columns();
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters ({@link #table(String)} and the
         * others) do the same.
         *
         * @param setting one of {@link OutboxSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * Checks every setting as {@link #build()} does, without a database: for configuration loaders
         * that check settings before one is reachable. The data source is not checked.
         *
         * @return this builder
         * @throws OutboxValidationException naming a setting that is out of bounds or contradicts another
         */
        public Builder validate() {
            checked(dialect);
            return this;
        }

        private OutboxSettings checked(Dialect known) {
            return OutboxSettings.of(given.values(), columns, known, given.spelling());
        }

        /**
         * @return the outbox
         * @throws OutboxValidationException naming a setting that is out of bounds
         * @throws OutboxSchemaException when the table is missing or has the wrong shape
         */
        public Outbox build() {
            OutboxSettings settings = checkedForDatabase();
            return new DefaultOutbox(dataSource, settings, store(settings), dialect.name(), clock, scope);
        }

        /**
         * Builds only the store an outbox of these settings uses (the same table, dialect, mode, schema
         * creation and check): for a relay built without an outbox ({@link Relay#builder}), and for tools
         * and tests that drive the store SPI directly. Close it when done: on PostgreSQL it may hold a
         * notifier thread and connection.
         *
         * @return the store
         * @throws OutboxValidationException naming a setting that is out of bounds
         * @throws OutboxSchemaException when the table is missing or has the wrong shape
         */
        public OutboxStore buildStore() {
            return store(checkedForDatabase());
        }

        /** @return the settings, checked, and again once the dialect is known (detected when none was given) */
        private OutboxSettings checkedForDatabase() {
            if (dataSource == null) {
                throw OutboxValidationException.missing("Outbox.Builder.dataSource");
            }
            checked(dialect);
            return checked(dialect());
        }

        private OutboxStore store(OutboxSettings settings) {
            return JdbcBackend.store(dataSource, dialect(), settings, threadFactory, clock);
        }

        /** @return the configured dialect, detected (once) when none was given */
        Dialect dialect() {
            if (dialect == null) {
                dialect = Dialect.detect(dataSource);
            }
            return dialect;
        }
    }
}

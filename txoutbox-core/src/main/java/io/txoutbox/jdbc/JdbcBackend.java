package io.txoutbox.jdbc;

import io.txoutbox.ClaimFairness;
import io.txoutbox.Dialect;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxSettings;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.inbox.Inbox;
import io.txoutbox.spi.OutboxStore;
import java.time.InstantSource;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;

/**
 * <b>Internal</b>: the one door from txoutbox's API packages into its JDBC implementation, public only
 * because Java has no narrower access across packages. Applications use {@code Outbox.builder}, {@code
 * Inbox.builder} and {@link Dialect} instead; this class may change in any release.
 */
public final class JdbcBackend {
    private JdbcBackend() {}

    /**
     * The store of {@code Outbox.Builder}: every statement of one table, after the schema is created (if
     * asked) and checked (if asked).
     *
     * @param dataSource where the table lives
     * @param dialect the database
     * @param settings the outbox's settings, checked for this dialect ({@link OutboxSettings#withDialect})
     * @param threadFactory makes the notifier's thread, or {@code null} for a daemon thread
     * @param clock the outbox's clock, which stamps published times
     * @return the store; closing it stops its notifier
     * @throws io.txoutbox.OutboxValidationException when the dialect cannot take published partitions
     */
    public static OutboxStore store(
            DataSource dataSource,
            Dialect dialect,
            OutboxSettings settings,
            ThreadFactory threadFactory,
            InstantSource clock) {
        JdbcOutboxStore store = new JdbcOutboxStore(
                dataSource,
                settings.table(),
                SqlDialect.of(dialect),
                settings.ordered(),
                new WakeupOptions(
                        settings.notifyAfterCommit(), settings.notifyWindow(), settings.foreignWriterWakeups()),
                threadFactory,
                settings.changeDataCapture(),
                settings.publishedPartitions(),
                settings.fairClaims(),
                clock);
        try {
            if (settings.createSchema()) {
                store.createSchema();
            }
            if (settings.validateSchema()) {
                store.validateSchema();
            }
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    /**
     * @param dialect the database
     * @return whether it can claim fairly ({@code Outbox.Builder.fairClaims}): a claim in one statement over
     *     a loose index scan, which only PostgreSQL runs
     */
    public static boolean supportsFairClaims(Dialect dialect) {
        return SqlDialect.of(dialect).supportsFairClaims();
    }

    /**
     * @param dialect the database
     * @return whether it can keep published rows in time partitions ({@code Outbox.Builder.publishedPartitions})
     */
    public static boolean supportsPublishedPartitions(Dialect dialect) {
        return SqlDialect.of(dialect).supportsPublishedPartitions();
    }

    /**
     * @param dialect the database
     * @param table the table and its column names
     * @param fairness the column claims are fair across
     * @return the DDL of the index that fair claims read
     * @throws OutboxValidationException where the database cannot claim fairly
     */
    public static String fairClaimsDdl(Dialect dialect, OutboxTable table, ClaimFairness fairness) {
        if (!supportsFairClaims(dialect)) {
            throw new OutboxValidationException(
                    "fairness", null, "the " + dialect.name() + " dialect cannot claim fairly; only PostgreSQL can");
        }
        return SchemaManager.fairClaimsDdl(table, SqlDialect.of(dialect), fairness);
    }

    /**
     * The inbox of {@code Inbox.Builder}, after its table is created (if asked) and checked.
     *
     * @param dataSource where the table lives
     * @param table the inbox table
     * @param dialect the database
     * @param consumer the consumer's name
     * @param clock the clock of processed times
     * @param createSchema create the table if it is missing
     * @return the inbox
     */
    public static Inbox inbox(
            DataSource dataSource,
            OutboxTable table,
            Dialect dialect,
            String consumer,
            InstantSource clock,
            boolean createSchema) {
        JdbcInbox inbox = new JdbcInbox(dataSource, table, SqlDialect.of(dialect), consumer, clock);
        if (createSchema) {
            inbox.createSchema();
        }
        inbox.validateSchema();
        return inbox;
    }

    /**
     * @param dialect the database
     * @param table the table and its column names
     * @return the outbox table's DDL
     */
    public static String outboxDdl(Dialect dialect, OutboxTable table) {
        return SchemaManager.outboxDdl(table, SqlDialect.of(dialect));
    }

    /**
     * @param dialect the database
     * @param table the table and its column names
     * @return the DDL of the archive of published rows in time partitions
     * @throws io.txoutbox.OutboxValidationException where the database cannot take it
     */
    public static String publishedPartitionsDdl(Dialect dialect, OutboxTable table) {
        return PublishedPartitions.ddl(table, SqlDialect.of(dialect));
    }

    /**
     * @param dialect the database
     * @param table the inbox table
     * @return the inbox table's DDL
     */
    public static String inboxDdl(Dialect dialect, OutboxTable table) {
        return JdbcInbox.ddl(table, SqlDialect.of(dialect));
    }

    /**
     * @param dialect the database
     * @param table the table and its column names
     * @return the trigger that wakes idle relays for writers that are not txoutbox
     * @throws OutboxException where the database has no notifications
     */
    public static String foreignWriterWakeupDdl(Dialect dialect, OutboxTable table) {
        if (!SqlDialect.of(dialect).supportsListen()) {
            throw new OutboxException("txoutbox: the foreign-writer wake-up trigger needs PostgreSQL's"
                    + " notifications; the " + dialect.name() + " dialect has none (relays find such rows by"
                    + " their adaptive poll)");
        }
        return SchemaManager.foreignWriterWakeupDdl(table);
    }
}

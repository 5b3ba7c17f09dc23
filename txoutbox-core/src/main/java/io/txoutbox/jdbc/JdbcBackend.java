package io.txoutbox.jdbc;

import io.txoutbox.ClaimFairness;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.inbox.Inbox;
import io.txoutbox.spi.OutboxStore;
import java.time.Duration;
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
     * @param table the table and its column names
     * @param dialect the database
     * @param ordered the dead-head policy of ordered mode, or {@code null} for unordered
     * @param notifyAfterCommit wake relays of other processes after commit (PostgreSQL)
     * @param notifyWindow at most one such notification per window
     * @param foreignWriterWakeups create and expect the trigger for writers that are not txoutbox
     * @param threadFactory makes the notifier's thread, or {@code null} for a daemon thread
     * @param changeDataCapture append deletes every row it inserts, for a change-data-capture connector
     * @param createSchema create the table if it is missing
     * @param validateSchema check the table's shape
     * @param publishedPartitions the width of the periods of the archive of published rows (PostgreSQL), or
     *     {@code null} to keep published rows in the table
     * @param fairClaims the column claims are fair across, or {@code null} to claim oldest first
     * @param clock the outbox's clock, which stamps published times
     * @return the store; closing it stops its notifier
     * @throws io.txoutbox.OutboxValidationException when the dialect cannot take published partitions
     */
    public static OutboxStore store(
            DataSource dataSource,
            OutboxTable table,
            Dialect dialect,
            DeadHeadPolicy ordered,
            boolean notifyAfterCommit,
            Duration notifyWindow,
            boolean foreignWriterWakeups,
            ThreadFactory threadFactory,
            boolean changeDataCapture,
            boolean createSchema,
            boolean validateSchema,
            Duration publishedPartitions,
            ClaimFairness fairClaims,
            InstantSource clock) {
        if (fairClaims != null) {
            checkFairClaims(fairClaims, changeDataCapture, dialect);
        }
        JdbcOutboxStore store = new JdbcOutboxStore(
                dataSource,
                table,
                SqlDialect.of(dialect),
                ordered,
                new WakeupOptions(notifyAfterCommit, notifyWindow, foreignWriterWakeups),
                threadFactory,
                changeDataCapture,
                publishedPartitions,
                fairClaims,
                clock);
        try {
            if (createSchema) {
                store.createSchema();
            }
            if (validateSchema) {
                store.validateSchema();
            }
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    /**
     * The rule of {@code Outbox.Builder.fairClaims}: fair claims need a claim the database can run in
     * one statement over a loose index scan (PostgreSQL), and a table that relays claim from.
     *
     * @param fairness the column claims are fair across
     * @param changeDataCapture whether the outbox is in change-data-capture mode
     * @param dialect the database, or {@code null} when not known yet (checked again at build)
     * @throws OutboxValidationException naming the setting and the database
     */
    public static void checkFairClaims(ClaimFairness fairness, boolean changeDataCapture, Dialect dialect) {
        String field = "Outbox.Builder.fairClaims";
        if (changeDataCapture) {
            throw new OutboxValidationException(
                    field,
                    null,
                    field + " and Outbox.Builder.changeDataCapture contradict each other: fair claims govern what"
                            + " relays claim, and a table in change-data-capture mode has no relay");
        }
        if (dialect != null && !SqlDialect.of(dialect).supportsFairClaims()) {
            throw new OutboxValidationException(
                    field,
                    null,
                    field + " is " + fairness + ", which the " + dialect.name() + " dialect does not support:"
                            + " a fair claim walks the keys of " + fairness.column() + " with a loose index scan"
                            + " (WITH RECURSIVE and LATERAL) and locks the picked rows in the same statement, which"
                            + " only PostgreSQL can do; leave it unset to claim oldest first");
        }
    }

    /**
     * @param dialect the database
     * @param table the table and its column names
     * @param fairness the column claims are fair across
     * @return the DDL of the index that fair claims read
     * @throws OutboxValidationException where the database cannot claim fairly
     */
    public static String fairClaimsDdl(Dialect dialect, OutboxTable table, ClaimFairness fairness) {
        checkFairClaims(fairness, false, dialect);
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

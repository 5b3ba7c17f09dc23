package io.txoutbox.jdbc;

import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.OutboxTable;
import io.txoutbox.inbox.Inbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.UUID;
import javax.sql.DataSource;

/** The JDBC inbox: one table of (consumer, event id, processed at). Made by {@link Inbox#builder}. */
final class JdbcInbox implements Inbox {
    private final DataSource dataSource;
    private final OutboxTable table;
    private final SqlDialect dialect;
    private final String consumer;
    private final InstantSource clock;
    private final String insertSql;
    private final Binder bind;

    /**
     * @param dataSource where the table lives
     * @param table the inbox table (only its name is used)
     * @param dialect the database's SQL
     * @param consumer the consumer's name
     * @param clock the clock of processed times
     */
    JdbcInbox(DataSource dataSource, OutboxTable table, SqlDialect dialect, String consumer, InstantSource clock) {
        this.dataSource = dataSource;
        this.table = table;
        this.dialect = dialect;
        this.consumer = consumer;
        this.clock = clock;
        this.insertSql = render(dialect.inboxInsert());
        this.bind = new Binder(dialect);
    }

    private String render(String template) {
        return render(template, table);
    }

    private static String render(String template, OutboxTable table) {
        return template.replace("{table}", table.qualifiedName()).replace("{name}", table.name());
    }

    /** @return the inbox table's DDL for a table and dialect */
    static String ddl(OutboxTable table, SqlDialect dialect) {
        return render(dialect.inboxDdl(), table);
    }

    @Override
    public boolean markProcessed(Connection connection, UUID eventId) {
        if (eventId == null) {
            throw new io.txoutbox.OutboxValidationException(
                    "eventId", null, "Inbox.markProcessed eventId is missing; it is required");
        }
        try (PreparedStatement ps = connection.prepareStatement(insertSql)) {
            ps.setString(1, consumer);
            bind.setId(ps, 2, eventId);
            bind.setTime(ps, 3, clock.instant());
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (!dialect.inboxInsertIgnoresDuplicates() && "23505".equals(e.getSQLState())) {
                return false;
            }
            throw OutboxStoreException.of("inbox mark", table.qualifiedName(), e);
        }
    }

    @Override
    public int purgeOlderThan(Duration age) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement(render("DELETE FROM {table} WHERE consumer = ? AND processed_at < ?"))) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            ps.setString(1, consumer);
            bind.setTime(ps, 2, clock.instant().minus(age));
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw OutboxStoreException.of("inbox purge", table.qualifiedName(), e);
        }
    }

    @Override
    public void createSchema() {
        try (Connection c = dataSource.getConnection()) {
            JdbcOutboxStore.runScript(c, render(dialect.inboxDdl()));
        } catch (SQLException e) {
            throw OutboxStoreException.of("inbox create schema", table.qualifiedName(), e);
        }
    }

    /**
     * Checks that the inbox table exists with its three columns.
     *
     * @throws OutboxSchemaException naming the table and how to create it
     */
    void validateSchema() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(dialect.columnsQuery())) {
            ps.setString(1, table.schema());
            ps.setString(2, table.name());
            java.util.Set<String> names = new java.util.HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1).toLowerCase(java.util.Locale.ROOT));
                }
            }
            if (!names.containsAll(java.util.List.of("consumer", "event_id", "processed_at"))) {
                throw new OutboxSchemaException(
                        table.qualifiedName(),
                        "txoutbox: the inbox table '" + table.qualifiedName() + "' is missing or lacks the"
                                + " columns consumer, event_id, processed_at. Create it with"
                                + " Inbox.Builder.createSchemaIfMissing(true) or the migration"
                                + " db/migration/txoutbox/" + dialect.name() + "/V2__txoutbox_inbox.sql");
            }
        } catch (SQLException e) {
            throw OutboxStoreException.of("inbox schema check", table.qualifiedName(), e);
        }
    }

    @Override
    public String toString() {
        return "Inbox[table=" + table.qualifiedName() + ", consumer=" + consumer + "]";
    }
}

package io.txoutbox.jdbc;

import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.inbox.Inbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/** The JDBC inbox: one table of (consumer, event id, processed at). Made by {@link Inbox#builder}. */
final class JdbcInbox implements Inbox {
    private final OutboxSql sql;
    private final Jdbc jdbc;
    private final Binder bind;
    private final String consumer;
    private final InstantSource clock;
    private final String insertSql;
    private final String purgeSql;

    /**
     * @param dataSource where the table lives
     * @param table the inbox table (only its name is used)
     * @param dialect the database's SQL
     * @param consumer the consumer's name
     * @param clock the clock of processed times
     */
    JdbcInbox(DataSource dataSource, OutboxTable table, SqlDialect dialect, String consumer, InstantSource clock) {
        this.sql = new OutboxSql(dialect, table, null);
        this.jdbc = new Jdbc(dataSource, table.qualifiedName());
        this.bind = new Binder(dialect);
        this.consumer = consumer;
        this.clock = clock;
        this.insertSql = sql.render(dialect.inboxInsert());
        this.purgeSql = sql.render(dialect.inboxPurge());
    }

    /** @return the inbox table's DDL for a table and dialect */
    static String ddl(OutboxTable table, SqlDialect dialect) {
        return new OutboxSql(dialect, table, null).render(dialect.inboxDdl());
    }

    @Override
    public boolean markProcessed(Connection connection, UUID eventId) {
        if (eventId == null) {
            throw new OutboxValidationException(
                    "eventId", null, "Inbox.markProcessed eventId is missing; it is required");
        }
        try (PreparedStatement ps = connection.prepareStatement(insertSql)) {
            ps.setString(1, consumer);
            bind.setId(ps, 2, eventId);
            bind.setTime(ps, 3, clock.instant());
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (!sql.dialect().inboxInsertIgnoresDuplicates() && "23505".equals(e.getSQLState())) {
                return false;
            }
            throw jdbc.translate("inbox mark", e);
        }
    }

    @Override
    public int purgeOlderThan(Duration age) {
        return jdbc.autocommit("inbox purge", c -> {
            try (PreparedStatement ps = c.prepareStatement(purgeSql)) {
                ps.setString(1, consumer);
                bind.setTime(ps, 2, clock.instant().minus(age));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public void createSchema() {
        jdbc.scripts("inbox create schema", ddl(sql.table(), sql.dialect()));
    }

    /**
     * Checks that the inbox table exists with its three columns.
     *
     * @throws OutboxSchemaException naming the table and how to create it
     */
    void validateSchema() {
        Set<String> names = jdbc.autocommit("inbox schema check", c -> {
            Set<String> found = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(sql.dialect().columns())) {
                ps.setString(1, sql.table().schema());
                ps.setString(2, sql.table().name());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(rs.getString("name").toLowerCase(Locale.ROOT));
                    }
                }
            }
            return found;
        });
        if (!names.containsAll(List.of("consumer", "event_id", "processed_at"))) {
            String table = sql.table().qualifiedName();
            throw new OutboxSchemaException(
                    table,
                    "txoutbox: the inbox table '" + table + "' is missing or lacks the"
                            + " columns consumer, event_id, processed_at. Create it with"
                            + " Inbox.Builder.createSchemaIfMissing(true) or the migration"
                            + " db/migration/txoutbox/" + sql.dialect().name() + "/V2__txoutbox_inbox.sql");
        }
    }

    @Override
    public String toString() {
        return "Inbox[table=" + sql.table().qualifiedName() + ", consumer=" + consumer + "]";
    }
}

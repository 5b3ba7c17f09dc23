package io.txoutbox.it;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.test.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;

/**
 * A test against a real database. Every test gets tables of its own (unique names, dropped
 * afterwards), so classes run in any order and again and again against the same servers. A contract
 * (an abstract subclass) runs on every database through a short subclass per database.
 */
abstract class DatabaseTest {
    private final List<String> tables = new ArrayList<>();

    /** @return the database this test runs on */
    abstract TestDatabase database();

    DataSource dataSource() {
        return database().dataSource();
    }

    @AfterEach
    void dropTables() throws SQLException {
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement()) {
            for (String table : tables) {
                st.execute(database().dropTable(table));
                if (database() == TestDatabase.POSTGRES) {
                    st.execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
                    st.execute("DROP FUNCTION IF EXISTS " + table + "_wake() CASCADE");
                }
            }
        }
        tables.clear();
    }

    /** @return a fresh table name, dropped after the test */
    String newTable() {
        String prefix = getClass()
                .getSimpleName()
                .toLowerCase(Locale.ROOT)
                .replace("test", "")
                .replace("contract", "");
        if (prefix.length() > 20) {
            prefix = prefix.substring(0, 20);
        }
        String table = "it_" + prefix + "_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        tables.add(table);
        return table;
    }

    /** @return a builder on a fresh table that is created at build */
    Outbox.Builder outboxBuilder() {
        return Outbox.builder(dataSource()).table(newTable()).createSchemaIfMissing(true);
    }

    Outbox newOutbox() {
        return outboxBuilder().build();
    }

    static OutboxEvent event(String type, String aggregateId) {
        return OutboxEvent.builder(type)
                .aggregate("order", aggregateId)
                .jsonPayload("{\"orderId\":\"" + aggregateId + "\"}")
                .build();
    }

    /** Appends in a transaction of its own and commits. */
    static List<OutboxEvent> appendCommitted(Outbox outbox, OutboxEvent... events) {
        return outbox.inTransaction(c -> outbox.appendAll(c, List.of(events)));
    }

    /** @return the number the query returns, ids bound as this database stores them */
    long count(String sql, Object... args) {
        return Sql.count(dataSource(), database().binder(), sql, args);
    }

    long rows(Outbox outbox) {
        return count("SELECT count(*) FROM " + outbox.table());
    }

    /** @return a column of one event's row, as text, or {@code null} */
    String column(Outbox outbox, UUID id, String column) {
        return read(outbox, id, column, rs -> rs.getString(1));
    }

    /** @return a time column of one event's row */
    Instant time(Outbox outbox, UUID id, String column) {
        return read(outbox, id, column, rs -> database().readTime(rs, 1));
    }

    /** Reads the first column of a result set's current row. */
    @FunctionalInterface
    private interface ColumnReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** @return a column of one event's row, read by the reader, or {@code null} when there is no such row */
    private <T> T read(Outbox outbox, UUID id, String column, ColumnReader<T> reader) {
        try (Connection c = dataSource().getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT " + column + " FROM " + outbox.table() + " WHERE id = ?")) {
            database().bindId(ps, 1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? reader.read(rs) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return how many rows of the table have an expired lease, on the database clock */
    long expiredLeases(Outbox outbox) {
        return count("SELECT count(*) FROM " + outbox.table() + " WHERE lease_expires_at < "
                + database().now());
    }

    void execute(String sql) {
        Sql.execute(dataSource(), sql);
    }

    /** A raw row's columns, in insertion order; a {@code null} value is inserted as SQL NULL. */
    static final class RawRow {
        final Map<String, Object> values = new LinkedHashMap<>();

        RawRow put(String column, Object value) {
            values.put(column, value);
            return this;
        }
    }

    /** Inserts a row with plain SQL and bound values, as another program would. */
    UUID insertRow(Outbox outbox, RawRow row) {
        UUID id = UUID.randomUUID();
        StringBuilder names = new StringBuilder("id");
        StringBuilder marks = new StringBuilder("?");
        for (Map.Entry<String, Object> v : row.values.entrySet()) {
            names.append(", ").append(v.getKey());
            marks.append(
                    v.getValue() == null
                            ? ", NULL"
                            : database() == TestDatabase.POSTGRES && v.getKey().equals("headers")
                                    ? ", CAST(? AS jsonb)"
                                    : ", ?");
        }
        try (Connection c = dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + outbox.table() + " (" + names + ") VALUES (" + marks + ")")) {
            database().bindId(ps, 1, id);
            int i = 2;
            for (Object value : row.values.values()) {
                if (value instanceof byte[] bytes) {
                    ps.setBytes(i++, bytes);
                } else if (value != null) {
                    ps.setObject(i++, value);
                }
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return id;
    }

    /** @return the columns of a readable row of aggregate {@code aggregateId}, as another program writes it */
    static RawRow row(String aggregateId) {
        return new RawRow()
                .put("aggregate_type", "order")
                .put("aggregate_id", aggregateId)
                .put("event_type", "order.placed")
                .put("payload", "{}".getBytes(StandardCharsets.UTF_8))
                .put("headers", "{}");
    }
}

package io.txoutbox.it;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test against the real local PostgreSQL. Every test gets tables of its own (unique names, dropped
 * afterwards), so classes run in any order and again and again against the same server.
 */
abstract class PostgresTest {
    static HikariDataSource dataSource;

    private final List<String> tables = new ArrayList<>();

    @BeforeAll
    static void openPool() {
        dataSource = Postgres.pool("it", 12);
    }

    @AfterAll
    static void closePool() {
        dataSource.close();
    }

    @AfterEach
    void dropTables() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            for (String table : tables) {
                st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
                st.execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
            }
        }
        tables.clear();
    }

    /** @return a fresh table name, dropped after the test */
    String newTable() {
        String prefix = getClass().getSimpleName().toLowerCase(Locale.ROOT).replace("test", "");
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
        return Outbox.builder(dataSource).table(newTable()).createSchemaIfMissing(true);
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

    static long count(String sql, Object... args) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static long rows(Outbox outbox) {
        return count("SELECT count(*) FROM " + outbox.table());
    }

    static String column(Outbox outbox, UUID id, String column) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT " + column + "::text FROM " + outbox.table() + " WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void execute(String sql) {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

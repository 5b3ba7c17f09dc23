package io.txoutbox.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** A test on outbox tables of its own in the local PostgreSQL, dropped after each test. */
abstract class OutboxTableTest {
    static HikariDataSource dataSource;
    private final List<String> tables = new ArrayList<>();

    @BeforeAll
    static void openPool() {
        dataSource = Pg.pool("reliability-tests", 8);
    }

    @AfterAll
    static void closePool() {
        dataSource.close();
    }

    @AfterEach
    void dropTables() {
        for (String table : tables) {
            Pg.dropOutbox(dataSource, table);
        }
        tables.clear();
    }

    String newTable() {
        String table =
                Pg.uniqueName("rel_" + getClass().getSimpleName().toLowerCase().replace("test", ""));
        tables.add(table);
        return table;
    }

    Outbox.Builder outboxBuilder() {
        return Outbox.builder(dataSource).table(newTable()).createSchemaIfMissing(true);
    }

    static OutboxEvent event(String aggregateId) {
        return OutboxEvent.builder("order.placed")
                .aggregate("order", aggregateId)
                .jsonPayload("{\"order\":\"" + aggregateId + "\"}")
                .build();
    }

    static List<OutboxEvent> appendCommitted(Outbox outbox, List<OutboxEvent> events) {
        return outbox.inTransaction(c -> outbox.appendAll(c, events));
    }

    void execute(String sql) {
        Sql.execute(dataSource, sql);
    }

    long count(String sql, Object... args) {
        return Sql.count(dataSource, sql, args);
    }

    /** @return one column of one row as text, or {@code null} when the row is gone */
    String column(Outbox outbox, UUID id, String column) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT " + column + " FROM " + outbox.table() + " WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Inserts one row with plain SQL, as another program would.
     *
     * @param columns the column list
     * @param values the SQL values, verbatim
     * @return the new row's id
     */
    UUID insertRaw(Outbox outbox, String columns, String values) {
        UUID id = UUID.randomUUID();
        execute("INSERT INTO " + outbox.table() + " (id, " + columns + ") VALUES ('" + id + "', " + values + ")");
        return id;
    }

    /** @return a listener that adds each relay error to {@code errors}, as (phase, error) */
    static RelayListener recordingErrors(List<Map.Entry<String, Throwable>> errors) {
        return new RelayListener() {
            @Override
            public void onError(String relayName, String phase, Throwable error) {
                errors.add(Map.entry(phase, error));
            }
        };
    }
}

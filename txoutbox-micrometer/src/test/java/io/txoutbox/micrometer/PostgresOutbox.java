package io.txoutbox.micrometer;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.harness.LocalPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The local PostgreSQL (override with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER) and outbox tables with unique
 * names, dropped by {@link #close()}.
 */
final class PostgresOutbox implements AutoCloseable {
    private final HikariDataSource dataSource;
    private final List<String> tables = new ArrayList<>();

    PostgresOutbox() {
        dataSource = LocalPostgres.pool("micrometer-test");
    }

    HikariDataSource dataSource() {
        return dataSource;
    }

    /** @return a builder on a fresh table, created at build and dropped at close */
    Outbox.Builder outbox() {
        String table = "mm_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        tables.add(table);
        return Outbox.builder(dataSource).table(table).createSchemaIfMissing(true);
    }

    static OutboxEvent event(String type, String aggregateId) {
        return OutboxEvent.builder(type)
                .aggregate("order", aggregateId)
                .jsonPayload("{\"orderId\":\"" + aggregateId + "\"}")
                .build();
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            for (String table : tables) {
                st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
                st.execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
            }
        } finally {
            dataSource.close();
        }
    }
}

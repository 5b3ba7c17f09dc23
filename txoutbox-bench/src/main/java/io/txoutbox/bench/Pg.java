package io.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The local PostgreSQL: pools, a schema of the run's own (dropped at the end), bulk loads and the
 * server's settings. Override the server with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER.
 */
final class Pg implements AutoCloseable {
    static final String URL = env("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test");
    static final String USER = env("TXOUTBOX_PG_USER", "postgres");

    /** The payload of every loaded and appended event: a small order, about 90 bytes of JSON. */
    static final String PAYLOAD_SQL =
            "convert_to('{\"orderId\":' || g || ',\"customer\":\"c-0042\",\"amount\":123.45,\"currency\":\"EUR\","
                    + "\"lines\":3}', 'UTF8')";

    /** The run's own schema. */
    final String schema;

    private final HikariDataSource admin;

    Pg() {
        this.schema = "txbench_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
        this.admin = pool("txbench-admin", 2, null);
        exec(admin, "CREATE SCHEMA " + schema);
    }

    /** @return a pool whose connections use this run's schema */
    HikariDataSource pool(String name, int size) {
        return pool(name, size, schema);
    }

    private static HikariDataSource pool(String name, int size, String schema) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setUsername(USER);
        config.setPoolName(name);
        // Names the pool's backends in pg_stat_activity: W1 samples the wait events of its appenders.
        config.addDataSourceProperty("ApplicationName", name);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(30_000);
        if (schema != null) {
            config.setSchema(schema);
        }
        return new HikariDataSource(config);
    }

    DataSource admin() {
        return admin;
    }

    /** @return {@code schema.name} */
    String table(String name) {
        return schema + "." + name;
    }

    void exec(String sql) {
        exec(admin, sql);
    }

    static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    long count(String table) {
        try (Connection c = admin.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Loads {@code n} due events into a txoutbox-shaped table with one INSERT ... SELECT over
     * generate_series (1,000 aggregates, append order = seq), then VACUUM ANALYZE so that every variant
     * starts from the same settled table.
     */
    void loadOutbox(String table, int n) {
        exec("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload, headers,"
                + " created_at, available_at) SELECT gen_random_uuid(), 'order', 'order-' || (g % 1000),"
                + " 'order.placed', " + PAYLOAD_SQL + ", '{}'::jsonb, now(), now()"
                + " FROM generate_series(1, " + n + ") g");
        exec("VACUUM ANALYZE " + table);
    }

    /** The settings that matter for these numbers, read with SHOW. */
    Map<String, String> settings() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : new String[] {
            "server_version",
            "shared_buffers",
            "synchronous_commit",
            "fsync",
            "max_connections",
            "wal_level",
            "autovacuum",
            "max_wal_size",
            "work_mem"
        }) {
            try (Connection c = admin.getConnection();
                    PreparedStatement ps = c.prepareStatement("SHOW " + name);
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                out.put(name, rs.getString(1));
            } catch (SQLException e) {
                out.put(name, "(" + e.getMessage() + ")");
            }
        }
        return out;
    }

    /** Drops the run's schema and everything in it. */
    @Override
    public void close() {
        try {
            exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } finally {
            admin.close();
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}

package io.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.test.Sql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The local PostgreSQL: pools, a schema of the run's own (dropped at the end), bulk loads and the
 * server's settings. Override the server with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER.
 */
final class Pg implements AutoCloseable {
    static final String URL = LocalPostgres.URL;
    static final String USER = LocalPostgres.USER;

    /** The payload of every loaded and appended event: a small order, about 90 bytes of JSON. */
    static final String PAYLOAD_SQL =
            "convert_to('{\"orderId\":' || g || ',\"customer\":\"c-0042\",\"amount\":123.45,\"currency\":\"EUR\","
                    + "\"lines\":3}', 'UTF8')";

    /** The run's own schema. */
    final String schema;

    private final HikariDataSource admin;

    Pg() {
        this.schema = "txbench_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
        this.admin = pool(URL, USER, "txbench-admin", 2, null);
        exec("CREATE SCHEMA " + schema);
    }

    /** @return a pool whose connections use this run's schema */
    HikariDataSource pool(String name, int size) {
        return pool(URL, USER, name, size, schema);
    }

    /** @return a pool on the server at {@code url}, its connections in {@code schema} unless it is null */
    static HikariDataSource pool(String url, String user, String name, int size, String schema) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
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
        Sql.execute(admin, sql);
    }

    long count(String table) {
        return queryLong("SELECT count(*) FROM " + table);
    }

    /**
     * Loads {@code n} due events into a txoutbox-shaped table with one INSERT ... SELECT over
     * generate_series (1,000 aggregates, append order = seq). With {@code analyze}, then VACUUM ANALYZE,
     * so that every variant starts from the same settled table whose statistics the planner knows; without,
     * it stays what a fresh table is on this server (autovacuum off): never vacuumed, never analyzed.
     * The load runs on a connection of its own, closed at the end, so that its buffer counters are flushed
     * to pg_statio before a drain reads them.
     */
    void loadOutbox(String table, int n, boolean analyze) {
        try (Connection c = DriverManager.getConnection(URL, USER, null);
                Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            s.execute("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload, headers,"
                    + " created_at, available_at) SELECT gen_random_uuid(), 'order', 'order-' || (g % 1000),"
                    + " 'order.placed', " + PAYLOAD_SQL + ", '{}'::jsonb, now(), now()"
                    + " FROM generate_series(1, " + n + ") g");
            if (analyze) {
                s.execute("VACUUM ANALYZE " + table);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("loading " + table + ": " + e.getMessage(), e);
        }
    }

    /** @return how often the table was analyzed, by hand or by autovacuum */
    long analyzeCount(String table) {
        return queryLong("SELECT analyze_count + autoanalyze_count FROM pg_stat_user_tables WHERE relid = '" + table
                + "'::regclass");
    }

    /** Shared buffers a drain touched in a table: heap and index pages, each hit or read. */
    record Buffers(long heap, long index) {
        Buffers minus(Buffers before) {
            return new Buffers(heap - before.heap, index - before.index);
        }

        long total() {
            return heap + index;
        }
    }

    /**
     * Reads pg_statio_user_tables for the table once its counters stop moving: a backend flushes its
     * counters at most once a second while it runs and at once when it exits, so this is read after the
     * connections that worked on the table are closed, and again until two reads 300 ms apart agree
     * (at most 3 s).
     */
    Buffers buffers(String table) throws InterruptedException {
        String sql = "SELECT coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0),"
                + " coalesce(idx_blks_hit, 0) + coalesce(idx_blks_read, 0) FROM pg_statio_user_tables"
                + " WHERE relid = '" + table + "'::regclass";
        Buffers last = null;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(3);
        while (true) {
            Buffers now;
            try (Connection c = admin.getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                now = new Buffers(rs.getLong(1), rs.getLong(2));
            } catch (SQLException e) {
                throw new IllegalStateException(sql + ": " + e.getMessage(), e);
            }
            if (now.equals(last) || System.nanoTime() > deadline) {
                return now;
            }
            last = now;
            Thread.sleep(300);
        }
    }

    private long queryLong(String sql) {
        return Sql.count(admin, sql);
    }

    /** BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1 FROM a table; kept open until {@code c} is closed. */
    static Connection holdSnapshot(Connection c) throws SQLException {
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1 FROM pg_class LIMIT 1");
        }
        return c;
    }

    /** The settings that matter for these numbers, read with SHOW. */
    Map<String, String> settings() {
        return settings(admin, SETTINGS);
    }

    /** What {@link #settings()} shows. */
    static final List<String> SETTINGS = List.of(
            "server_version",
            "shared_buffers",
            "synchronous_commit",
            "fsync",
            "max_connections",
            "wal_level",
            "autovacuum",
            "max_wal_size",
            "work_mem");

    /** @return each setting's value read with SHOW on the server of {@code ds} */
    static Map<String, String> settings(DataSource ds, List<String> names) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : names) {
            try (Connection c = ds.getConnection();
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
}

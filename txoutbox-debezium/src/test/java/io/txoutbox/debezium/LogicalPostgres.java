package io.txoutbox.debezium;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One embedded PostgreSQL for the module's tests, started with {@code wal_level=logical} so that
 * Debezium can stream from it; the shared server's settings are never touched. Started on first use,
 * stopped when the test JVM exits. Each test uses tables, publications and slots of its own.
 */
final class LogicalPostgres {
    private static EmbeddedPostgres server;

    private LogicalPostgres() {}

    static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder()
                        .setServerConfig("wal_level", "logical")
                        .setServerConfig("max_replication_slots", "20")
                        .setServerConfig("max_wal_senders", "20")
                        .setServerConfig("fsync", "off")
                        .setServerConfig("synchronous_commit", "off")
                        .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return server;
    }

    /** @return a data source on the database {@code postgres}, a connection per call */
    static DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(server().getJdbcUrl("postgres", "postgres"));
        return ds;
    }

    static int port() {
        return server().getPort();
    }

    static void execute(String... statements) {
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static long queryLong(String sql) {
        return query(sql, rs -> {
            rs.next();
            return rs.getLong(1);
        });
    }

    static String queryString(String sql) {
        return query(sql, rs -> rs.next() ? rs.getString(1) : null);
    }

    /** Reads what a query returned. */
    @FunctionalInterface
    private interface ResultReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static <T> T query(String sql, ResultReader<T> reader) {
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            return reader.read(rs);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

package io.txoutbox.spring;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/** The local PostgreSQL the tests use; override with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER. */
public final class TestDatabase {
    public static final String URL = env("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test");
    public static final String USER = env("TXOUTBOX_PG_USER", "postgres");

    private TestDatabase() {}

    /** @return the Spring properties that point a context at the test database */
    public static String[] dataSourceProperties() {
        return new String[] {
            "spring.datasource.url=" + URL,
            "spring.datasource.username=" + USER,
            "spring.datasource.hikari.maximum-pool-size=4",
            "spring.datasource.hikari.minimum-idle=0"
        };
    }

    /** @return a table name unique to this run, with the given prefix */
    public static String uniqueTable(String prefix) {
        return (prefix + "_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF)))
                .toLowerCase(Locale.ROOT);
    }

    /** Drops an outbox table and its notify function. */
    public static void dropOutbox(String table) {
        execute("DROP TABLE IF EXISTS " + table + " CASCADE");
        execute("DROP TABLE IF EXISTS " + table + "_published CASCADE");
        execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
    }

    public static void execute(String sql) {
        try (Connection c = DriverManager.getConnection(URL, USER, null);
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long count(String sql) {
        try (Connection c = DriverManager.getConnection(URL, USER, null);
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
